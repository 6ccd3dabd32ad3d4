"""The build's runner: where steps run, what an apart step hands to a later one, errors, timings."""

from __future__ import annotations

import os
import threading

import pytest

from site_gen.pipeline.runner import Earlier, Runner

from conftest import EXAMPLE


class Unpicklable:
    """Crossing the pipe would fail: only the worker that made it may use it."""

    def __init__(self, pid: int):
        self.pid = pid

    def __reduce__(self):
        raise TypeError("this object never crosses the pipe")


def make_unpicklable() -> Unpicklable:
    return Unpicklable(os.getpid())


def pid_of(kept: Unpicklable) -> int:
    return kept.pid


def fail(message: str) -> None:
    raise ValueError(message)


def test_an_apart_step_takes_an_earlier_result_inside_the_worker():
    with Runner() as runner:
        # keep=True stores the result in the worker, and the later step gets that very
        # object: one that cannot be pickled could not have come back through the pipe
        runner.apart("make", make_unpicklable, keep=True)
        worker_pid = runner.apart("use", pid_of, Earlier("make")).result()
    assert worker_pid != os.getpid()
    assert [t.name for t in runner.timings] == ["use"] and runner.timings[0].place == "apart"


def test_steps_here_and_beside_run_in_this_process_and_are_timed():
    with Runner() as runner:
        here = runner.here("here", threading.get_ident)
        beside = runner.beside("beside", threading.get_ident).result()
    assert here == threading.get_ident() and beside != here
    assert {(t.name, t.place) for t in runner.timings} == {("here", "here"), ("beside", "beside")}
    assert all(t.seconds >= 0 for t in runner.timings)


def test_an_apart_error_is_raised_where_the_result_is_asked_for():
    with pytest.raises(ValueError, match="broken input"), Runner() as runner:
        runner.apart("fails", fail, "broken input").result()


@pytest.mark.heavy
def test_build_timings_lists_every_step(tmp_path, capsys):
    from site_gen.cli import main
    assert main(["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / "site"), "--no-html",
                 "--cache-dir", str(tmp_path / "cache"), "--timings"]) == 0
    report = capsys.readouterr().err.split("steps:\n", 1)[1]
    names = [line.split("  ")[1].strip() for line in report.splitlines() if line.strip()]
    assert set(names) == {"hash the inputs", "read graph-data", "pack graph-data tarball", "render nginx files",
                          "read releases", "check feeders", "git blame channels", "graph-builder stages",
                          "promotion", "policy engine", "write promotion data", "write graphs",
                          "write signatures", "write graph-data tarball", "write nginx files", "precompress pages",
                          "read operator catalogs", "write operator catalogs"}
