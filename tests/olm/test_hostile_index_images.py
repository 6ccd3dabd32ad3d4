"""Issue 26: hostile index images on the real docker-registry. Each family ends as opm ends it
(containerd's archive.Apply: whiteouts, opaque directories, hard and symbolic links, names), or
refused in one line naming the image and the layer, under a limit of TreeLimits."""

from __future__ import annotations

import gzip
import tarfile
import zlib
from pathlib import Path

import orjson
import pytest

from site_gen.cache_dir import pulled_catalogs_dir
from site_gen.cli import main
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import catalog_files
from site_gen.registry.layer_apply import TreeLimits, zstd

from conftest import TESTS
from hostile import assert_refused, run_with_peak
from registry_images import OCI_LAYER, Pusher, base_layer, digest_of
from registry_images import entries_layer as layer
from registry_server import REGISTRY, cert_dir_for

pytest_plugins = ["registry_fixtures"]
pytestmark = [pytest.mark.registry, pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")]

FIXTURES = TESTS / "olm_fixtures"
REPOSITORY = "hostile/operator-index"
CONFIGS = {"operators.operatorframework.io.index.configs.v1": "/configs"}
GATES = (FIXTURES / "gates" / "catalog.yaml").read_bytes()
STALE = (FIXTURES / "deprecations" / "catalog.yaml").read_bytes()
LIMITS = TreeLimits()


FIRST = layer(("configs/gates/catalog.yaml", GATES), ("configs/stale/catalog.yaml", STALE))

# tag -> the layers above the base
IMAGES: dict[str, list[bytes]] = {
    "wh-empty": [FIRST, layer(("configs/.wh.", b""))],
    "wh-dots": [FIRST, layer(("configs/.wh...", b""))],
    "wh-dot": [FIRST, layer(("configs/stale/.wh..", b""))],
    # containerd: an opaque directory keeps what its own layer put there before it
    "opaque-own": [FIRST, layer(("configs/", "dir"), ("configs/gates/", "dir"), ("configs/gates/catalog.yaml", GATES),
                                ("configs/.wh..wh..opq", b""))],
    "opaque-root": [FIRST, layer((".wh..wh..opq", b""), ("configs/gates/catalog.yaml", GATES))],
    # ... but not what sits in a directory it only made as a parent: the root's opaque removes it
    "opaque-root-after": [FIRST, layer(("configs/gates/catalog.yaml", GATES), (".wh..wh..opq", b""))],
    "wh-configs": [FIRST, layer((".wh.configs", b"")), layer(("configs/gates/catalog.yaml", GATES))],
    "wh-configs-only": [FIRST, layer((".wh.configs", b""))],
    "hardlink": [layer(("configs/gates/catalog.yaml", GATES),
                       ("configs/again/catalog.yaml", "hardlink", "configs/gates/catalog.yaml"))],
    "hardlink-outside": [layer(("etc/catalog.yaml", GATES),
                               ("configs/gates/catalog.yaml", "hardlink", "etc/catalog.yaml"))],
    "file-then-dir": [layer(("configs/gates", b"a file first"), ("configs/gates/", "dir"),
                            ("configs/gates/catalog.yaml", GATES))],
    "dir-then-file": [FIRST, layer(("configs/stale", b"schema: olm.package\nname: flat\ndefaultChannel: s\n"))],
    # a link from outside into the catalog redirects what is written through it, as containerd does
    "symlink-in": [layer(("data", "symlink", "/configs"), ("data/gates/catalog.yaml", GATES))],
    "symlink-inside": [layer(("configs/gates/catalog.yaml", GATES),
                             ("configs/again.yaml", "symlink", "gates/catalog.yaml"))],
    "symlink-out": [layer(("etc/catalog.yaml", GATES), ("configs/gates.yaml", "symlink", "../etc/catalog.yaml"))],
    "symlink-loop": [layer(("a", "symlink", "b"), ("b", "symlink", "a"), ("a/catalog.yaml", GATES))],
    "file-as-parent": [layer(("configs/gates", b"not a directory")), layer(("configs/gates/catalog.yaml", GATES))],
    "too-deep": [layer(("configs/" + "d/" * LIMITS.depth + "catalog.yaml", GATES))],
    "path-too-long": [layer(("configs/" + "d/" * 10_000 + "catalog.yaml", GATES))],
    "name-too-long": [layer(("configs/" + "n" * 300 + ".yaml", GATES))],
}
LABELS = {"escape": "../../../../etc", "nowhere": "/no/such/configs"}

# tag -> (layer above the base, its media type): opm never looks at the type, only at the bytes
# (containerd's DecompressStream: gzip, zstd, else the bytes as they are, read by Go's archive/tar)
PLAIN_FIRST = gzip.decompress(FIRST)
NOT_TAR = b'{"schemaVersion": 2, "note": "a JSON document, neither gzip, zstd nor tar"}\n'
ENCODED: dict[str, tuple[bytes, str]] = {
    "layer-zstd": (zstd.compress(PLAIN_FIRST), "application/vnd.oci.image.layer.v1.tar+zstd"),
    "layer-tar": (PLAIN_FIRST, "application/vnd.oci.image.layer.v1.tar"),
    "layer-helm-type": (FIRST, "application/vnd.cncf.helm.chart.content.v1.tar+gzip"),
    "layer-empty": (b"", "application/vnd.oci.image.layer.v1.tar"),
    "layer-json": (NOT_TAR, "application/vnd.oci.image.config.v1+json"),
    "layer-gzip-json": (gzip.compress(NOT_TAR, mtime=0), "application/vnd.oci.image.layer.v1.tar+gzip"),
    "layer-zstd-json": (zstd.compress(NOT_TAR), "application/vnd.oci.image.layer.v1.tar+zstd"),
}


def bomb(expanded: int, members: int) -> bytes:
    """A layer with one file of ``expanded * members`` zero bytes outside configs/, as gzip
    members (Go and this reader read them one after another): a decompression bomb."""
    info = tarfile.TarInfo("var/zeros")
    info.size = expanded * members
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    first = compressor.compress(info.tobuf(format=tarfile.PAX_FORMAT)) + b"".join(
        compressor.compress(zeros) for _ in range(expanded >> 20)) + compressor.flush()
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    rest = b"".join(compressor.compress(zeros) for _ in range(expanded >> 20)) + compressor.flush()
    return first + rest * (members - 1)


def many_entries(count: int) -> bytes:
    """A layer of ``count`` empty files under configs/ (ustar headers written directly: tarfile
    takes minutes for a million)."""
    template = tarfile.TarInfo("configs/x")
    template.mtime, template.mode = 0, 0o644
    head = bytearray(template.tobuf(format=tarfile.USTAR_FORMAT))
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    compressed, batch = [], []
    for number in range(count):
        head[0:100] = f"configs/{number:07d}".encode().ljust(100, b"\0")
        head[148:156] = b"        "
        head[148:156] = b"%06o\0 " % sum(head)
        batch.append(bytes(head))
        if len(batch) == 8192:
            compressed.append(compressor.compress(b"".join(batch)))
            batch = []
    compressed.append(compressor.compress(b"".join(batch) + bytes(1024)))
    return b"".join(compressed) + compressor.flush()


@pytest.fixture(scope="module")
def hostile_images(anonymous_registry):
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        for tag, layers in IMAGES.items():
            pusher.image(tag, "amd64", [base_layer(), *layers], labels=CONFIGS)
        for tag, label in LABELS.items():
            pusher.image(tag, "amd64", [base_layer(), FIRST],
                         labels={"operators.operatorframework.io.index.configs.v1": label})
        pusher.image("layers-10000", "amd64", [base_layer()] * 10_000, labels=CONFIGS)
        for tag, size in (("size-larger", len(FIRST) + 1), ("size-smaller", len(FIRST) - 1), ("size-zero", 0)):
            pusher.image(tag, "amd64", [base_layer(), FIRST], labels=CONFIGS,
                         layer_sizes=[len(base_layer()), size])
        for tag, (blob, media_type) in ENCODED.items():
            below = [FIRST] if tag == "layer-empty" else []
            pusher.image(tag, "amd64", [base_layer(), *below, blob], labels=CONFIGS, oci=True,
                         layer_types=[OCI_LAYER] * (1 + len(below)) + [media_type],
                         diff_ids=[digest_of(base_layer()), *map(digest_of, below), digest_of(blob)])
    finally:
        pusher.close()
    return anonymous_registry


def build_args(tmp_path: Path, registry, tag: str) -> list[str]:
    return ["build", "--catalog", f"ops@4.20={registry.docker_reference(REPOSITORY)}:{tag}",
            "--out", str(tmp_path / "site"), "--no-html", "-q", "--cache-dir", str(tmp_path / "cache"),
            "--cert-dir", str(cert_dir_for(registry, tmp_path / "certs.d"))]


def published(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "olm" / "ops").rglob("*"))
            if p.is_file() and not p.name.endswith(".gz")}


def expected(tmp_path: Path, files: dict[str, bytes]) -> dict[str, bytes]:
    """What a catalog folder holding ``files`` publishes: the image must read as that folder."""
    folder = tmp_path / "expected"
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return {name: data for name, data in catalog_files(load_catalog(folder, "ops"),
                                                       extra={"openshiftVersion": "4.20"}).items()}


def refused(tmp_path, capsys, registry, tag: str, *fragments: str) -> str:
    status = main(build_args(tmp_path, registry, tag))
    line = assert_refused(status, capsys.readouterr().err, f"{tag}: ", *fragments)
    assert not (tmp_path / "site").exists()
    assert not list(pulled_catalogs_dir(tmp_path / "cache").glob("*/*/configs"))  # nothing kept
    return line


@pytest.mark.parametrize("tag, gone", [("wh-empty", ".wh."), ("wh-dots", ".wh..."), ("wh-dot", ".wh..")])
def test_invalid_whiteouts_are_refused_as_containerd_refuses_them(tmp_path, capsys, hostile_images, tag, gone):
    top = digest_of(IMAGES[tag][-1])
    refused(tmp_path, capsys, hostile_images, tag, f"layer {top} holds an invalid whiteout", gone)


@pytest.mark.parametrize("tag, files", [
    ("opaque-own", {"gates/catalog.yaml": GATES}),
    ("opaque-root", {"gates/catalog.yaml": GATES}),
    ("wh-configs", {"gates/catalog.yaml": GATES}),
    ("hardlink", {"gates/catalog.yaml": GATES, "again/catalog.yaml": GATES}),  # opm: a duplicate package
    ("file-then-dir", {"gates/catalog.yaml": GATES}),
    ("dir-then-file", {"gates/catalog.yaml": GATES,
                       "stale": b"schema: olm.package\nname: flat\ndefaultChannel: s\n"}),
    ("symlink-in", {"gates/catalog.yaml": GATES}),
    ("symlink-inside", {"gates/catalog.yaml": GATES, "again.yaml": GATES}),
])
def test_layers_read_as_containerd_applies_them(tmp_path, hostile_images, tag, files):
    assert main(build_args(tmp_path, hostile_images, tag)) == 0
    assert published(tmp_path / "site") == {name: data for name, data in expected(tmp_path, files).items()
                                            if name.startswith("olm/ops/")}
    if tag == "hardlink":
        index = orjson.loads((tmp_path / "site" / "olm" / "ops" / "index.json").read_bytes())
        assert index["valid"] is False and "duplicate package" in index["error"], index["error"]


@pytest.mark.parametrize("tag, fragments", [
    ("opaque-root-after", ["label names /configs, which no layer makes a directory"]),
    ("wh-configs-only", ["label names /configs, which no layer makes a directory"]),
    ("nowhere", ["label names /no/such/configs, which no layer makes a directory"]),
    ("escape", ["label '../../../../etc' leads out of the image"]),
    ("hardlink-outside", ["holds a hard link 'configs/gates/catalog.yaml' to 'etc/catalog.yaml', whose bytes are "
                          "not kept"]),
    ("symlink-loop", ["holds 'a/catalog.yaml': too many levels of symbolic links"]),
    ("file-as-parent", ["holds 'configs/gates/catalog.yaml' below 'configs/gates', which is not a directory"]),
    ("too-deep", [f"deeper than {LIMITS.depth} directories"]),
    ("path-too-long", [f"holds a path of 20,020 bytes, more than {LIMITS.path_bytes:,}"]),
    ("name-too-long", [f"holds a name of 305 bytes, more than {LIMITS.name_bytes}"]),
])
def test_what_opm_cannot_read_is_refused_naming_the_image(tmp_path, capsys, hostile_images, tag, fragments):
    line = refused(tmp_path, capsys, hostile_images, tag, *fragments)
    layers = IMAGES.get(tag)
    if layers and "layer sha256:" in line:
        assert f"layer {digest_of(layers[-1])} " in line, line


@pytest.mark.parametrize("tag", ["layer-zstd", "layer-tar", "layer-helm-type", "layer-empty"])
def test_layers_are_decoded_by_their_bytes_as_opm_decodes_them(tmp_path, hostile_images, tag):
    """zstd and uncompressed tar are read as the gzip'd layer; a media type that is no layer
    type changes nothing; an empty blob is an empty layer."""
    assert main(build_args(tmp_path, hostile_images, tag)) == 0
    files = {"gates/catalog.yaml": GATES, "stale/catalog.yaml": STALE}
    assert published(tmp_path / "site") == {name: data for name, data in expected(tmp_path, files).items()
                                            if name.startswith("olm/ops/")}


@pytest.mark.parametrize("tag, what", [("layer-json", "is neither gzip, zstd nor tar"),
                                       ("layer-gzip-json", "is gzip-compressed, but not a tar archive"),
                                       ("layer-zstd-json", "is zstd-compressed, but not a tar archive")])
def test_a_layer_that_is_no_tar_is_refused_as_opm_fails_on_it(tmp_path, capsys, hostile_images, tag, what):
    refused(tmp_path, capsys, hostile_images, tag, f"layer {digest_of(ENCODED[tag][0])} {what}: opm cannot unpack it")


@pytest.mark.parametrize("tag, size", [("size-larger", len(FIRST) + 1), ("size-smaller", len(FIRST) - 1)])
def test_a_layer_whose_size_is_not_the_manifests_is_refused(tmp_path, capsys, hostile_images, tag, size):
    """containerd's content store refuses a blob whose size is not its descriptor's (when that
    is not 0), before opm unpacks anything."""
    refused(tmp_path, capsys, hostile_images, tag, f"layer {digest_of(FIRST)} is {len(FIRST):,} bytes where the "
                                                   f"manifest says {size:,}")


def test_a_layer_of_size_zero_in_the_manifest_is_read_as_containerd_reads_it(tmp_path, hostile_images):
    assert main(build_args(tmp_path, hostile_images, "size-zero")) == 0
    files = {"gates/catalog.yaml": GATES, "stale/catalog.yaml": STALE}
    assert published(tmp_path / "site") == {name: data for name, data in expected(tmp_path, files).items()
                                            if name.startswith("olm/ops/")}


def test_a_symbolic_link_out_of_the_catalog_is_refused_naming_it(tmp_path, capsys, hostile_images):
    status = main(build_args(tmp_path, hostile_images, "symlink-out"))
    line = assert_refused(status, capsys.readouterr().err, "configs/gates.yaml: error: refusing to read a "
                                                           "symbolic link that leads out of the catalog directory")
    assert line.startswith(str(pulled_catalogs_dir(tmp_path / "cache")))


def test_an_image_of_10000_layers_is_refused_before_reading_one(tmp_path, capsys, hostile_images):
    refused(tmp_path, capsys, hostile_images, "layers-10000",
            f"image has 10,000 layers, more than the limit of {LIMITS.layers}")


@pytest.mark.slow
def test_a_gzip_bomb_outside_the_catalog_stops_at_the_expansion_limit(tmp_path, anonymous_registry):
    """15 GiB of zeros in 15 MB (outside configs/, which opm reads through anyway) used to take more
    than 60 s; it now stops once it expands past the ratio limit, with bounded memory."""
    blob = bomb(1 << 30, 15)
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        layers = [base_layer(), FIRST, blob]
        pusher.image("bomb", "amd64", layers, labels=CONFIGS, diff_ids=[digest_of(layer) for layer in layers])
    finally:
        pusher.close()
    status, stderr, peak = run_with_peak(*build_args(tmp_path, anonymous_registry, "bomb"))
    line = assert_refused(status, stderr, f"bomb: layer {digest_of(blob)} expands past")
    allowed = int(line.split("expands past ")[1].split(" bytes")[0].replace(",", ""))
    assert allowed <= LIMITS.expansion_floor + LIMITS.expansion * len(blob)
    assert allowed < (1 << 30)  # it stopped within the first of the fifteen GiB
    assert peak < 300, f"{peak} MiB resident"


@pytest.mark.slow
def test_a_layer_of_a_million_entries_stops_at_the_entry_limit(tmp_path, anonymous_registry):
    blob = many_entries(1_000_000)
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        layers = [base_layer(), blob]
        pusher.image("million", "amd64", layers, labels=CONFIGS, diff_ids=[digest_of(layer) for layer in layers])
    finally:
        pusher.close()
    status, stderr, peak = run_with_peak(*build_args(tmp_path, anonymous_registry, "million"))
    assert_refused(status, stderr, f"million: layer {digest_of(blob)} has more than {LIMITS.entries:,} entries")
    assert peak < 400, f"{peak} MiB resident"
