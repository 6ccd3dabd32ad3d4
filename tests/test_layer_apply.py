"""site_gen/registry/layer_apply.py into memory, as the release-contents reader will use it: two
prefixes, containerd's whiteout, opaque and link rules, and the digest checked."""

from __future__ import annotations

import hashlib

import pytest

from site_gen.registry.layer_apply import DirectoryTarget, ImageTree, LayerRefused, MemoryTarget

from registry_images import entries_layer as layer

PREFIXES = [("release-manifests",), ("manifests",)]


def digest(blob: bytes) -> str:
    return "sha256:" + hashlib.sha256(blob).hexdigest()


def applied(*layers: bytes, target=None) -> ImageTree:
    tree = ImageTree(PREFIXES, target or MemoryTarget())
    for blob in layers:
        tree.apply_layer(iter([blob[i:i + 700] for i in range(0, len(blob), 700)]), digest(blob))
    return tree


BASE = layer(("usr/bin/cluster-version-operator", b"\0" * 100), ("manifests/0000_00_cvo.yaml", b"cvo"),
             ("release-manifests/image-references", b"{}"), ("release-manifests/0000_50_a.yaml", b"a"),
             ("release-manifests/old.yaml", b"old"))
TOP = layer(("release-manifests/", "dir"), ("release-manifests/0000_50_a.yaml", b"a2"),
            ("release-manifests/.wh..wh..opq", b""), ("manifests/.wh.0000_00_cvo.yaml", b""),
            ("manifests/copy.yaml", "hardlink", "release-manifests/0000_50_a.yaml"),
            ("manifests/link.yaml", "symlink", "../release-manifests/0000_50_a.yaml"),
            ("etc/ignored", b"not kept"))


def test_two_prefixes_in_memory_as_containerd_applies_them():
    tree = applied(BASE, TOP)
    assert tree.target.files == {"release-manifests/0000_50_a.yaml": b"a2", "manifests/copy.yaml": b"a2"}
    assert tree.links_under(("manifests",)) == {"manifests/link.yaml": "../release-manifests/0000_50_a.yaml"}


def test_the_same_into_a_directory(tmp_path):
    applied(BASE, TOP, target=DirectoryTarget(tmp_path / "root"))
    files = {str(path.relative_to(tmp_path / "root")): path.read_bytes()
             for path in sorted((tmp_path / "root").rglob("*")) if path.is_file()}
    assert files == {"manifests/copy.yaml": b"a2", "manifests/link.yaml": b"a2",  # the link, followed
                     "release-manifests/0000_50_a.yaml": b"a2"}
    assert not (tmp_path / "root" / "usr").exists() and not (tmp_path / "root" / "etc").exists()


def test_a_layer_that_does_not_match_its_digest_is_refused_naming_it():
    tree = ImageTree(PREFIXES, MemoryTarget())
    wrong = digest(b"another layer")
    with pytest.raises(LayerRefused, match=f"^layer {wrong} does not match its digest$"):
        tree.apply_layer(iter([BASE]), wrong)


def test_a_blob_that_is_no_archive_is_hashed_and_skipped():
    tree = ImageTree(PREFIXES, MemoryTarget())
    blob = b"plain bytes, neither gzip nor tar"
    assert tree.apply_layer(iter([blob]), digest(blob)) is False
    assert tree.target.files == {}
