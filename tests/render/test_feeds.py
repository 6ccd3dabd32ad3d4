"""Atom feeds (issue 12, "Beyond the anchors"): one per channel × architecture and one per channel
kind × architecture, read by feedparser as a feed reader would. The example is committed twice in a
temporary git repository (the second commit drops 4.15.6 from stable-4.16 and rewords a risk), built
with --changes-since HEAD~1, so every time in the feeds comes from git and is known here."""

from __future__ import annotations

import feedparser
import pytest

from site_helpers import build_site, edit, example_repo, files_of

pytestmark = pytest.mark.slow  # three builds with pages, two of them against a git history
RISK_FILE = "blocked-edges/4.16.0-ConsolePluginCapabilityLoss.yaml"


def _nothing(data):
    pass


def _second(data):
    edit(data / "channels/stable-4.16.yaml", "- 4.15.6\n", "")
    edit(data / RISK_FILE, "are no longer pruned.", "are no longer pruned (reworded).")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("feeds")
    data = example_repo(root, _nothing, _second)
    from conftest import EXAMPLE
    site = build_site(root / "site", root / "cache", graph_data=data, releases=EXAMPLE / "releases",
                      changes_since="HEAD~1").out
    again = build_site(root / "again", root / "cache2", graph_data=data, releases=EXAMPLE / "releases",
                       changes_since="HEAD~1").out
    return site, again


def _feeds(site):
    return sorted(site.glob("feeds/**/*.atom"))


def test_every_feed_is_valid_atom_with_relative_links_that_resolve(built):
    site, _ = built
    feeds = _feeds(site)
    channel_pages = sorted(site.glob("channels/*/*.html"))
    kinds = {path.parent.name for path in feeds if path.parent.name.startswith("kind-")}
    assert kinds == {"kind-candidate", "kind-eus", "kind-fast", "kind-stable"}
    assert len(feeds) == len(channel_pages) + sum(len(list((site / "feeds" / kind).glob("*.atom"))) for kind in kinds)
    for path in feeds:
        parsed = feedparser.parse(path.read_bytes())
        assert not parsed.bozo, (path, parsed.get("bozo_exception"))
        assert parsed.version == "atom10"
        assert parsed.feed.id.startswith("urn:uuid:") and parsed.feed.updated_parsed
        assert parsed.entries, path
        ids = [entry.id for entry in parsed.entries]
        assert len(ids) == len(set(ids))
        for entry in parsed.entries:
            assert entry.id.startswith("urn:uuid:") and entry.title and entry.updated_parsed and entry.summary
            assert not entry.link.startswith(("/", "http")), entry.link  # relative to the feed, any host
            assert (path.parent / entry.link).resolve().is_file(), (path, entry.link)
    for page in channel_pages:  # every channel page links its feed
        feed = f"../../feeds/{page.parent.name}/{page.stem}.atom"
        assert f'href="{feed}"' in page.read_text() and (page.parent / feed).resolve().is_file()


def test_feeds_are_deterministic(built):
    site, again = built
    assert {k: v for k, v in files_of(again / "feeds").items()} == files_of(site / "feeds")


def test_stable_feed_reports_releases_risks_and_removed_updates_with_their_commit_times(built):
    site, _ = built
    parsed = feedparser.parse((site / "feeds/stable-4.16/amd64.atom").read_bytes())
    entries = {entry.title: entry for entry in parsed.entries}
    # a release, dated by the commit that listed it (the first one, May 1)
    assert entries["4.16.1 in stable-4.16 (amd64)"].updated == "2024-05-01T00:00:00Z"
    assert entries["4.16.1 in stable-4.16 (amd64)"].link == "../../releases/4.16.1.html"
    assert "4.15.6 in stable-4.16 (amd64)" not in entries
    # the risk reworded by the second commit (May 2), with its new text
    risk = entries["Risk ConsolePluginCapabilityLoss on 2 updates in stable-4.16 (amd64)"]
    assert risk.updated == "2024-05-02T00:00:00Z" and "(reworded)" in risk.summary
    assert risk.link == "../../risks/ConsolePluginCapabilityLoss.html"
    # what dropping 4.15.6 removed, dated by this build's commit
    removed = [entry for title, entry in entries.items() if " removed from stable-4.16 (amd64) since HEAD~1" in title]
    assert len(removed) == 1 and removed[0].updated == "2024-05-02T00:00:00Z"
    assert "Releases removed: 4.15.6." in removed[0].summary
    assert "4.15.5 → 4.15.6" in removed[0].summary
    assert parsed.feed.updated == "2024-05-02T00:00:00Z"
    # the kind feed holds the channel's entries too, newest first
    kind = feedparser.parse((site / "feeds/kind-stable/amd64.atom").read_bytes())
    assert {entry.id for entry in parsed.entries} <= {entry.id for entry in kind.entries}
    stamps = [entry.updated for entry in kind.entries]
    assert stamps == sorted(stamps, reverse=True)


def test_a_changed_risk_gets_a_new_entry_id(built, tmp_path):
    """Feed readers show an entry again only under a new id: a reworded risk must get one, an unchanged
    risk must keep its id."""
    from conftest import EXAMPLE
    site, _ = built
    import shutil
    data = tmp_path / "graph-data"  # the second commit without the rewording
    shutil.copytree(EXAMPLE, data, ignore=shutil.ignore_patterns("releases"))
    edit(data / "channels/stable-4.16.yaml", "- 4.15.6\n", "")
    before = build_site(tmp_path / "site", tmp_path / "cache", graph_data=data, releases=EXAMPLE / "releases").out
    ids = {}
    for name, where in (("before", before), ("after", site)):
        ids[name] = {(path.relative_to(where).as_posix(), entry.title): entry.id for path in _feeds(where)
                     for entry in feedparser.parse(path.read_bytes()).entries if entry.title.startswith("Risk ")}
    common = ids["before"].keys() & ids["after"].keys()
    reworded = {key for key in common if "ConsolePluginCapabilityLoss" in key[1]}
    assert ("feeds/stable-4.16/amd64.atom", "Risk ConsolePluginCapabilityLoss on 2 updates in stable-4.16 (amd64)") \
        in reworded
    assert all(ids["before"][key] != ids["after"][key] for key in reworded)
    kept = common - reworded
    assert len(kept) > 20 and all(ids["before"][key] == ids["after"][key] for key in kept)
