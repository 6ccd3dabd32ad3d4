"""The README and docs/ match the code: every site-gen command they show parses with the
real command line, every relative link leads to a file (and heading) that exists, and the
README stays a newcomer's page."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from site_gen.cli import _with_default_command, make_parser

from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "benchmarks" / "README.md"]
PROGRAMS = ("site-gen", ".venv/bin/site-gen", "python build.py")
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|console)\n(.*?)^```", re.M | re.S)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def shown_commands(path: Path) -> list[str]:
    """The site-gen invocations in a document's shell blocks, continuation lines joined."""
    found = []
    for block in SHELL_BLOCK.findall(path.read_text()):
        for line in block.replace("\\\n", " ").splitlines():
            for segment in re.split(r"\||&&|;", line):
                segment = re.split(r" #| [0-9]?[<>]", segment, maxsplit=1)[0].strip()  # comments, redirections
                for program in PROGRAMS:
                    if segment.startswith(program + " ") or segment == program:
                        found.append(segment[len(program):].strip())
    return found


class Refused(Exception):
    pass


def parse(arguments: str) -> argparse.Namespace:
    argv = _with_default_command(shlex.split(arguments))
    parser = make_parser()

    def refuse(message: str):
        raise Refused(message)
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for sub in action.choices.values():
            sub.error = refuse
    parser.error = refuse
    return parser.parse_args(argv)


def test_the_docs_show_site_gen_commands():
    shown = {str(path.relative_to(REPO)): len(shown_commands(path)) for path in DOCS}
    assert shown["README.md"] >= 5 and sum(shown.values()) >= 20, shown


@pytest.mark.heavy
@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_shown_parses(path):
    refused = []
    for command in shown_commands(path):
        try:
            parse(command)
        except Refused as exc:
            refused.append(f"site-gen {command}: {exc}")
    assert not refused, "\n".join(refused)


def test_a_misspelled_option_is_caught():
    """The check above is live: argparse refuses what the docs could get wrong."""
    with pytest.raises(Refused, match="--graph-dta"):
        parse("build --graph-dta DIR")
    with pytest.raises(Refused):
        parse("plan --site public --kind lts")


def headings(path: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings."""
    anchors = set()
    for line in path.read_text().splitlines():
        if line.startswith("#") and not line.startswith("#!"):
            text = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_somewhere(path):
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        destination = (path.parent / file).resolve() if file else path
        if not destination.exists():
            broken.append(target)
        elif anchor and destination.suffix == ".md" and anchor not in headings(destination):
            broken.append(target)
    assert not broken, broken


def test_the_readme_is_a_newcomers_page():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 150  # issue 27: a door to docs/, not a second copy of them
    # the two commands come first, and the site the first one builds is the one served
    first_block = SHELL_BLOCK.search(readme).group(1)
    assert first_block.splitlines()[0].startswith("./run.sh site")
    assert "./run.sh test" in first_block
    served = next(c for c in shown_commands(REPO / "README.md") if c.startswith("serve"))
    assert Path(parse(served).site) == parse("build").out
    words = " ".join(readme.split())
    for needed in ("Pointing a cluster at it", "spec.upstream", "oc get clusterversion version -o json",
                   "never leaves the browser", "Where to read more"):
        assert needed in words, needed


def test_the_readme_repeats_nothing_from_the_docs():
    """Issue 27 point 6: the README once carried the layout map and the library table of
    docs/development.md, and the copies had drifted apart. Each now lives in one place: the
    layout map in docs/development.md, the library table in the README; and no sentence of the
    README is copied into a document of docs/."""
    readme = (REPO / "README.md").read_text()
    development = (REPO / "docs" / "development.md").read_text()
    assert "| library |" in readme and "| library |" not in development
    assert "site_gen/engine/" in development and "site_gen/engine/" not in readme
    sentences = {s.strip() for s in re.split(r"(?<=[.:])\s", " ".join(readme.split())) if len(s.strip()) > 60}
    docs = " ".join(" ".join(path.read_text().split()) for path in sorted((REPO / "docs").glob("*.md")))
    assert [s for s in sentences if s in docs] == []


def test_no_merge_conflict_is_left_in_the_repository():
    """A merge of parallel branches once left its markers in a doc: text files are checked."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=False).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)
    left = [name for name in tracked if Path(name).suffix in {".py", ".md", ".js", ".j2", ".css", ".yaml", ".yml",
                                                               ".json", ".sh", ".toml", ".txt", ""}
            and (REPO / name).is_file() and marker.search((REPO / name).read_text("utf-8", errors="replace"))]
    assert left == []


@pytest.mark.slow
def test_the_readmes_example_site_commands_run(tmp_path, capsys):
    """Issue 29 point 15: the README's plan and plan-operator examples named a site (public) and
    versions a newcomer does not have. Every command it shows on _site runs, on the site
    `./run.sh site` builds (python build.py: the embedded example with its catalogs), with an answer
    (exit 0, nothing on standard error)."""
    from site_gen.cli import main
    site = tmp_path / "_site"
    assert main(["build", "--out", str(site), "-q", "--cache-dir", str(tmp_path / "cache")]) == 0
    shown = [command for command in shown_commands(REPO / "README.md") if "--site _site" in command]
    assert {shlex.split(command)[0] for command in shown} == {"plan", "plan-operator", "release"}, shown
    capsys.readouterr()
    for command in shown:
        argv = [str(site) if word == "_site" else str(REPO / word) if word.startswith("tests/") else word
                for word in shlex.split(command)]
        status = main(argv)
        out, err = capsys.readouterr()
        # every example is chosen to have an answer: a route, an operator's path, contents
        assert (status, err) == (0, "") and out, (command, status, err)
