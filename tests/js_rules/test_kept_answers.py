"""site_gen/js_rules/kept_answers.py: answers kept across runs start no V8, and a changed script,
function or argument misses."""

from __future__ import annotations

import pytest

from site_gen.js_rules import JsRules, v8_context
from site_gen.js_rules.kept_answers import KeptAnswers

PROBE = 'const SiteGenProbe = (() => ({double: (x) => x * 2, nothing: () => null, mark: () => "%s"}))();\n'


@pytest.fixture
def assets(tmp_path, monkeypatch):
    folder = tmp_path / "assets"
    folder.mkdir()
    (folder / "probe.js").write_text(PROBE % "one", "utf-8")
    monkeypatch.setattr(v8_context, "ASSET_DIR", folder)
    return folder


def run(cache_dir, source, *calls):
    """One run: a fresh context (made only if asked), the answers of ``calls``, the file saved; the
    answers and whether V8 was started."""
    probe = JsRules(["probe.js"])
    kept = KeptAnswers(cache_dir, source)
    answers = [kept.of(probe).call(function, *args) for function, *args in calls]
    kept.save()
    started = probe._context is not None
    probe.close()
    return answers, started


def test_a_second_run_answers_without_v8(assets, tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "catalog"
    calls = [("SiteGenProbe.double", 21), ("SiteGenProbe.nothing",), ("SiteGenProbe.mark",)]
    assert run(cache, source, *calls) == ([42, None, "one"], True)
    assert run(cache, source, *calls) == ([42, None, "one"], False)  # a null answer is kept too
    # another input has its own file
    assert run(cache, tmp_path / "other", *calls) == ([42, None, "one"], True)


def test_a_changed_argument_or_function_misses(assets, tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "catalog"
    run(cache, source, ("SiteGenProbe.double", 21))
    assert run(cache, source, ("SiteGenProbe.double", 22)) == ([44], True)
    assert run(cache, source, ("SiteGenProbe.mark",)) == (["one"], True)


def test_a_changed_script_misses(assets, tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "catalog"
    assert run(cache, source, ("SiteGenProbe.mark",)) == (["one"], True)
    (assets / "probe.js").write_text(PROBE % "two", "utf-8")
    assert run(cache, source, ("SiteGenProbe.mark",)) == (["two"], True)


def test_only_the_answers_a_run_used_are_kept(assets, tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "catalog"
    run(cache, source, ("SiteGenProbe.double", 1), ("SiteGenProbe.double", 2))
    run(cache, source, ("SiteGenProbe.double", 2))
    assert run(cache, source, ("SiteGenProbe.double", 2)) == ([4], False)
    assert run(cache, source, ("SiteGenProbe.double", 1)) == ([2], True)


def test_a_damaged_file_is_an_empty_cache(assets, tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "catalog"
    run(cache, source, ("SiteGenProbe.double", 21))
    [file] = (cache / "js-answers-v1").iterdir()
    file.write_bytes(b'{"code": tru')
    assert run(cache, source, ("SiteGenProbe.double", 21)) == ([42], True)
