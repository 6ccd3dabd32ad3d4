"""The registry source's pure parts, without a registry: references, credential lookup,
auth challenges, the exact metadata path, streamed layer reading."""

from __future__ import annotations

import base64
import json
import tarfile
import zlib

import pytest

from site_gen.cli import main
from site_gen.model.errors import InputError, Warnings
from site_gen.registry.client import parse_challenge
from site_gen.registry.credentials import find_credentials, lookup_keys
from site_gen.registry.layer_apply import TreeLimits
from site_gen.registry.layers import (
    CorruptLayer,
    LayerLimits,
    NotAnArchive,
    find_release_metadata,
    is_metadata_path,
)
from site_gen.registry.metadata import parse_release_metadata
from site_gen.registry.reference import parse_reference

from registry_images import digest_of, entries_layer, gzip_bytes, release_metadata, tar_bytes


def test_references():
    ref = parse_reference("docker://mirror.example.com:5000/openshift/release-images")
    assert (ref.host_port, ref.repository) == ("mirror.example.com:5000", "openshift/release-images")
    assert ref.payload_prefix == "mirror.example.com:5000/openshift/release-images"
    for bad, why in [("docker://host", "name the repository"),
                     ("docker://host/repo:4.16.3", "without a tag or digest"),
                     ("docker://host/Repo", "not a repository name"),
                     ("docker://ho st/repo", "not a registry host")]:
        with pytest.raises(InputError, match=why):
            parse_reference(bad)


def test_build_refuses_a_bad_reference_before_doing_anything(capsys):
    assert pytest.raises(SystemExit, main, ["build", "--releases", "docker://host/repo@sha256:00"]).value.code == 2
    assert "argument --releases: docker://host/repo@sha256:00: give the repository without a tag" in \
        capsys.readouterr().err


def test_credential_keys_and_files(tmp_path):
    ref = parse_reference("docker://mirror:5000/a/b/c")
    assert lookup_keys(ref) == ["mirror:5000/a/b/c", "mirror:5000/a/b", "mirror:5000/a", "mirror:5000"]
    encoded = base64.b64encode(b"user:pa:ss").decode()
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"auths": {"mirror:5000/a/b": {"identitytoken": "x"},
                                          "https://mirror:5000": {"auth": encoded}}}))
    warnings = Warnings()
    found = find_credentials(ref, auth, warnings)
    assert (found.username, found.password) == ("user", "pa:ss")  # split at the first colon
    assert "pa:ss" not in repr(found)
    assert [w.message for w in warnings] == ["auths['mirror:5000/a/b'] has no 'auth' field (a credential "
                                             "helper's entry?); not used"]
    auth.write_text("{")
    with pytest.raises(InputError, match="not valid JSON"):
        find_credentials(ref, auth, Warnings())


def test_challenges():
    assert parse_challenge('Bearer realm="https://auth/token",service="registry",scope="repository:a/b:pull"') == \
        ("bearer", {"realm": "https://auth/token", "service": "registry", "scope": "repository:a/b:pull"})
    assert parse_challenge('Basic realm="x"') == ("basic", {"realm": "x"})


def test_the_metadata_path_is_exact():
    assert is_metadata_path("release-manifests/release-metadata")
    assert is_metadata_path("release-manifests//release-metadata")
    for other in ("./release-manifests/release-metadata", "/release-manifests/release-metadata",
                  "x/release-manifests/release-metadata", "release-manifests/release-metadata.json"):
        assert not is_metadata_path(other)


def _chunks(data: bytes, size: int = 1000):
    return iter([data[i:i + size] for i in range(0, len(data), size)])


def test_layers_are_streamed_and_checked():
    document = release_metadata("4.16.3", previous=["4.16.2"])
    plain = tar_bytes({"a": b"x" * 5000, "release-manifests/release-metadata": document})
    for layer in (gzip_bytes(plain), plain):
        assert find_release_metadata(_chunks(layer), digest_of(layer), LayerLimits()) == document
    empty = gzip_bytes(tar_bytes({"a": b"x"}))
    assert find_release_metadata(_chunks(empty), digest_of(empty), LayerLimits()) is None
    with pytest.raises(CorruptLayer, match="does not match its digest"):
        find_release_metadata(_chunks(empty), digest_of(b"other"), LayerLimits())
    with pytest.raises(NotAnArchive):
        find_release_metadata(_chunks(b'{"json": true}'), digest_of(b'{"json": true}'), LayerLimits())
    with pytest.raises(CorruptLayer, match="does not match its digest"):  # a layer spoilt into a non-archive
        find_release_metadata(_chunks(b'{"json": true}'), digest_of(b""), LayerLimits())
    # the entry is found, but the layer is not the one its digest names: never used (issue 18)
    layer = gzip_bytes(plain)
    swapped = gzip_bytes(tar_bytes({"release-manifests/release-metadata": document.replace(b"4.16.2", b"4.16.1")}))
    for spoilt in (layer[:-1] + bytes([layer[-1] ^ 1]), swapped):
        with pytest.raises(CorruptLayer, match="does not match its digest"):
            find_release_metadata(_chunks(spoilt), digest_of(layer), LayerLimits())
    with pytest.raises(CorruptLayer, match="cannot be decoded"):
        whole = gzip_bytes(plain)
        broken = whole[:12] + bytes(b ^ 0x5A for b in whole[12:40]) + whole[40:]
        find_release_metadata(_chunks(broken), digest_of(broken), LayerLimits())
    truncated = whole[:len(whole) // 2]  # ends early: caught by the digest of the whole layer
    with pytest.raises(CorruptLayer, match="does not match its digest"):
        find_release_metadata(_chunks(truncated), digest_of(whole), LayerLimits())


@pytest.mark.heavy
def test_the_metadata_reader_holds_the_image_readers_limits():
    """The scrape reads layers with layer_apply's gunzip and tar reader: a gzip bomb stops at the
    expansion ratio, entries and extension headers are capped per layer, as for index images."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    header = tarfile.TarInfo("zeros")
    header.size = 1 << 30
    bomb = compressor.compress(header.tobuf(format=tarfile.USTAR_FORMAT)) + b"".join(
        compressor.compress(bytes(1 << 20)) for _ in range(256)) + compressor.flush()
    with pytest.raises(CorruptLayer, match=r"^expands past [0-9,]+ bytes, 100 per compressed byte plus 67,108,864"):
        find_release_metadata(_chunks(bomb, 1 << 16), digest_of(bomb), LayerLimits())
    document = release_metadata("4.16.3")
    files = {**{f"m/{n}": b"" for n in range(100)}, "release-manifests/release-metadata": document}
    many = gzip_bytes(tar_bytes(files))
    with pytest.raises(CorruptLayer, match="^has more than 100 entries, the limit for a layer$"):
        find_release_metadata(_chunks(many), digest_of(many), LayerLimits(tree=TreeLimits(entries=100)))
    assert find_release_metadata(_chunks(many), digest_of(many), LayerLimits(tree=TreeLimits(entries=101))) == document
    long_pax = gzip_bytes(tar_bytes({"a" * 2_000_000: b"", "release-manifests/release-metadata": document}))
    with pytest.raises(CorruptLayer, match="tar extension header of"):
        find_release_metadata(_chunks(long_pax), digest_of(long_pax), LayerLimits())


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "dir"])
def test_a_link_or_directory_at_the_metadata_path_is_no_entry(kind):
    """As the reference: only a regular file there is the entry; the layer is no candidate."""
    layer = entries_layer(("etc/metadata", release_metadata("4.16.3")),
                          ("release-manifests/release-metadata", kind, "/etc/metadata"))
    assert find_release_metadata(_chunks(layer), digest_of(layer), LayerLimits()) is None


def test_release_metadata_rules():
    meta = parse_release_metadata(release_metadata("4.16.3+foo", previous=["4.16.2+bar"],
                                                   metadata={"io.openshift.upgrades.graph.release.arch": "x",
                                                             "url": "u"}))
    assert (meta.version, meta.previous, meta.metadata) == ("4.16.3", ["4.16.2"], {"url": "u"})
    for bad, why in [(b'{"kind": "other", "version": "4.1.0"}', "'kind'"),
                     (b'{"kind": "cincinnati-metadata-v0", "version": "4.1"}', "not a SemVer"),
                     (b'{"kind": "cincinnati-metadata-v0", "version": "4.1.0", "previous": null}', "list"),
                     (b'{"kind": "cincinnati-metadata-v0", "version": "4.1.0", "metadata": {"a": 1}}', "strings")]:
        with pytest.raises(ValueError, match=why):
            parse_release_metadata(bad)
