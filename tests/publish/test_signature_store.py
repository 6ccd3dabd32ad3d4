"""What a disconnected mirror needs: signatures in the signature-store layout, byte for
byte, and the graph-data tarball (spec §10), checked on the example's real files."""

from __future__ import annotations

import dataclasses
import gzip
import io
import shutil
import tarfile
from pathlib import Path

import pytest
import yaml

from site_gen.cli import main
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.layout import GRAPH_DATA_TARBALL
from site_gen.model.errors import Warnings
from site_gen.publish.graph_data_tarball import tarball_files

from conftest import EXAMPLE
from serving_cases import SECRET

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

GRAPHS = "api/upgrades_info/v1/graph"
# graph-data/README.md F1.6: LICENSE, version, raw/metadata.json, 11 channels, 15 blocked edges.
TARBALL_FILES = {"LICENSE", "version", "raw/metadata.json"} | {
    f"channels/{p.name}" for p in (EXAMPLE / "channels").iterdir()} | {
    f"blocked-edges/{p.name}" for p in (EXAMPLE / "blocked-edges").iterdir()}


def build(out: Path, graph_data: Path = EXAMPLE, releases: Path = EXAMPLE / "releases") -> Path:
    assert main(["--graph-data", str(graph_data), "--releases", str(releases), "--out", str(out),
                 "--no-html", "-q", "--force"]) == 0
    return out


def build_scenario(scenario, *options: str) -> int:
    return main(["--graph-data", str(scenario.data), "--releases", str(scenario.releases),
                 "--out", str(scenario.out), "--no-html", "--force", *options])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build(tmp_path_factory.mktemp("mirror") / "site")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def members(tarball: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tar:
        return {info.name: info for info in tar.getmembers()}


def test_signatures_are_published_in_the_store_layout_byte_for_byte(site):
    sources = sorted((EXAMPLE / "signatures" / "sha256").glob("*/signature-*"))
    assert len(sources) == 6  # README: 6 signatures for 5 releases
    published = sorted(p.relative_to(site / "signatures").as_posix() for p in (site / "signatures").rglob("*")
                       if p.is_file())
    assert published == sorted(f"sha256={p.parent.name}/{p.name}" for p in sources)
    for source in sources:
        assert (site / "signatures" / f"sha256={source.parent.name}" / source.name).read_bytes() == \
            source.read_bytes()
    assert not (site / "signatures" / "example-signing-key.asc").exists()


def test_tarball_holds_exactly_what_the_reference_service_keeps(site):
    found = members((site / GRAPH_DATA_TARBALL).read_bytes())
    files = {name for name, info in found.items() if info.isfile()}
    assert len(TARBALL_FILES) == 29 and files == TARBALL_FILES
    assert {name for name, info in found.items() if info.isdir()} == {"channels", "blocked-edges", "raw"}
    assert all(info.isfile() or info.isdir() for info in found.values())
    with tarfile.open(site / GRAPH_DATA_TARBALL, mode="r:gz") as tar:
        for name in files:
            assert tar.extractfile(name).read() == (EXAMPLE / name).read_bytes(), name


def test_tarball_is_reproducible(site, tmp_path, monkeypatch):
    again = build(tmp_path / "again")
    tarball = (site / GRAPH_DATA_TARBALL).read_bytes()
    assert (again / GRAPH_DATA_TARBALL).read_bytes() == tarball
    assert list(members(tarball)) == sorted(members(tarball), key=lambda name: name.split("/"))
    for info in members(tarball).values():
        assert (info.mtime, info.uid, info.gid, info.uname, info.gname) == (0, 0, 0, "", "")
        assert info.mode == (0o755 if info.isdir() else 0o644)
    assert tarball[4:8] == b"\0\0\0\0"  # gzip header time
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    stamped = (build(tmp_path / "stamped") / GRAPH_DATA_TARBALL).read_bytes()
    assert stamped[4:8] == (1700000000).to_bytes(4, "little")
    assert {info.mtime for info in members(stamped).values()} == {1700000000}
    assert gzip.decompress(stamped) != gzip.decompress(tarball)  # only the times differ


def test_the_extracted_tarball_builds_the_same_graphs(site, tmp_path):
    with tarfile.open(site / GRAPH_DATA_TARBALL, mode="r:gz") as tar:
        tar.extractall(tmp_path / "graph-data", filter="data")
    rebuilt = build(tmp_path / "rebuilt", graph_data=tmp_path / "graph-data")
    graphs = sorted(p.relative_to(site) for p in (site / GRAPHS).glob("*/*.json"))
    assert len(graphs) == 44
    for path in graphs:
        assert (rebuilt / path).read_bytes() == (site / path).read_bytes(), path
    assert (rebuilt / GRAPH_DATA_TARBALL).read_bytes() == (site / GRAPH_DATA_TARBALL).read_bytes()


def test_a_projected_channel_is_archived_as_built():
    """After --promote-until changed a channel's versions, the tarball carries the versions
    the graphs were built from, so a consumer of it builds the same graphs."""
    data = load_graph_data(EXAMPLE, Warnings())
    channel = next(c for c in data.channels if c.name == "stable-4.16")
    projected = dataclasses.replace(channel, versions=[*channel.versions, "4.16.2"])
    data = dataclasses.replace(data, channels=[projected if c is channel else c for c in data.channels])
    files = tarball_files(data)
    content = files["channels/stable-4.16.yaml"]
    assert isinstance(content, bytes) and content.startswith(b"# versions as projected by site-gen")
    document = yaml.safe_load(content)
    assert document["versions"] == projected.versions
    assert {k: v for k, v in document.items() if k != "versions"} == \
        {k: v for k, v in channel.document.data.items() if k != "versions"}
    assert files["channels/fast-4.16.yaml"] == EXAMPLE / "channels" / "fast-4.16.yaml"


def test_a_symlink_out_of_the_graph_data_is_refused(scenario, tmp_path, capsys):
    scenario.release("4.15.0").channel("stable-4.15", ["4.15.0"])
    outside = tmp_path / "outside.yaml"
    outside.write_text("name: fast-4.15\nversions: [4.15.0]\n")
    (scenario.data / "channels" / "fast-4.15.yaml").symlink_to(outside)
    code = build_scenario(scenario, "-q")
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"{scenario.data / 'channels' / 'fast-4.15.yaml'}: error: refusing to put this in "
                          "the published graph-data tarball: it is a symbolic link that leads out of")
    assert not scenario.out.exists()


DIGEST = "ab" * 32


# link in the graph-data -> what it points to in a directory outside it
LINKS_OUT = {"signatures": "", "signatures/sha256": "sha256",
             f"signatures/sha256/{DIGEST}/signature-2": f"sha256/{DIGEST}/signature-2"}


@pytest.mark.parametrize("linked", LINKS_OUT)
def test_signatures_reached_through_a_link_out_are_refused(scenario, tmp_path, capsys, linked):
    """The tarball's rule holds for signatures too, signatures/ itself included: a link
    leading out of the graph-data stops the build and the published site stays as it was."""
    scenario.release("4.15.0").channel("stable-4.15", ["4.15.0"])
    scenario.write(f"signatures/sha256/{DIGEST}/signature-1", b"\x89signed")
    assert build_scenario(scenario) == 0
    published = tree(scenario.out)
    outside = tmp_path / "elsewhere"
    (outside / "sha256" / DIGEST).mkdir(parents=True)
    (outside / "sha256" / DIGEST / "signature-2").write_bytes(SECRET)
    link = scenario.data / linked
    if link.is_dir():
        shutil.rmtree(link)
    link.symlink_to(outside / LINKS_OUT[linked])
    capsys.readouterr()
    assert build_scenario(scenario) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{link}: error: refusing to put this in the published signatures: it is a "
                          "symbolic link that leads out of the graph-data directory\n"), err
    assert "Traceback" not in err
    assert tree(scenario.out) == published


def test_misplaced_signatures_and_links_inside_are_skipped_with_a_warning(scenario, capsys):
    scenario.release("4.15.0").channel("stable-4.15", ["4.15.0"])
    good = scenario.write(f"signatures/sha256/{DIGEST}/signature-1", b"\x89signed")
    skipped = [scenario.write(relative, b"x") for relative in (
        f"signatures/sha256/{DIGEST}/notes.txt",          # not signature-<n>
        f"signatures/sha256/{DIGEST}/signature-0",        # numbered from 1
        "signatures/sha256/NOT-HEX/signature-1",          # not a hex digest
        "signatures/sha256/signature-1",                  # one level too high
        f"signatures/sha256/{DIGEST}/more/signature-1",   # one level too deep
    )]
    inside_link = scenario.data / "signatures" / "sha256" / DIGEST / "signature-2"
    inside_link.symlink_to(good)  # stays inside the graph-data: skipped, not an error
    beside = scenario.write("signatures/example-signing-key.asc", "key")  # left out without a word
    capsys.readouterr()
    assert build_scenario(scenario) == 0
    err = capsys.readouterr().err
    for path in [*skipped, inside_link]:
        assert f"{path}: warning: ignored: signatures must be regular files at signatures/<algorithm>/" in err, path
    assert str(beside) not in err
    published = {p.relative_to(scenario.out).as_posix() for p in (scenario.out / "signatures").rglob("*")
                 if p.is_file()}
    assert published == {f"signatures/sha256={DIGEST}/signature-1"}
    assert (scenario.out / f"signatures/sha256={DIGEST}/signature-1").read_bytes() == b"\x89signed"


def test_tarball_leaves_out_what_the_reference_service_does_not_read(scenario):
    """Checked on the built tarball itself: .yml files, OWNERS, files in subdirectories
    of channels/ and blocked-edges/, and every other directory stay out."""
    scenario.release("4.15.0").release("4.15.1", previous=["4.15.0"])
    scenario.channel("stable-4.15", ["4.15.0", "4.15.1"]).block("4.15.1.yaml", "4.15.1", ".*")
    scenario.write("LICENSE", "Apache-2.0\n")
    extra = ["OWNERS", "README.md", "channels/fast-4.15.yml", "channels/OWNERS", "channels/old/stable-4.14.yaml",
             "blocked-edges/4.15.0.yml", "blocked-edges/notes.txt", "blocked-edges/sub/4.15.0.yaml",
             "internal-channels/x-4.15.yaml", f"signatures/sha256/{DIGEST}/signature-1", "raw/other.json",
             "build-suggestions/4.15.yaml", ".git/config"]
    for relative in extra:
        scenario.write(relative, "name: fast-4.15\nversions: [4.15.0]\n")
    assert build_scenario(scenario) == 0
    found = members((scenario.out / GRAPH_DATA_TARBALL).read_bytes())
    assert {name for name, info in found.items() if info.isfile()} == {
        "LICENSE", "version", "raw/metadata.json", "channels/stable-4.15.yaml", "blocked-edges/4.15.1.yaml"}
    assert {name for name, info in found.items() if info.isdir()} == {"channels", "blocked-edges", "raw"}


def test_a_bad_source_date_epoch_is_a_clear_error(scenario, monkeypatch, capsys):
    scenario.release("4.15.0").channel("stable-4.15", ["4.15.0"])
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    code = build_scenario(scenario, "-q")
    err = capsys.readouterr().err
    assert code == 1 and "SOURCE_DATE_EPOCH must be a whole number" in err and "Traceback" not in err

