"""Session fixtures for the registry tests (loaded with ``pytest_plugins``): one CA, one
storage directory and one anonymous registry, shared by every registry test module."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry_server import REGISTRY, Certificates, Registry, make_ca


@pytest.fixture(scope="session")
def registry_certs(tmp_path_factory) -> Certificates:
    return make_ca(tmp_path_factory.mktemp("registry-ca"))


@pytest.fixture(scope="session")
def registry_storage(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("registry-storage")


@pytest.fixture(scope="session")
def anonymous_registry(tmp_path_factory, registry_certs, registry_storage):
    """An anonymous TLS registry; the images pushed to it are what the auth variants serve."""
    if REGISTRY is None:
        pytest.skip("docker-registry is not installed (./run.sh test installs it)")
    registry = Registry(tmp_path_factory.mktemp("registry"), registry_storage, registry_certs)
    yield registry
    registry.stop()

