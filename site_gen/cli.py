"""Command line: ``site-gen COMMAND ...`` (``python build.py`` is the same program).

Each command lives in ``site_gen/commands/<module>.py`` with ``add_parser(sub)``
and ``run(args, warnings) -> exit status``. With no command, ``build`` is assumed,
so ``python build.py`` builds the embedded example.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__, quick_exit
from .interruption import Interrupted, stop_cleanly_on_signals
from .model.errors import InputError, Warnings
from .terminal_text import escaped_output, shown

# command name -> module in site_gen.commands, in the order --help lists them
COMMANDS = {
    "build": "build",
    "import": "import_responses",
    "scrape": "scrape",
    "serve": "serve",
    "bundle": "bundle",
    "check": "check",
    "diff": "diff",
    "plan": "plan",
    "plan-operator": "plan_operator",
    "release": "release_cli",
}

# The commands that write an output (site, archive, release documents): only their failures leave
# "nothing was published"; the others (check, diff, plan, ...) publish nothing to begin with.
PUBLISHING = frozenset({"build", "import", "scrape", "bundle"})

DESCRIPTION = """\
Publish OpenShift update graphs as static files: for every channel × architecture,
the JSON the Cincinnati update service answers, plus pages to browse them.
With no command, `build` is assumed: `python build.py` builds the example into _site/.
Run `site-gen COMMAND --help` for the options of a command.
"""


def _module(command: str):
    return importlib.import_module(f".commands.{COMMANDS[command]}", __package__)


def make_parser(commands=tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The parser for ``commands``: all of them for ``--help``, only the one being run
    otherwise, so a build does not import the server, the planner and the rest."""
    parser = argparse.ArgumentParser(prog="site-gen", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"site-gen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands:
        _module(command).add_parser(sub)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
        return argv
    return ["build", *argv]


def main(argv: list[str] | None = None, exit_at_once: bool = False) -> int:
    """Run one command. ``exit_at_once``: the process ends with the command, which may then
    leave without freeing what it built (:mod:`.quick_exit`); tests call main without it."""
    with escaped_output():  # names are anyone's text: no control character reaches the terminal raw
        return _main(argv, exit_at_once)


def _main(argv: list[str] | None, exit_at_once: bool) -> int:
    argv = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    parser = make_parser((argv[0],) if argv[0] in COMMANDS else tuple(COMMANDS))
    args = parser.parse_args(argv)
    args.exit_at_once = exit_at_once  # an option of the program, not of the command line
    warnings = Warnings(echo=not getattr(args, "quiet", False))
    if args.command != "serve":  # serve keeps its own shutdown; the others clean up as on Ctrl-C
        stop_cleanly_on_signals()
    try:
        return _module(args.command).run(args, warnings)
    except InputError as exc:
        print(f"{exc.location}error: {shown(exc.message)}", file=sys.stderr)
        if args.command in PUBLISHING:
            print("nothing was published; any previous output is unchanged", file=sys.stderr)
        return 1
    except Interrupted as exc:
        print(f"stopped by {exc}; any previous output is unchanged", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("interrupted; any previous output is unchanged", file=sys.stderr)
        return 130


def entry_point() -> None:
    """``site-gen``, ``python -m site_gen`` and ``build.py``: :func:`main`, then exit at
    once (see :mod:`.quick_exit`)."""
    quick_exit.leave(main(exit_at_once=True))
