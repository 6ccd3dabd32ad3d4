"""Jobs shared with a forked child: same results, in order, and errors from either side."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from site_gen.model.errors import InputError
from site_gen.two_processes import MIN_ITEMS, ChildJob, Worker, map_in_two


def test_results_come_back_in_order_and_half_from_a_child():
    items = list(range(3 * MIN_ITEMS + 1))
    results = map_in_two(lambda item: (item * item, os.getpid()), items)
    assert [square for square, _ in results] == [item * item for item in items]
    pids = {pid for _, pid in results}
    assert len(pids) == 2 and os.getpid() in pids
    assert {pid for _, pid in results[0::2]} == {os.getpid()}


def test_few_items_stay_in_this_process():
    assert map_in_two(lambda item: os.getpid(), list(range(MIN_ITEMS - 1))) == [os.getpid()] * (MIN_ITEMS - 1)


def test_an_input_error_in_the_child_arrives_whole(tmp_path):
    def job(item):
        if item == 3:  # an odd position: the child's
            raise InputError("bad graph", tmp_path / "f.yaml", 7)
        return item
    with pytest.raises(InputError) as caught:
        map_in_two(job, list(range(MIN_ITEMS)))
    assert str(caught.value) == f"{tmp_path / 'f.yaml'}:7: bad graph"


def test_an_error_in_this_process_ends_the_child(tmp_path):
    marker = tmp_path / "child-finished"

    def job(item):
        if item == 0:
            raise ValueError("parent side")
        if item == MIN_ITEMS - 1:
            import time
            time.sleep(5)
            marker.write_text("yes")
        return item
    with pytest.raises(ValueError, match="parent side"):
        map_in_two(job, list(range(MIN_ITEMS)))
    assert not marker.exists()


def test_a_child_that_dies_is_reported():
    def job(item):
        if item % 2:
            os._exit(3)
        return item
    with pytest.raises(RuntimeError, match="ended without an answer"):
        map_in_two(job, list(range(MIN_ITEMS)))


@pytest.mark.heavy
def test_ctrl_c_while_waiting_for_the_child_is_a_keyboard_interrupt_and_the_child_is_reaped():
    # The pipe's descriptor must be closed once: closing it again in __exit__ turned the
    # KeyboardInterrupt into an OSError (EBADF) and left the child unreaped.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupt = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    try:
        with pytest.raises(KeyboardInterrupt):
            with ChildJob(lambda: time.sleep(30)) as job:
                interrupt.start()
                job.result()
    finally:
        interrupt.cancel()
        signal.signal(signal.SIGINT, previous)
    with pytest.raises(ChildProcessError):  # already reaped: no zombie left
        os.waitpid(job._pid, os.WNOHANG)


KILLED_WITH_A_CHILD = """
import os, signal, sys, time
from site_gen.two_processes import ChildJob
job = ChildJob(lambda: time.sleep(30))
print(job._pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_forked_child_dies_with_its_parent_even_by_kill_9():
    """kill -9 runs no clean-up: the child is gone only because the kernel kills it with its
    parent (PR_SET_PDEATHSIG), at once, not after its 30 s of work."""
    import subprocess
    import sys
    from pathlib import Path
    process = subprocess.Popen([sys.executable, "-c", KILLED_WITH_A_CHILD], stdout=subprocess.PIPE, text=True,
                               cwd=Path(__file__).parent.parent)
    with process:
        child = int(process.stdout.readline())  # the child holds the pipe too: wait for the parent, not EOF
        assert process.wait(timeout=60) == -signal.SIGKILL
    deadline = time.monotonic() + 1
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child), "the child outlived its parent"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def remember(kept: dict, value: int) -> int:
    kept["value"] = value
    return os.getpid()


def recall(kept: dict) -> int:
    return kept["value"]


def die(kept: dict) -> None:
    os._exit(3)


def test_the_worker_runs_calls_in_order_in_one_child_and_ends_with_close():
    worker = Worker()
    first, second = worker.submit(remember, 7), worker.submit(recall)
    pid = first.result()
    assert pid != os.getpid() and second.result() == 7
    worker.close(cancel=False)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no child left behind


def test_a_worker_that_dies_is_an_error_where_the_result_is_asked_for():
    worker = Worker()
    with pytest.raises(RuntimeError, match="ended without an answer"):
        worker.submit(die).result()
    worker.close(cancel=True)
