"""``build --changes-since REV`` as a step of its own (site_gen.diffing.since): the graph-data
at REV is read by the build's own reader, beside the build, and built from the releases this
build already read, so the releases are read once."""

from __future__ import annotations

import pytest

from site_gen.diffing.compare import compare
from site_gen.diffing.sides import graphs_from_commit
from site_gen.diffing.since import NEW_LABEL, changes_since, read_old_side, resolve_changes_since
from site_gen.engine import stages
from site_gen.engine.build_graphs import build_graphs, read_releases
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.pipeline import site_build
from site_gen.publish.graph_json import graph_documents
from site_gen.render.graph_drawer import GraphDrawer

from conftest import EXAMPLE
from site_helpers import build_site, edit, example_repo, parse_html

RELEASES = EXAMPLE / "releases"


def _drop_and_add(data):
    """4.16.1 leaves stable-4.16, 4.16.3 joins fast-4.16."""
    edit(data / "channels/stable-4.16.yaml", "- 4.16.1\n", "")
    edit(data / "channels/fast-4.16.yaml", "- 4.16.1\n", "- 4.16.1\n- 4.16.3\n")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return example_repo(tmp_path_factory.mktemp("since"), lambda data: None, _drop_and_add)


@pytest.mark.heavy
def test_the_old_side_from_the_releases_as_read_is_the_old_side_read_again(repo):
    """The old side built from this build's releases graph gives the very comparison that
    building REV from scratch (reading the releases again, as site-gen diff does) gives."""
    since = resolve_changes_since(repo, "HEAD~1", RELEASES)
    new = build_graphs(load_graph_data(repo, Warnings()), RELEASES, Warnings())
    releases_graph, _ = read_releases(RELEASES)
    changes = changes_since(since, read_old_side(since), releases_graph, new)
    assert changes.problem is None
    again = compare(graphs_from_commit(repo, since.commit, "HEAD~1", RELEASES), graph_documents(new),
                    "HEAD~1", NEW_LABEL)
    assert changes.model == again
    changed = {(group["channel"], group["arch"]) for group in again["graphs"]}
    assert ("stable-4.16", "amd64") in changed and ("fast-4.16", "amd64") in changed


def test_an_old_side_that_cannot_be_read_is_a_problem_not_an_error(repo):
    since = resolve_changes_since(repo, "HEAD~1", RELEASES)
    gone = type(since)(since.revision, "0" * 40, since.graph_data, since.releases)  # no such commit
    old = read_old_side(gone)
    assert old.read is None and old.problem and "0000000" in old.problem


@pytest.mark.slow
def test_a_changes_since_build_reads_the_releases_once(repo, tmp_path, monkeypatch):
    """Before, the old side read every release document again inside the render step. The
    count is taken where the read-releases stage reads them (a fresh cache: nothing kept)."""
    reads = []
    real = stages.load_release_graph

    def counted(*args, **kwargs):
        reads.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(stages, "load_release_graph", counted)
    events = []  # the comparison runs once the pictures are handed to dot, while it draws
    submit, compared = GraphDrawer.submit, site_build.compare_with_old_side

    def submitted(self, *args, **kwargs):
        events.append("submit")
        return submit(self, *args, **kwargs)

    def comparing(*args, **kwargs):
        events.append("compare")
        return compared(*args, **kwargs)
    monkeypatch.setattr(GraphDrawer, "submit", submitted)
    monkeypatch.setattr(site_build, "compare_with_old_side", comparing)
    result = build_site(tmp_path / "site", tmp_path / "cache", graph_data=repo, releases=RELEASES,
                        changes_since="HEAD~1")
    assert reads == [RELEASES]
    places = {timing.name: timing.place for timing in result.timings}
    assert places["read graph-data at --changes-since"] == "apart"  # read beside the build's own
    assert places["changes since"] == "here"
    assert events.count("compare") == 1 and "submit" in events[:events.index("compare")]
    names = [timing.name for timing in result.timings]
    assert names.index("changes since") < names.index("render pages")  # timed on its own, inside render
    page = parse_html(result.out / "changes.html")
    assert page.find("p", "diff-summary").text.startswith("8 of 44 channel × architecture graphs")
