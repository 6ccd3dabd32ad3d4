"""Reading release images for their contents: several images in flight, their records one at a time.

Four images are downloaded and applied at once; were their records computed at once too, each
would parse every file none of them had parsed yet (the manifest memo starts empty in a cold
build). Real-size synthetic payloads in an OCI layout (no registry needed), read through
``read_contents`` as a build reads them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import site_gen.contents.manifest_files as manifest_files
from site_gen.model.errors import Warnings
from site_gen.registry.client import ConnectionOptions
from site_gen.registry.contents_reading import ContentsOptions, read_contents
from site_gen.registry.contents_source import contents_source
from site_gen.registry.payload_images import PayloadRequest

from release_images import release_layers, write_layout
from release_payloads import payload_tree, write_tree

VERSIONS = ("4.16.0", "4.16.1", "4.16.2", "4.16.3")


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> tuple[Path, list[PayloadRequest]]:
    root = tmp_path_factory.mktemp("contents-reading")
    images = {}
    for version in VERSIONS:
        tree = root / "trees" / version
        write_tree(payload_tree(version, "amd64", manifests=300), tree)
        images[version] = (release_layers(tree), "amd64")
    digests = write_layout(root / "layout", images)
    requests = [PayloadRequest(v, "amd64", digests[v], f"quay.io/x/y@{digests[v]}") for v in VERSIONS]
    return root / "layout", requests


def read_counting(monkeypatch, layout: Path, requests: list[PayloadRequest], concurrency: int) -> tuple[int, dict]:
    """The YAML files parsed (memo misses that reach the parser) and the records, read cold."""
    parsed = [0]
    real = manifest_files._parsed

    def counted(*args, **kwargs):
        parsed[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(manifest_files, "_parsed", counted)
    options = ContentsOptions(ConnectionOptions(concurrency=concurrency))
    read = read_contents(contents_source(str(layout)), requests, options, Warnings())
    assert read.read == len(requests) and read.errors == 0
    return parsed[0], {key: read.records.record(key) for key in read.records}


@pytest.mark.heavy
def test_images_in_flight_parse_each_file_once(monkeypatch, layout):
    root, requests = layout
    one_at_a_time, serial_records = read_counting(monkeypatch, root, requests, 1)
    four_in_flight, records = read_counting(monkeypatch, root, requests, 16)  # 4 images at once
    assert four_in_flight == one_at_a_time  # not once per image in flight
    assert one_at_a_time < 2 * 300  # the z-streams share most files: far fewer than every file of two images
    assert records == serial_records
