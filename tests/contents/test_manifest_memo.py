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


def test_contents_held_stay_within_the_bound_oldest_first():
    digests = FileDigests(max_bytes=16_000)
    files = [bytes([n]) * 1000 for n in range(40)]
    for data in files:
        assert digests.sha256(data) == hashlib.sha256(data).hexdigest()
        assert digests.held <= 16_000
    assert digests.held == sum(map(len, digests.known)) == 16_000
    assert files[0] not in digests.known and files[-1] in digests.known
    big = b"x" * 2000  # over a sixteenth of the bound: hashed, not held
    assert digests.sha256(big) == hashlib.sha256(big).hexdigest() and big not in digests.known


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
