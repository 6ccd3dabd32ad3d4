"""site_gen/js_rules/v8_context.py: asset scripts in an embedded V8, called from Python, bounded, and safe
across threads and forks."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time

import orjson
import pytest

from site_gen.js_rules import JsError, JsLimitError, JsRules, Kept, rules, v8_context

from conftest import REPO

PROBE = """\
"use strict";
const SiteGenProbe = (() => {
  class ProbeError extends Error { constructor(m) { super(m); this.name = "ProbeError"; } }
  const echo = (...args) => args;
  const nothing = () => undefined;
  const fail = (message) => { throw new ProbeError(message); };
  const failText = () => { throw "plain text"; };
  const spin = () => { for (;;) {} };
  const hog = () => { const all = []; for (;;) all.push(new Array(1e5).fill(all.length)); };
  const big = () => 2n ** 70n;
  const push = (list, item) => list.push(item);
  return {echo, nothing, fail, failText, spin, hog, big, push};
})();
"""


@pytest.fixture
def probe_assets(tmp_path, monkeypatch):
    """An asset folder holding the probe script (and one that does not parse)."""
    (tmp_path / "probe.js").write_text(PROBE, "utf-8")
    (tmp_path / "broken.js").write_text("const SiteGenBroken = (() => { return {;\n", "utf-8")
    monkeypatch.setattr(v8_context, "ASSET_DIR", tmp_path)
    return tmp_path


def test_a_call_takes_and_gives_json(probe_assets):
    probe = JsRules(["probe.js"])
    record = {"b": [1, 2.5, None, True], "a": "é\u2028x", "n": {"z": 1, "y": 2}}
    assert probe.call("SiteGenProbe.echo", record, 3, "x") == [record, 3, "x"]
    assert list(probe.call("SiteGenProbe.echo", record)[0]["n"]) == ["z", "y"]  # key order kept
    assert probe.call("SiteGenProbe.echo", orjson.Fragment(b'{"raw":[1]}')) == [{"raw": [1]}]
    assert probe.call("SiteGenProbe.nothing") is None


@pytest.mark.heavy
def test_a_kept_value_is_parsed_once_and_passed_by_reference(probe_assets):
    probe = JsRules(["probe.js"], timeout=0.3)
    kept = probe.keep(["a"])
    assert isinstance(kept, Kept)
    assert probe.call("SiteGenProbe.push", kept, "b") == 2
    assert probe.call("SiteGenProbe.push", kept, "c") == 3  # the same object: it keeps what it was given
    assert probe.call("SiteGenProbe.echo", 1, kept, orjson.Fragment(b"[2]")) == [1, ["a", "b", "c"], [2]]
    with pytest.raises(JsLimitError):
        probe.call("SiteGenProbe.spin")
    # a new context parses the kept text anew: what calls changed in the old one is gone with it
    assert probe.call("SiteGenProbe.echo", kept) == [["a"]]
    probe.forget(kept)
    assert probe.call("SiteGenProbe.echo", kept) == [["a"]]


def test_a_forgotten_value_is_freed_with_the_next_call(probe_assets):
    probe = JsRules(["probe.js"])
    first, second = probe.keep(["a"]), probe.keep(["b"])
    assert probe.kept_count() == 2
    probe.forget(first)  # no call of its own: the next call frees it first
    assert probe.call("SiteGenProbe.echo", second) == [["b"]]
    assert probe.kept_count() == 1
    probe.forget(second)
    probe.forget(second)  # twice: nothing more
    assert probe.kept_count() == 0
    assert probe.call("SiteGenProbe.echo", first) == [["a"]]  # kept again from its text
    assert probe.kept_count() == 1


def test_a_javascript_exception_is_a_js_error_with_its_message(probe_assets):
    probe = JsRules(["probe.js"])
    with pytest.raises(JsError) as raised:
        probe.call("SiteGenProbe.fail", "the FROM release has no contents")
    assert str(raised.value) == "the FROM release has no contents"
    assert (raised.value.name, raised.value.function) == ("ProbeError", "SiteGenProbe.fail")
    assert "probe.js:" in raised.value.stack  # the stack names the script
    with pytest.raises(JsError) as raised:
        probe.call("SiteGenProbe.failText")
    assert (raised.value.name, str(raised.value)) == ("string", "plain text")
    with pytest.raises(JsError, match="SiteGenProbe.missing is not a function"):
        probe.call("SiteGenProbe.missing")
    with pytest.raises(JsError, match="BigInt"):  # a result JSON cannot hold
        probe.call("SiteGenProbe.big")
    assert probe.call("SiteGenProbe.echo", 1) == [1]  # the context still works


def test_a_script_that_does_not_parse_is_named(probe_assets):
    with pytest.raises(JsError) as raised:
        JsRules(["probe.js", "broken.js"]).call("SiteGenProbe.echo")
    assert raised.value.function == "load broken.js" and "SyntaxError" in str(raised.value)


def test_names_are_checked_before_anything_runs(probe_assets):
    with pytest.raises(ValueError):
        JsRules(["../probe.js"])
    with pytest.raises(ValueError):
        JsRules(["probe.js"]).call("SiteGenProbe.echo(1); globalThis.x")


@pytest.mark.heavy
def test_a_call_past_its_time_is_stopped_and_the_next_call_works(probe_assets):
    probe = JsRules(["probe.js"], timeout=0.3)
    started = time.perf_counter()
    with pytest.raises(JsLimitError, match="0.3 s"):
        probe.call("SiteGenProbe.spin")
    assert time.perf_counter() - started < 3
    assert probe.call("SiteGenProbe.echo", "again") == ["again"]


def test_a_call_past_its_memory_cap_is_stopped_and_the_next_call_works(probe_assets):
    probe = JsRules(["probe.js"], max_memory=64 * 1024 * 1024, timeout=20)
    with pytest.raises(JsLimitError, match="67108864 bytes"):
        probe.call("SiteGenProbe.hog")
    assert probe.call("SiteGenProbe.echo", "again") == ["again"]
    with pytest.raises(JsError, match="still an error"):  # not taken for a memory error
        probe.call("SiteGenProbe.fail", "still an error")


def test_one_context_per_process_and_script_list():
    assert rules("olm-blang.js", "release-diff.js") is rules("olm-blang.js", "release-diff.js")
    assert rules("olm-blang.js") is not rules("olm-blang.js", "release-diff.js")


def test_calls_from_several_threads_each_get_their_own_answer(probe_assets):
    probe = JsRules(["probe.js"])
    answers: dict[int, object] = {}

    def ask(number: int) -> None:
        answers[number] = [probe.call("SiteGenProbe.echo", number, "x" * number)[0] for _ in range(20)]

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {n: [n] * 20 for n in range(6)}


@pytest.mark.heavy
def test_a_call_inside_a_running_event_loop_keeps_its_time_limit(probe_assets):
    async def main():
        probe = JsRules(["probe.js"], timeout=0.3)  # made inside the loop
        assert probe.call("SiteGenProbe.echo", 1) == [1]
        with pytest.raises(JsLimitError):
            probe.call("SiteGenProbe.spin")
        return probe.call("SiteGenProbe.echo", 2)

    assert asyncio.run(main()) == [2]


FORK_CHILD = """
import gc, os, sys
from site_gen.js_rules import rules
diff = rules("olm-blang.js", "release-diff.js")
assert diff.call("SiteGenReleaseDiff.componentLabel", "machine-os", None) == "Machine Os"
pairs = diff.keep([["machine-os", None]])
assert diff.call("SiteGenReleaseDiff.componentLabels", pairs) == ["Machine Os"]
pid = os.fork()
if pid == 0:
    # the inherited context is never used or finalised here: this call makes the child's own,
    # and the child then ends as Python normally does, freeing everything it can
    assert diff.call("SiteGenReleaseDiff.componentLabel", "kube-apiserver", None) == "Kube Apiserver"
    assert diff.call("SiteGenReleaseDiff.componentLabels", pairs) == ["Machine Os"]
    del diff
    gc.collect()
    sys.exit(0)
_, status = os.waitpid(pid, 0)
assert diff.call("SiteGenReleaseDiff.componentLabel", "kubectl", None) == "Kubectl"
print("child", os.waitstatus_to_exitcode(status))
"""


@pytest.mark.heavy
@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_makes_its_own_context_and_ends_cleanly():
    done = subprocess.run([sys.executable, "-c", FORK_CHILD], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "child 0\n", "")
