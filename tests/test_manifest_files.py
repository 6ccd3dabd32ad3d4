"""FileDigests: the sha256 of contents seen before, exact and bounded."""

from __future__ import annotations

import hashlib
import os

from site_gen.contents.manifest_files import FileDigests


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
