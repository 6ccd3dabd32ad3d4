"""A rescrape against a real docker-registry on loopback: the tag index and its 304s, and
blobs served from storage the registry redirects to (as S3-backed registries do).

The tag index (``--cache-dir``/registry-v1/tags) lets a rescrape ask for each known tag
``If-None-Match`` the digest it had; distribution answers 304 while the tag still names
it. These tests retag between scrapes and damage the index, and the scrape must still
see exactly what the registry holds.
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import threading
from pathlib import Path

import pytest
import yaml

from site_gen.cli import main
from site_gen.registry import cache

from registry_images import Pusher
from registry_server import REGISTRY, Registry, cert_dir_for, htpasswd_auth, htpasswd_file

pytest_plugins = ["registry_fixtures"]
pytestmark = [pytest.mark.registry, pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")]

REPO = "rescrape/release-images"


def scrape(tmp_path: Path, registry: Registry, capsys, *extra: str) -> tuple[dict[str, dict], str]:
    """Scrape REPO into tmp_path/releases: the documents by path, and the summary line."""
    assert main(["scrape", registry.docker_reference(REPO), "--out", str(tmp_path / "releases"),
                 "--cert-dir", str(cert_dir_for(registry, tmp_path / "certs.d")),
                 "--cache-dir", str(tmp_path / "cache"), *extra]) == 0
    summary = [line for line in capsys.readouterr().err.splitlines() if line.startswith("scraped ")]
    documents = {str(path.relative_to(tmp_path / "releases")): yaml.safe_load(path.read_text())
                 for path in sorted((tmp_path / "releases").rglob("*.yaml"))}
    return documents, summary[-1]


def tag_index(tmp_path: Path) -> Path:
    [index] = (tmp_path / f"cache/registry-v{cache.FORMAT}/tags").glob("*.json")
    return index


@pytest.fixture
def pusher(anonymous_registry):
    pusher = Pusher(anonymous_registry.url, REPO, str(anonymous_registry.certs.ca))
    pusher.release("4.16.0-x86_64", "4.16.0", "amd64", metadata={"url": "https://errata/0"})
    pusher.release("4.16.1-x86_64", "4.16.1", "amd64", previous=["4.16.0"], metadata={"url": "https://errata/1"})
    pusher.multi_release("4.16.1-multi", "4.16.1", previous=["4.16.0"], mark_children=True)
    yield pusher
    pusher.close()


def test_unchanged_tags_answer_304_and_a_retag_is_seen(tmp_path, anonymous_registry, pusher, capsys):
    first, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert sorted(first) == ["amd64/4.16.0.yaml", "amd64/4.16.1.yaml", "multi/4.16.1.yaml"]
    assert "3 images, 0 from the cache, 3 fetched" in summary and "0 of them answered 304" in summary
    again, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert again == first
    assert "3 images, 3 from the cache, 0 fetched" in summary
    assert "5 requests, 3 of them answered 304 (tag unchanged)" in summary  # /v2/, tags, 3 manifests

    # the tag now names another image: its 304 turns into a 200, and the new image is read
    moved = pusher.release("4.16.1-x86_64", "4.16.1", "amd64", previous=["4.16.0"],
                           metadata={"url": "https://errata/1-respin"})
    retagged, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert "3 images, 2 from the cache, 1 fetched" in summary and "2 of them answered 304" in summary
    assert retagged["amd64/4.16.1.yaml"]["payload"] == f"{anonymous_registry.host_port}/{REPO}@{moved.digest}"
    assert retagged["amd64/4.16.1.yaml"]["metadata"] == {"url": "https://errata/1-respin"}
    assert retagged["amd64/4.16.0.yaml"] == first["amd64/4.16.0.yaml"]
    # and the index remembers the new digest
    assert json.loads(tag_index(tmp_path).read_text())["tags"]["4.16.1-x86_64"][0] == moved.digest
    _, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert "3 of them answered 304" in summary

    # a tag removed from the registry is gone from the scrape, whatever the index says
    listed = pusher.http.get(f"/v2/{REPO}/manifests/4.16.1-multi",
                             headers={"Accept": "application/vnd.docker.distribution.manifest.list.v2+json"})
    assert pusher.http.delete(f"/v2/{REPO}/manifests/{listed.headers['Docker-Content-Digest']}").status_code == 202
    without, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert sorted(without) == ["amd64/4.16.0.yaml", "amd64/4.16.1.yaml"]
    assert "2 of them answered 304" in summary


@pytest.mark.parametrize("damage", [
    b"{not json",
    b'{"reference": "docker://elsewhere:5000/x", "tags": {}, "resolutions": {}}',
    b'{"reference": "%s", "tags": {"4.16.0-x86_64": ["sha256:00"]}, "resolutions": {}}',
    b'{"reference": "%s", "tags": {}, "resolutions": {"sha256:00": {"architecture": 5}}}',
], ids=["not-json", "other-repository", "short-tag-entry", "bad-resolution"])
def test_a_damaged_tag_index_is_ignored(tmp_path, anonymous_registry, pusher, capsys, damage):
    first, _ = scrape(tmp_path, anonymous_registry, capsys)
    index = tag_index(tmp_path)
    index.write_bytes(damage.replace(b"%s", anonymous_registry.docker_reference(REPO).encode()))
    again, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert again == first
    # every manifest read in full; the per-digest cache still spares the configs and layers
    assert "0 of them answered 304" in summary and "3 from the cache, 0 fetched" in summary
    json.loads(index.read_text())  # rewritten whole by the successful scrape
    _, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert "3 of them answered 304" in summary


def test_an_index_naming_wrong_digests_is_corrected_by_the_registry(tmp_path, anonymous_registry, pusher,
                                                                     capsys):
    """The index is only a hint: If-None-Match with a digest the tag does not name gets the
    real manifest (200), so a stale or swapped index cannot make the scrape wrong."""
    first, _ = scrape(tmp_path, anonymous_registry, capsys)
    index = tag_index(tmp_path)
    data = json.loads(index.read_text())
    tags = data["tags"]
    tags["4.16.0-x86_64"], tags["4.16.1-x86_64"] = tags["4.16.1-x86_64"], tags["4.16.0-x86_64"]
    index.write_text(json.dumps(data))
    again, summary = scrape(tmp_path, anonymous_registry, capsys)
    assert again == first
    assert "1 of them answered 304" in summary  # only the list's tag is still right


class _BlobStore:
    """Plain HTTP over the registry's storage directory, as a blob store behind a redirect
    (another origin than the registry); remembers each request's Authorization header."""

    def __init__(self, storage: Path):
        self.authorizations: list[str | None] = []
        store = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                store.authorizations.append(self.headers.get("Authorization"))
                super().do_GET()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     functools.partial(Handler, directory=str(storage)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_blobs_redirected_to_another_origin_get_no_credentials(tmp_path, registry_certs, registry_storage,
                                                              anonymous_registry, pusher, capsys):
    """distribution's redirect middleware sends blob GETs to a storage URL (as S3 or a CDN
    would); the registry's credentials must not follow the scrape there."""
    store = _BlobStore(registry_storage)
    users = htpasswd_file(tmp_path / "htpasswd", "mirror", "s3cret")
    redirect = (f"middleware:\n  storage:\n    - name: redirect\n      options:\n"
                f"        baseurl: {store.url}\n")
    registry = Registry(tmp_path / "redirecting", registry_storage, registry_certs,
                        auth=htpasswd_auth(users) + redirect)
    try:
        auth = tmp_path / "auth.json"
        auth.write_text(json.dumps({"auths": {registry.host_port: {
            "auth": base64.b64encode(b"mirror:s3cret").decode()}}}))
        documents, summary = scrape(tmp_path, registry, capsys, "--authfile", str(auth))
        assert sorted(documents) == ["amd64/4.16.0.yaml", "amd64/4.16.1.yaml", "multi/4.16.1.yaml"]
        assert "3 fetched" in summary
        # configs and metadata layers came from the store: 2 images + the list's last child
        assert len(store.authorizations) >= 6
        assert store.authorizations == [None] * len(store.authorizations)
    finally:
        registry.stop()
        store.stop()


def test_a_token_realm_that_is_not_a_url_is_named(tmp_path, registry_certs, registry_storage, anonymous_registry,
                                                  capsys):
    auth = ("auth:\n  token:\n    realm: not-a-url\n    service: site-gen-test-registry\n"
            f"    issuer: site-gen-test-issuer\n    rootcertbundle: {registry_certs.ca}\n")
    registry = Registry(tmp_path / "bad-realm", registry_storage, registry_certs, auth=auth)
    try:
        assert main(["scrape", registry.docker_reference(REPO), "--out", str(tmp_path / "releases"),
                     "--cache-dir", str(tmp_path / "cache"),
                     "--cert-dir", str(cert_dir_for(registry, tmp_path / "certs.d"))]) == 1
        err = capsys.readouterr().err
        assert "error: the registry names a token server that is not an http(s) URL: 'not-a-url'" in err
        assert "Traceback" not in err
    finally:
        registry.stop()
