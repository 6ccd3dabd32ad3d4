"""A registry holding the example's releases builds the same site as the release documents.

The embedded example's release documents are pushed as images (multi releases as
manifest lists), scraped and built; the expected side is the same documents with the
payload the registry gives each image. Everything served must be byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from site_gen.cli import main

from conftest import EXAMPLE
from registry_images import Pusher, images_from_documents, push_release_images
from registry_server import REGISTRY, cert_dir_for

pytest_plugins = ["registry_fixtures"]  # its session fixtures: one registry for all tests
pytestmark = [pytest.mark.registry, pytest.mark.slow,
              pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")]

REPO = "example/openshift/release-images"


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".site-gen"}


def test_example_from_a_registry_is_byte_identical(tmp_path, anonymous_registry, capsys):
    images = images_from_documents(EXAMPLE / "releases")
    pusher = Pusher(anonymous_registry.url, REPO, str(anonymous_registry.certs.ca))
    digests = push_release_images(pusher, images)
    pusher.close()
    expected = tmp_path / "expected-releases"
    for path in sorted((EXAMPLE / "releases").rglob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        tag = f"{doc['version']}-{doc['architecture']}"
        doc["payload"] = f"{anonymous_registry.host_port}/{REPO}@{digests[tag]}"
        target = expected / path.relative_to(EXAMPLE / "releases").with_suffix(".json")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(doc))
    common = ["--graph-data", str(EXAMPLE), "--no-html", "-q", "--cache-dir", str(tmp_path / "cache")]
    assert main(["build", *common, "--releases", str(expected), "--out", str(tmp_path / "from-documents")]) == 0
    assert main(["build", *common, "--releases", anonymous_registry.docker_reference(REPO),
                 "--cert-dir", str(cert_dir_for(anonymous_registry, tmp_path / "certs.d")),
                 "--out", str(tmp_path / "from-registry")]) == 0
    from_documents, from_registry = files(tmp_path / "from-documents"), files(tmp_path / "from-registry")
    assert sum(name.startswith("api/upgrades_info/v1/graph/") for name in from_documents) > 40
    assert from_registry.keys() == from_documents.keys()
    payload = f'"payload":"{anonymous_registry.host_port}/{REPO}@sha256:'.encode()
    assert payload in from_registry["api/upgrades_info/v1/graph/stable-4.16/multi.json"]
    different = [name for name in from_documents if from_documents[name] != from_registry[name]]
    assert different == []
