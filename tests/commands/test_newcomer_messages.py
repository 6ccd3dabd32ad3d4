"""Issue 29, point 15: what a newcomer reads in the terminal and in the docs says what happened.
The README's examples on the example site run (tests/project/test_docs.py); here: `plan --help` names
--arch's value ARCH, `diff` and `plan` errors do not say "nothing was published" (they publish
nothing), a graph-data directory given and missing is not told to "pass --graph-data DIR", a
cluster planned with --arch is not asked to choose its architecture, and `./run.sh quick` has one
documented duration."""

from __future__ import annotations

import re

import pytest

from site_gen.cli import main

from conftest import EXAMPLE, REPO
from planner_corpus import CLUSTERS_DIR, build_example_site


def test_plan_help_names_the_architecture_arch(capsys):
    try:
        main(["plan", "--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    assert "--arch ARCH " in out and "ARCH_GIVEN" not in out


def test_a_failed_diff_does_not_say_nothing_was_published(tmp_path, capsys):
    status = main(["diff", "HEAD~1", "HEAD", "--graph-data", str(tmp_path / "missing")])
    err = capsys.readouterr().err
    assert status != 0 and "error:" in err
    assert "nothing was published" not in err and "pass --graph-data" not in err


def test_a_failed_build_still_says_nothing_was_published(tmp_path, capsys):
    assert main(["build", "--graph-data", str(tmp_path / "missing"), "--out", str(tmp_path / "out"), "-q"]) == 1
    err = capsys.readouterr().err
    assert err == (f"{tmp_path / 'missing'}: error: graph-data directory not found: give a graph-data checkout\n"
                   "nothing was published; any previous output is unchanged\n")


def test_check_hints_at_the_option_only_when_it_was_not_given(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no graph-data/ here: the default is missing
    assert main(["check", "-q"]) == 2
    assert capsys.readouterr().err == "graph-data: error: graph-data directory not found (pass --graph-data DIR)\n"
    assert main(["check", "--graph-data", str(EXAMPLE / "nowhere"), "-q"]) == 2
    assert "pass --graph-data" not in capsys.readouterr().err


@pytest.mark.heavy
def test_a_cluster_planned_with_arch_is_not_asked_to_choose_it(tmp_path, capsys):
    site = build_example_site(tmp_path)
    cluster = CLUSTERS_DIR / "unknown-version.json"
    assert main(["plan", "--site", str(site), "--cluster", str(cluster)]) == 2
    assert "choose it. (pass --arch)" in capsys.readouterr().err
    main(["plan", "--site", str(site), "--cluster", str(cluster), "--arch", "amd64"])
    out = capsys.readouterr().out
    assert "choose it" not in out
    assert "so its architecture is not known: planning for amd64, as chosen." in out


@pytest.mark.parametrize("loop", ["quick", "core"])
def test_each_loop_has_one_documented_duration(loop):
    """README, docs/development.md and run.sh each said something else (about 1.5 min, under a
    minute, 90 s) for the quick loop; each loop's time is now said once per file, the same."""
    said: dict[str, list[str]] = {}
    for path in (REPO / "README.md", REPO / "docs" / "development.md", REPO / "run.sh"):
        text = " ".join(path.read_text("utf-8").split()).replace(f"./run.sh {loop}", f"{loop} loop")
        duration = r"((?:about |under |within )?(?:a |one |[0-9.]+ (?:to [0-9.]+ )?)min(?:ute)?s?)\b"
        for found in re.findall(loop + r" loop[^.;]*?\(?" + duration, text):
            said.setdefault(found, []).append(path.name)
    assert len(said) == 1, said
    assert sorted(set(sum(said.values(), []))) == ["README.md", "development.md", "run.sh"], said
