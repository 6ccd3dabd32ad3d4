"""--release-contents from release images: the real docker-registry and an OCI layout.

The example's image trees are pushed as three-layer images (base, the CVO's manifests/, the
release-manifests/ layer); the published contents must equal what the same trees give from a
directory, apart from nothing: the digest is the image's either way. Layers are read once
(kept by digest), whiteouts apply, and a fault fails the build while a hostile layer only
costs its release.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import orjson
import pytest

from site_gen.cli import main

from conftest import REPO, SHARED
from contents_records import whole_contents
from registry_images import Pusher, gzip_bytes, tar_bytes
from registry_server import REGISTRY, cert_dir_for
from release_images import push_release, release_layers, write_layout

pytest_plugins = ["registry_fixtures"]

EXAMPLE_CONTENTS = REPO / "example-release-contents"
RELEASES = ("4.15.8", "4.15.9", "4.16.4")
REPOSITORY = "contents/release-images"


def needs_registry(test):
    return pytest.mark.registry(pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")(test))


def scenario_for(scenario, digests: dict[str, str], payload_repository: str) -> None:
    for version, digest in digests.items():
        scenario.release(version, payload=f"{payload_repository}@{digest}")
    scenario.channel("stable-4.16", list(digests))


def build(scenario, *options: str) -> int:
    return main(["build", "--graph-data", str(scenario.data), "--releases", str(scenario.releases), "--no-html",
                 "-q", "--out", str(scenario.out), *options])


def contents(out: Path, version: str) -> dict:
    return whole_contents(out, version)


def without_digest(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "digest"}


def tar_with(members: list[tuple[str, bytes | None, str]]) -> bytes:
    """A gzip'd tar of (name, data, type): "file", "hardlink" or "symlink" (data = target), "fifo"."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            info.mtime = 0
            if kind == "file":
                info.size = len(data or b"")
                archive.addfile(info, io.BytesIO(data or b""))
            else:
                info.type = {"hardlink": tarfile.LNKTYPE, "symlink": tarfile.SYMTYPE, "fifo": tarfile.FIFOTYPE}[kind]
                info.linkname = (data or b"").decode()
                archive.addfile(info)
    return gzip.compress(buffer.getvalue(), mtime=0)


@pytest.fixture(scope="module")
def pushed(anonymous_registry):
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        digests = {version: push_release(pusher, version, EXAMPLE_CONTENTS / version / "amd64")
                   for version in RELEASES}
        # 4.16.4 again with a layer on top removing a manifest (a whiteout) and the whole CVO
        # manifests/ directory's admin gate: what the CVO would load from that image
        whiteouts = gzip_bytes(tar_bytes({
            "release-manifests/.wh.0000_50_olm_00-clusteroperator.yaml": b"",
            "manifests/.wh.0000_00_cluster-version-operator_01_admingate_configmap.yaml": b""}))
        digests["whiteout"] = push_release(pusher, "whiteout", EXAMPLE_CONTENTS / "4.16.4" / "amd64",
                                          extra=[whiteouts])
    finally:
        pusher.close()
    return anonymous_registry, digests


@needs_registry
def test_registry_contents_equal_the_trees(scenario, tmp_path, pushed):
    registry, digests = pushed
    scenario_for(scenario, {v: digests[v] for v in RELEASES}, "quay.io/openshift-release-dev/ocp-release")
    certs = str(cert_dir_for(registry, tmp_path / "certs.d"))
    assert build(scenario, "--release-contents", registry.docker_reference(REPOSITORY), "--cert-dir", certs,
                 "--cache-dir", str(tmp_path / "cache")) == 0
    from_images = {v: contents(scenario.out, v) for v in RELEASES}
    trees = tmp_path / "trees-site"
    assert main(["build", "--graph-data", str(scenario.data), "--releases", str(scenario.releases), "--no-html",
                 "-q", "--out", str(trees), "--release-contents", str(EXAMPLE_CONTENTS)]) == 0
    for version in RELEASES:
        assert from_images[version]["digest"] == digests[version]
        assert without_digest(from_images[version]) == without_digest(contents(trees, version))
    # the change files are the same too
    change = "releases/4.15.8/amd64/changes/4.15.9.json"  # the z-stream pair (no edges in this graph)
    assert (scenario.out / change).read_bytes() == (trees / change).read_bytes()


@pytest.mark.heavy
def test_a_layer_is_read_once_ever(scenario, tmp_path):
    """A rebuild reads no blob (records are kept by image digest); a new release on the same base
    reads only its own layers (the base's state is kept by the chain of its digests)."""
    layout = tmp_path / "layout"
    digests = write_layout(layout, {v: (release_layers(EXAMPLE_CONTENTS / v / "amd64"), "amd64")
                                    for v in RELEASES[:2]})
    scenario_for(scenario, digests, "quay.io/x/y")
    options = ["--release-contents", str(layout), "--cache-dir", str(tmp_path / "cache")]
    assert build(scenario, *options) == 0
    first = {v: contents(scenario.out, v) for v in RELEASES[:2]}
    assert len(list((tmp_path / "cache" / "release-layers").rglob("*.json"))) == 1  # the shared base
    blobs = layout / "blobs" / "sha256"
    for blob in blobs.iterdir():  # every blob gone: only the cache can answer now
        blob.unlink()
    assert build(scenario, "--force", *options) == 0
    assert {v: contents(scenario.out, v) for v in RELEASES[:2]} == first
    # a new release on the same base, whose base layer is not in the layout any more
    base, *own = release_layers(EXAMPLE_CONTENTS / "4.16.4" / "amd64")
    added = write_layout(layout, {"4.16.4": ([base, *own], "amd64")})
    (blobs / orjson.loads((blobs / added["4.16.4"].removeprefix("sha256:")).read_bytes())["layers"][0][
        "digest"].removeprefix("sha256:")).unlink()
    scenario.release("4.16.4", payload=f"quay.io/x/y@{added['4.16.4']}")
    assert build(scenario, *options) == 0
    assert contents(scenario.out, "4.16.4")["components"]["kubernetes"]["version"] == "1.29.6"


@needs_registry
def test_whiteouts_remove_what_lower_layers_put_there(scenario, tmp_path, pushed):
    registry, digests = pushed
    scenario_for(scenario, {"4.16.4": digests["whiteout"]}, "quay.io/x/y")
    certs = str(cert_dir_for(registry, tmp_path / "certs.d"))
    assert build(scenario, "--release-contents", registry.docker_reference(REPOSITORY), "--cert-dir", certs) == 0
    record = contents(scenario.out, "4.16.4")
    assert "olm" not in record["clusterOperators"]
    assert record["adminGates"] == {}
    assert all(r["file"] != "0000_50_olm_00-clusteroperator.yaml" for r in record["resources"])


@pytest.mark.heavy
def test_an_oci_layout_reads_as_the_registry(scenario, tmp_path):
    layout = tmp_path / "layout"
    digests = write_layout(layout, {v: (release_layers(EXAMPLE_CONTENTS / v / "amd64"), "amd64") for v in RELEASES})
    scenario_for(scenario, digests, "quay.io/x/y")
    assert build(scenario, "--release-contents", str(layout)) == 0
    trees = tmp_path / "trees-site"
    assert main(["build", "--graph-data", str(scenario.data), "--releases", str(scenario.releases), "--no-html",
                 "-q", "--out", str(trees), "--release-contents", str(EXAMPLE_CONTENTS)]) == 0
    for version in RELEASES:
        assert contents(scenario.out, version)["digest"] == digests[version]
        assert without_digest(contents(scenario.out, version)) == without_digest(contents(trees, version))


def test_a_tampered_layout_blob_fails_the_build_naming_it(scenario, tmp_path, capsys):
    layout = tmp_path / "layout"
    digests = write_layout(layout, {"4.15.8": (release_layers(EXAMPLE_CONTENTS / "4.15.8" / "amd64"), "amd64")})
    scenario_for(scenario, digests, "quay.io/x/y")
    manifest = orjson.loads((layout / "blobs/sha256" / digests["4.15.8"].removeprefix("sha256:")).read_bytes())
    top = layout / "blobs/sha256" / manifest["layers"][-1]["digest"].removeprefix("sha256:")
    data = bytearray(top.read_bytes())
    data[len(data) // 2] ^= 1
    top.write_bytes(bytes(data))
    # a cache of its own: the same image read untampered by another test is kept by its digest
    assert build(scenario, "--release-contents", str(layout), "--cache-dir", str(tmp_path / "cache")) == 1
    err = capsys.readouterr().err
    assert manifest["layers"][-1]["digest"] in err and "Traceback" not in err
    assert not scenario.out.exists()  # nothing published


@pytest.mark.heavy
def test_a_hostile_layer_costs_its_release_only(scenario, tmp_path):
    layout = tmp_path / "layout"
    # a name that climbs is cleaned as containerd cleans it (to etc/evil.yaml: outside the
    # directories read, and never written anywhere); a FIFO where the manifests are is refused
    hostile = tar_with([("release-manifests/../../etc/evil.yaml", b"kind: x\n", "file"),
                        ("release-manifests/0000_99_pipe.yaml", None, "fifo")])
    images = {v: (release_layers(EXAMPLE_CONTENTS / v / "amd64"), "amd64") for v in ("4.15.8", "4.15.9")}
    images["4.15.9"] = (images["4.15.9"][0] + [hostile], "amd64")
    digests = write_layout(layout, images)
    scenario_for(scenario, digests, "quay.io/x/y")
    assert build(scenario, "--release-contents", str(layout), "--cache-dir", str(tmp_path / "cache")) == 0
    assert "error" not in contents(scenario.out, "4.15.8")
    refused = contents(scenario.out, "4.15.9")
    assert list(refused) == ["version", "arch", "error"] and digests["4.15.9"] in refused["error"]
    assert not (tmp_path / "etc").exists() and not (scenario.out.parent / "etc").exists()


@needs_registry
@pytest.mark.real_data
@pytest.mark.skipif(not (SHARED / "data" / "release-contents").is_dir(), reason="../shared/data is not beside")
def test_a_release_image_with_real_image_references(scenario, tmp_path, pushed):
    """The real 4.10 image-references (146 tags) in a pushed release image: oc's component versions."""
    registry, _ = pushed
    references = (SHARED / "data/release-contents/4.10-image-references.json").read_bytes()
    version = orjson.loads(references)["metadata"]["name"]
    tree = tmp_path / "tree"
    (tree / "release-manifests").mkdir(parents=True)
    (tree / "manifests").mkdir()
    (tree / "release-manifests" / "image-references").write_bytes(references)
    (tree / "release-manifests" / "release-metadata").write_bytes(orjson.dumps(
        {"kind": "cincinnati-metadata-v0", "version": version, "previous": [], "metadata": {}}))
    pusher = Pusher(registry.url, REPOSITORY, str(registry.certs.ca))
    try:
        digest = push_release(pusher, "real-4.10", tree)
    finally:
        pusher.close()
    scenario_for(scenario, {version: digest}, "quay.io/x/y")
    certs = str(cert_dir_for(registry, tmp_path / "certs.d"))
    assert build(scenario, "--release-contents", registry.docker_reference(REPOSITORY), "--cert-dir", certs) == 0
    record = contents(scenario.out, version)
    assert len(record["images"]) == 146
    assert record["components"]["kubernetes"]["version"] == "1.22.1"
    assert record["components"]["machine-os"] == {"version": "410.84.202111112202-0",
                                                  "displayName": "Red Hat Enterprise Linux CoreOS"}
    assert record["images"]["machine-os-content"]["commit"] is None
