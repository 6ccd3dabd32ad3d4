"""build --catalog NAME=docker://HOST/REPO:TAG: an index image pushed to the real docker-registry,
read as opm reads it (the configs label, layers from the base up, whiteouts), kept by digest."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from site_gen.cache_dir import pulled_catalogs_dir
from site_gen.cli import main
from site_gen.olm.catalog_list import catalog_list_file
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import catalog_files
from site_gen.olm.sources import CatalogSource

from conftest import TESTS
from registry_images import Pusher, base_layer, digest_of, gzip_bytes, tar_bytes
from registry_proxy import FaultProxy, flip_bit
from registry_server import REGISTRY, cert_dir_for

pytest_plugins = ["registry_fixtures"]
pytestmark = [pytest.mark.registry, pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")]

FIXTURES = TESTS / "olm_fixtures"
REPOSITORY = "redhat/redhat-operator-index"
NOT_AN_ARCHIVE = b"neither gzip nor tar: a layer opm fails on\n"
CONFIGS = {"operators.operatorframework.io.index.configs.v1": "/configs"}


@pytest.fixture(scope="module")
def index_images(anonymous_registry):
    """v4.20: a list of two platform images whose second layer removes a package the first
    added (a whiteout); plain: one image with no configs label; sqlite: a sqlite index."""
    gates = (FIXTURES / "gates" / "catalog.yaml").read_bytes()
    stale = (FIXTURES / "deprecations" / "catalog.yaml").read_bytes()
    first = gzip_bytes(tar_bytes({"configs/gates/catalog.yaml": gates, "configs/stale/catalog.yaml": stale,
                                  "etc/not-the-catalog.yaml": b"schema: [broken\n"}))
    second = gzip_bytes(tar_bytes({"configs/stale/.wh.catalog.yaml": b"", "configs/.wh.stale": b""}))
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        children = [(pusher.image(None, arch, [base_layer(), first, second], labels=CONFIGS), arch)
                    for arch in ("arm64", "amd64")]
        pusher.image_list("v4.20", children)
        pusher.image("odd-v4.20", "amd64", [base_layer(), NOT_AN_ARCHIVE, first], labels=CONFIGS)
        pusher.image("plain-v4.20", "amd64", [base_layer()], labels={"some.label": "x"})
        pusher.image("sqlite-v4.20", "amd64", [base_layer()],
                     labels={"operators.operatorframework.io.index.database.v1": "/database/index.db"})
    finally:
        pusher.close()
    return anonymous_registry


def build(tmp_path: Path, registry, tag: str, out: str = "site", cache: str = "cache", *options: str) -> int:
    return main(["build", "--graph-data", str(FIXTURES.parent.parent / "graph-data"), "--no-html", "-q",
                 "--out", str(tmp_path / out), "--cache-dir", str(tmp_path / cache), *options,
                 "--cert-dir", str(cert_dir_for(registry, tmp_path / "certs.d")),
                 "--catalog", f"ops={registry.docker_reference(REPOSITORY)}:{tag}"])


def published(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "olm").rglob("*"))
            if p.is_file() and not p.name.endswith(".gz")}


def test_an_index_image_publishes_what_its_configs_hold(tmp_path, index_images):
    assert build(tmp_path, index_images, "v4.20") == 0
    # the whiteout removed the stale package; the file outside /configs was never read
    expected = catalog_files(load_catalog(FIXTURES / "gates", "ops"), extra={"openshiftVersion": "4.20"})
    expected.update(catalog_list_file([CatalogSource("ops", Path(), "4.20")]))
    assert published(tmp_path / "site") == expected
    index = orjson.loads(expected["olm/ops/index.json"])
    assert index["openshiftVersion"] == "4.20" and index["valid"] is True


def test_a_second_build_reads_no_layer_while_the_tag_names_the_same_image(tmp_path, index_images):
    assert build(tmp_path, index_images, "v4.20", "first") == 0
    [pulled] = list(pulled_catalogs_dir(tmp_path / "cache").glob("*/*/configs"))
    inode = pulled.stat().st_ino
    assert build(tmp_path, index_images, "v4.20", "second") == 0
    assert pulled.stat().st_ino == inode  # the same folder, not pulled again
    assert published(tmp_path / "first") == published(tmp_path / "second")


@pytest.mark.parametrize("tag, message", [
    ("plain-v4.20", "not a catalog index image (no operators.operatorframework.io.index.configs.v1 label)"),
    ("sqlite-v4.20", "a sqlite-based index image"),
    ("missing-v4.20", "manifest request answered HTTP 404"),
])
def test_an_image_that_is_no_catalog_stops_the_build(tmp_path, capsys, index_images, tag, message):
    assert build(tmp_path, index_images, tag) == 1
    error = capsys.readouterr().err
    assert f"{tag}: " in error and message in error and "Traceback" not in error
    assert not (tmp_path / "site").exists()


def test_the_pulled_catalog_equals_its_gzip_copies(tmp_path, index_images):
    assert build(tmp_path, index_images, "v4.20") == 0
    for path in (tmp_path / "site" / "olm").rglob("*.gz"):
        assert gzip.decompress(path.read_bytes()) == path.with_suffix("").read_bytes()


def test_a_tampered_catalog_layer_never_publishes(tmp_path, capsys, index_images):
    """The layer that holds the catalog, one bit flipped on the way (a proxy in front of the
    registry): the build stops naming the image and the layer, and nothing is kept."""
    proxy = FaultProxy(index_images)
    try:
        assert build(tmp_path, proxy, "v4.20", "site", "cache", "--timeout", "2") == 0
        capsys.readouterr()
        flipped = proxy.fault(r"/blobs/sha256:[0-9a-f]{64}$", respond=flip_bit(-1))
        assert build(tmp_path, proxy, "v4.20", "other", "cold", "--timeout", "2") == 1
    finally:
        proxy.stop()
    error = capsys.readouterr().err
    assert flipped.hits and "v4.20: " in error and "does not match its digest" in error, error
    assert "Traceback" not in error and not (tmp_path / "other").exists()
    assert not list(pulled_catalogs_dir(tmp_path / "cold").glob("*/*/configs"))  # nothing kept from it


def test_a_tampered_layer_that_is_no_archive_is_named(tmp_path, capsys, index_images):
    """A layer that is neither gzip nor tar is still read to its end and checked against its
    digest; when it does not match, the message names that layer."""
    proxy = FaultProxy(index_images)
    digest = digest_of(NOT_AN_ARCHIVE)
    try:
        flipped = proxy.fault(rf"/blobs/{digest}$", respond=flip_bit(-1))
        assert build(tmp_path, proxy, "odd-v4.20", "site", "cache", "--timeout", "2") == 1
    finally:
        proxy.stop()
    error = capsys.readouterr().err
    assert flipped.hits and f"odd-v4.20: layer {digest} does not match its digest" in error, error
    assert "Traceback" not in error and not (tmp_path / "site").exists()


def test_check_reads_an_index_image_as_it_reads_the_folder(tmp_path, capsys, index_images):
    image = f"{index_images.docker_reference(REPOSITORY)}:v4.20"
    certs = str(cert_dir_for(index_images, tmp_path / "certs.d"))
    from_image = main(["check", "--catalog", image, "--cert-dir", certs, "--cache-dir", str(tmp_path / "cache")])
    image_report = capsys.readouterr()
    from_folder = main(["check", "--catalog", str(FIXTURES / "gates")])
    folder_report = capsys.readouterr()
    assert (from_image, image_report.out, image_report.err) == (from_folder, folder_report.out, folder_report.err)
    assert from_image == 0 and image_report.err == "no findings\n"


@pytest.mark.slow
@pytest.mark.parametrize("cache_given", [True, False])
def test_the_documented_mirror_build_with_index_images_and_pages(tmp_path, monkeypatch, index_images, cache_given):
    """The catalog build from a mirror that docs/operator-catalogs.md shows: releases from the
    registry, two index images, pages on; with --cache-dir and with the default cache. The
    pulled catalogs live in the cache, which the check that keeps inputs out of the cache must
    not take for the user's inputs."""
    from registry_images import images_from_documents, push_release_images
    example = FIXTURES.parent.parent / "graph-data"
    pusher = Pusher(index_images.url, "readme/release-images", str(index_images.certs.ca))
    try:
        push_release_images(pusher, [image for image in images_from_documents(example / "releases")
                                     if image.architecture == "amd64"])
    finally:
        pusher.close()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    image = index_images.docker_reference(REPOSITORY)
    cache = ["--cache-dir", str(tmp_path / "cache")] if cache_given else []
    assert main(["build", "--graph-data", str(example), "-q", *cache,
                 "--releases", index_images.docker_reference("readme/release-images"),
                 "--cert-dir", str(cert_dir_for(index_images, tmp_path / "certs.d")),
                 "--catalog", f"redhat-v4.19={image}:v4.20", "--catalog", f"redhat-v4.20={image}:v4.20",
                 "--out", str(tmp_path / "public")]) == 0
    site = tmp_path / "public"
    assert (site / "olm" / "redhat-v4.20" / "index.json").is_file() and (site / "olm" / "index.html").is_file()
    assert (site / "olm" / "redhat-v4.19" / "gated" / "stable.html").is_file()
    pulled = (tmp_path / "cache") if cache_given else (tmp_path / "xdg" / "site-gen")
    assert list(pulled_catalogs_dir(pulled).glob("*/*/configs"))
