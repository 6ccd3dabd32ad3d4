"""Run ``site-gen build ARGS`` and kill this process (SIGKILL, no cleanup) just before
the Nth file-system step of the final swap (``StagedSite.commit``): removing what the spare held that
the build did not write, the marker, the swap, up to setting aside (or removing) what it replaced.

Usage: python crash_at_step.py N build-args...   Exits 0 if the build ended first.
Steps are what Python's audit hooks report (creating, renaming, removing, chmod);
a step they cannot see, such as renameat2 through ctypes, happens in between.
"""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from site_gen.cli import main  # noqa: E402
from site_gen.publish import staging  # noqa: E402

STEPS = {"open", "os.rename", "os.replace", "os.rmdir", "os.mkdir", "os.remove", "os.unlink",
         "os.chmod", "shutil.rmtree", "shutil.move"}
target = int(sys.argv[1])
state = {"committing": False, "seen": 0}


def step() -> None:
    state["seen"] += 1
    if state["seen"] == target:
        os.kill(os.getpid(), signal.SIGKILL)


def hook(event, args):
    if not state["committing"] or event not in STEPS:
        return
    if event == "open" and not (isinstance(args[1], str) and set(args[1]) & set("wxa+")):
        return  # reading is not a step
    step()


original_commit = staging.StagedSite.commit
original_set_aside = staging.StagedSite._set_aside


def commit(self):
    state["committing"] = True
    return original_commit(self)


def set_aside(self, previous):
    """Keeping or removing what was replaced: the last step, each file inside not counted."""
    step()
    state["committing"] = False
    return original_set_aside(self, previous)


staging.StagedSite.commit = commit
staging.StagedSite._set_aside = set_aside
sys.addaudithook(hook)
sys.exit(main(sys.argv[2:]))
