"""What the manifest memo keeps in memory: digests exact and bounded, records unchanged."""

from __future__ import annotations

import hashlib
import os

import pytest

from site_gen.contents.manifest_files import FileDigests, ManifestMemo
from site_gen.contents.release_contents import contents_json, release_contents

from release_payloads import payload_tree


def test_digests_are_the_files_own_whether_seen_before_or_not():
    digests = FileDigests()
    files = [os.urandom(n) for n in (0, 1, 100, 5000)]
    for data in files + [bytes(bytearray(f)) for f in files]:  # equal bytes, other objects
        assert digests.sha256(data) == hashlib.sha256(data).hexdigest()
    assert len(digests.known) == len(files)


def test_files_found_by_the_same_key_still_get_their_own_digest(monkeypatch):
    """Files are found by length and CRC-32 and confirmed byte for byte: two files with one key
    (here every file) each get their own digest, and the one held is the last one hashed."""
    from site_gen.contents import manifest_files

    monkeypatch.setattr(manifest_files, "_content_key", lambda data: (0, 0))
    digests = FileDigests()
    files = [os.urandom(100) for _ in range(3)]
    for data in files * 2:
        assert digests.sha256(data) == hashlib.sha256(data).hexdigest()
    assert digests.holds(files[-1]) and not digests.holds(files[0])
    assert digests.held == 100


def test_contents_held_stay_within_the_bound_oldest_first():
    digests = FileDigests(max_bytes=16_000)
    files = [bytes([n]) * 1000 for n in range(40)]
    for data in files:
        assert digests.sha256(data) == hashlib.sha256(data).hexdigest()
        assert digests.held <= 16_000
    assert digests.held == sum(len(data) for data, _ in digests.known.values()) == 16_000
    assert not digests.holds(files[0]) and digests.holds(files[-1])
    big = b"x" * 2000  # over a sixteenth of the bound: hashed, not held
    assert digests.sha256(big) == hashlib.sha256(big).hexdigest() and not digests.holds(big)


@pytest.mark.heavy
def test_records_with_a_shared_memo_equal_records_without_any():
    """What the memo hands on between images (digests, Manifest objects, resource entries)
    gives the bytes a record computed from nothing has, whatever the order and the settings."""
    memo = ManifestMemo()
    settings = [{}, {"profile": "single-node-developer"}, {"feature_set": "TechPreviewNoUpgrade"}, {}]
    for version, arch in (("4.15.2", "amd64"), ("4.16.3", "amd64"), ("4.16.3", "arm64"), ("4.16.4", "arm64")):
        tree = payload_tree(version, arch, manifests=170)
        for kwargs in settings:
            assert contents_json(release_contents(tree, memo=memo, **kwargs)) == \
                contents_json(release_contents(tree, **kwargs)), (version, arch, kwargs)
    assert memo.loaded and memo.derived and memo.digests.known
