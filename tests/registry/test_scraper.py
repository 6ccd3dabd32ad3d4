"""The registry release source against a real docker-registry on loopback (issue 8).

One repository holds every kind of image the scrape must read or refuse; separate
repositories hold the images that must stop a scrape. Commands run in-process through
``site_gen.cli.main``, as a user runs them.
"""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from site_gen.cli import main
from site_gen.model.errors import Warnings
from site_gen.registry.client import ConnectionOptions, RegistryError
from site_gen.registry.layers import LayerLimits
from site_gen.registry.reference import parse_reference
from site_gen.registry.scraper import ScrapeOptions, scrape_registry

from registry_images import (
    Pusher,
    base_layer,
    gzip_bytes,
    metadata_layer,
    release_metadata,
    tar_bytes,
)
from registry_server import (
    REGISTRY,
    Registry,
    TokenServer,
    cert_dir_for,
    free_port,
    htpasswd_auth,
    htpasswd_file,
    token_auth,
)

pytest_plugins = ["registry_fixtures"]  # its session fixtures: one registry for all tests
pytestmark = [pytest.mark.registry, pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")]

REPO = "mirror/openshift/release-images"
MULTI = {"release.openshift.io/architecture": "multi"}
SIG_TAG = "sha256-" + "ab" * 32 + ".sig"


@pytest.fixture(scope="session")
def pushed(anonymous_registry):
    """Push the scenario; returns {tag: digest}."""
    pusher = Pusher(anonymous_registry.url, REPO, str(anonymous_registry.certs.ca))
    d = {}
    d["4.16.0-x86_64"] = pusher.release("4.16.0-x86_64", "4.16.0", "amd64",
                                        metadata={"url": "https://errata/1"}).digest
    d["4.16.1-x86_64"] = pusher.release("4.16.1-x86_64", "4.16.1+ignored", "amd64", previous=["4.16.0"],
                                        metadata={"url": "https://errata/2",
                                                  "io.openshift.upgrades.graph.release.arch": "bogus"}).digest
    d["4.16.1"] = pusher.release("4.16.1", "4.16.1+ignored", "amd64", previous=["4.16.0"],
                                 metadata={"url": "https://errata/2",
                                           "io.openshift.upgrades.graph.release.arch": "bogus"}).digest
    d["4.16.1-aarch64"] = pusher.release("4.16.1-aarch64", "4.16.1", "arm64", previous=["4.15.9"],
                                         next=["4.16.2"]).digest
    d["4.16.1-multi"] = pusher.multi_release("4.16.1-multi", "4.16.1", previous=["4.16.0"],
                                             mark_children=True).digest
    d["4.16.2-ppc64le"] = pusher.release("4.16.2-ppc64le", "4.16.2", "ppc64le", oci=True).digest
    d["4.16.2-multi-oci"] = pusher.multi_release("4.16.2-multi-oci", "4.16.2",
                                                 architectures=("s390x", "ppc64le"), oci=True,
                                                 mark_children=True).digest
    d["not-a-release"] = pusher.image("not-a-release", "amd64", [base_layer()]).digest
    lower = metadata_layer(release_metadata("4.16.3", metadata={"where": "lower"}))
    d["lower-layer"] = pusher.image("lower-layer", "s390x", [base_layer(), lower,
                                                             gzip_bytes(tar_bytes({"etc/motd": b"hi"}))]).digest
    dotted = metadata_layer(release_metadata("9.9.9"), path="./release-manifests/release-metadata")
    below = metadata_layer(release_metadata("4.16.4", metadata={"where": "below ./"}))
    d["dot-slash"] = pusher.image("dot-slash", "s390x", [below, dotted]).digest
    bad_json = metadata_layer(b"{not json")
    d["bad-top-metadata"] = pusher.image("bad-top-metadata", "arm64", [
        base_layer(), metadata_layer(release_metadata("4.16.0", metadata={"where": "lower"})), bad_json]).digest
    shard = pusher.release("4.16.2-shard", "4.16.2", "amd64", metadata=MULTI)
    d["4.16.2-shard"] = shard.digest
    d[SIG_TAG] = pusher.image(SIG_TAG, "amd64", [b'{"critical": {}}']).digest
    config_without_arch = json.dumps({"os": "linux"}).encode()
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                           "size": len(config_without_arch), "digest": pusher.blob(config_without_arch)},
                "layers": []}
    d["no-arch"] = pusher.manifest("no-arch", json.dumps(manifest).encode(), manifest["mediaType"]).digest
    pusher.close()
    return d


def scrape_to(tmp_path, registry, *extra, repository=REPO, out="releases"):
    return main(["scrape", registry.docker_reference(repository), "--out", str(tmp_path / out),
                 "--cert-dir", str(cert_dir_for(registry, tmp_path / "certs.d")),
                 "--cache-dir", str(tmp_path / "cache"), *extra])


def documents(directory: Path) -> dict[str, dict]:
    found = {}
    for path in sorted(directory.rglob("*.yaml")):
        found[str(path.relative_to(directory))] = yaml.safe_load(path.read_text())
    return found


def test_scrape_reads_what_the_reference_reads(tmp_path, anonymous_registry, pushed, capsys):
    assert scrape_to(tmp_path, anonymous_registry) == 0
    err = capsys.readouterr().err
    docs = documents(tmp_path / "releases")
    prefix = f"{anonymous_registry.host_port}/{REPO}@"
    assert sorted(docs) == ["amd64/4.16.0.yaml", "amd64/4.16.1.yaml", "arm64/4.16.0.yaml",
                            "arm64/4.16.1.yaml", "multi/4.16.1.yaml", "multi/4.16.2.yaml",
                            "ppc64le/4.16.2.yaml", "s390x/4.16.3.yaml", "s390x/4.16.4.yaml"]
    first = docs["amd64/4.16.0.yaml"]
    assert first == {"kind": "cincinnati-metadata-v0", "version": "4.16.0", "architecture": "amd64",
                     "payload": prefix + pushed["4.16.0-x86_64"], "previous": [], "next": [],
                     "metadata": {"url": "https://errata/1"}}
    # two tags, one digest: one release; build metadata replaced; the arch key is the builder's
    both = docs["amd64/4.16.1.yaml"]
    assert pushed["4.16.1"] == pushed["4.16.1-x86_64"]
    assert both["version"] == "4.16.1" and both["payload"] == prefix + pushed["4.16.1"]
    assert both["metadata"] == {"url": "https://errata/2"} and both["previous"] == ["4.16.0"]
    assert "tag 4.16.1, 4.16.1-x86_64" in (tmp_path / "releases/amd64/4.16.1.yaml").read_text()
    assert docs["arm64/4.16.1.yaml"]["next"] == ["4.16.2"]
    # a manifest list: multi, its own digest, the metadata of its LAST child
    multi = docs["multi/4.16.1.yaml"]
    assert multi["payload"] == prefix + pushed["4.16.1-multi"]
    assert multi["metadata"] == {**MULTI, "child": "arm64"}
    # OCI manifest and OCI index are read (the reference skips them)
    assert docs["ppc64le/4.16.2.yaml"]["payload"] == prefix + pushed["4.16.2-ppc64le"]
    assert docs["multi/4.16.2.yaml"]["metadata"]["child"] == "ppc64le"
    # metadata only in a lower layer; a ./-prefixed path does not match; bad JSON on top falls back
    assert docs["s390x/4.16.3.yaml"]["metadata"] == {"where": "lower"}
    assert docs["s390x/4.16.3.yaml"]["payload"] == prefix + pushed["lower-layer"]
    assert docs["arm64/4.16.0.yaml"]["metadata"] == {"where": "lower"}
    assert not any(doc["version"] == "9.9.9" for doc in docs.values())
    assert docs["s390x/4.16.4.yaml"]["metadata"] == {"where": "below ./"}
    # the multi shard and the .sig tag are dropped silently; the rest is named
    assert "tag not-a-release: no release-metadata in any layer" in err
    assert "tag no-arch: config" in err and "has no 'architecture'; skipped" in err
    assert SIG_TAG not in err and "4.16.2-shard" not in err
    assert "14 tags: 9 releases (2 multi, 2 from OCI manifests)" in err
    assert "skipped 1 signature tags, 1 unreadable, 1 without release-metadata, 1 multi shards" in err


def test_rescrape_reads_only_manifests_and_writes_the_same_bytes(tmp_path, anonymous_registry, pushed, capsys):
    assert scrape_to(tmp_path, anonymous_registry, out="first") == 0
    first = capsys.readouterr().err
    assert "12 images, 0 from the cache, 11 fetched" in first
    assert scrape_to(tmp_path, anonymous_registry, out="second") == 0
    second = capsys.readouterr().err
    assert "12 images, 11 from the cache, 0 fetched" in second  # no-arch is unreadable each time
    for path in (tmp_path / "first").rglob("*.yaml"):
        assert path.read_bytes() == (tmp_path / "second" / path.relative_to(tmp_path / "first")).read_bytes()
    marker = (tmp_path / "second/.site-gen").stat()
    assert scrape_to(tmp_path, anonymous_registry, out="second") == 0
    assert "unchanged: 9 release documents" in capsys.readouterr().err
    assert (tmp_path / "second/.site-gen").stat().st_ino == marker.st_ino  # not replaced


def test_build_check_and_diff_take_a_registry(tmp_path, anonymous_registry, pushed, capsys, scenario):
    certs = str(cert_dir_for(anonymous_registry, tmp_path / "certs.d"))
    reference = anonymous_registry.docker_reference(REPO)
    graph_data = scenario.channel("stable-4.16", ["4.16.0", "4.16.1", "4.16.2", "4.16.3"]).data
    scenario.block("old.yaml", to="4.16.1", from_="^4[.]15[.]")  # git keeps no empty directory
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit",
                                                      "-qm", "x"]):
        subprocess.run(["git", *command], cwd=graph_data, check=True)
    common = ["--graph-data", str(graph_data), "--releases", reference, "--cert-dir", certs,
              "--cache-dir", str(tmp_path / "cache")]
    assert main(["build", *common, "--out", str(tmp_path / "site"), "--no-html"]) == 0
    graph = json.loads((tmp_path / "site/api/upgrades_info/v1/graph/stable-4.16/amd64.json").read_text())
    assert [n["version"] for n in graph["nodes"]] == ["4.16.0", "4.16.1"]
    assert graph["nodes"][1]["payload"] == f"{anonymous_registry.host_port}/{REPO}@{pushed['4.16.1']}"
    assert graph["edges"] == [[0, 1]]
    capsys.readouterr()
    # nothing new in the registry: the published site is up to date
    assert main(["build", *common, "--out", str(tmp_path / "site"), "--no-html"]) == 0
    assert "is up to date" in capsys.readouterr().err
    assert main(["check", *common, "-q"]) == 0  # checked against the registry's releases: no findings
    assert capsys.readouterr().out == ""
    assert main(["diff", *common, "HEAD", "HEAD"]) == 0


def test_credentials_do_not_break_an_anonymous_registry(tmp_path, anonymous_registry, pushed, monkeypatch):
    auth = tmp_path / "auth.json"
    encoded = base64.b64encode(b"someone:secret").decode()
    auth.write_text(json.dumps({"auths": {anonymous_registry.host_port: {"auth": encoded}}}))
    monkeypatch.setenv("REGISTRY_AUTH_FILE", str(auth))
    assert scrape_to(tmp_path, anonymous_registry, "-q") == 0


@pytest.fixture(scope="module")
def basic_registry(tmp_path_factory, registry_certs, registry_storage, anonymous_registry, pushed):
    directory = tmp_path_factory.mktemp("basic")
    users = htpasswd_file(directory / "htpasswd", "mirror", "s3cret")
    registry = Registry(directory, registry_storage, registry_certs, auth=htpasswd_auth(users))
    yield registry
    registry.stop()


def auth_file(path: Path, key: str, user: str, password: str) -> Path:
    encoded = base64.b64encode(f"{user}:{password}".encode()).decode()
    path.write_text(json.dumps({"auths": {"other.example.com": {"auth": "eDp5"},
                                          key: {"auth": encoded}}}))
    return path


def test_basic_auth(tmp_path, basic_registry, pushed, capsys, monkeypatch):
    monkeypatch.delenv("REGISTRY_AUTH_FILE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.docker/config.json of the user's
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    assert scrape_to(tmp_path, basic_registry) == 1
    assert "the registry needs credentials: log in with `podman login` or pass --authfile" in \
        capsys.readouterr().err
    # the key lookup: host:port/<repository>, trimmed segment by segment, then host:port
    key = f"{basic_registry.host_port}/mirror/openshift"
    good = auth_file(tmp_path / "good.json", key, "mirror", "s3cret")
    assert scrape_to(tmp_path, basic_registry, "--authfile", str(good), "-q") == 0
    assert len(documents(tmp_path / "releases")) == 9
    # podman's default file, under $XDG_RUNTIME_DIR
    (tmp_path / "run/containers").mkdir(parents=True)
    auth_file(tmp_path / "run/containers/auth.json", basic_registry.host_port, "mirror", "s3cret")
    assert scrape_to(tmp_path, basic_registry, "-q", out="again") == 0
    bad = auth_file(tmp_path / "bad.json", basic_registry.host_port, "mirror", "wrong")
    assert scrape_to(tmp_path, basic_registry, "--authfile", str(bad)) == 1
    err = capsys.readouterr().err
    assert f"docker://{basic_registry.host_port}/{REPO}: error: authentication failed: the registry " \
           f"refused the credentials from {bad} (key {basic_registry.host_port})" in err
    assert "Traceback" not in err


@pytest.fixture(scope="module")
def token_registry(tmp_path_factory, registry_certs, registry_storage, anonymous_registry, pushed):
    directory = tmp_path_factory.mktemp("bearer")
    tokens = TokenServer(directory, registry_certs, "mirror", "t0ken", expired_first=True)
    registry = Registry(directory, registry_storage, registry_certs, auth=token_auth(tokens))
    yield registry, tokens
    registry.stop()
    tokens.stop()


def test_bearer_token_and_refresh_on_401(tmp_path, token_registry, pushed, capsys):
    registry, tokens = token_registry
    good = auth_file(tmp_path / "auth.json", registry.host_port, "mirror", "t0ken")
    assert scrape_to(tmp_path, registry, "--authfile", str(good), "-q") == 0
    assert len(documents(tmp_path / "releases")) == 9
    assert tokens.issued >= 2  # the first token was expired: the registry's 401 made us ask again
    bad = auth_file(tmp_path / "bad.json", registry.host_port, "mirror", "nope")
    assert scrape_to(tmp_path, registry, "--authfile", str(bad)) == 1
    assert f"authentication failed: the token server {tokens.realm} refused the credentials" in \
        capsys.readouterr().err


# --- what stops a scrape -----------------------------------------------------------------------


def test_unreachable_wrong_repository_tls_and_plain_http(tmp_path, anonymous_registry, pushed, capsys):
    closed = Registry.__new__(Registry)
    closed.host_port = f"127.0.0.1:{free_port()}"
    closed.certs = anonymous_registry.certs
    assert main(["scrape", closed.docker_reference(REPO), "--out", str(tmp_path / "x"),
                 "--timeout", "1"]) == 1
    assert "cannot reach 127.0.0.1" in capsys.readouterr().err
    assert scrape_to(tmp_path, anonymous_registry, repository="no/such/repo") == 1
    assert "repository 'no/such/repo' not found" in capsys.readouterr().err
    untrusted = ["scrape", anonymous_registry.docker_reference(REPO), "--out", str(tmp_path / "x"),
                 "--cache-dir", str(tmp_path / "cache")]
    assert main(untrusted) == 1
    err = capsys.readouterr().err
    assert "TLS certificate not trusted" in err and "--cert-dir" in err and "--tls-verify=false" in err
    assert main([*untrusted, "--plain-http"]) == 1  # a TLS registry answers plain HTTP with 400
    assert "does not answer the registry API (GET /v2/ returned HTTP 400)" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert main([*untrusted, "--tls-verify=false"]) == 0
    assert "the registry's certificate is NOT checked" in capsys.readouterr().err
    assert len(documents(tmp_path / "x")) == 9


def test_plain_http_only_when_asked(tmp_path, tmp_path_factory, registry_certs, registry_storage, pushed,
                                    capsys):
    registry = Registry(tmp_path / "plain", registry_storage, registry_certs, tls=False)
    try:
        base = ["scrape", registry.docker_reference(REPO), "--out", str(tmp_path / "out"),
                "--cache-dir", str(tmp_path / "cache")]
        assert main(base) == 1
        assert "does not answer TLS; pass --plain-http" in capsys.readouterr().err
        assert main([*base, "--plain-http", "-q"]) == 0
        assert len(documents(tmp_path / "out")) == 9
    finally:
        registry.stop()


def test_a_hanging_registry_times_out(tmp_path, capsys):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = []
    stop = threading.Event()

    def accept():  # accept and never answer
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        port = listener.getsockname()[1]
        assert main(["scrape", f"docker://127.0.0.1:{port}/x/y", "--out", str(tmp_path / "out"),
                     "--timeout", "0.5"]) == 1
        err = capsys.readouterr().err
        assert "no answer from 127.0.0.1" in err and "within 0.5 s" in err and "3 attempts" in err
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        listener.close()


@pytest.fixture(scope="module")
def bad_repositories(anonymous_registry):
    url, ca = anonymous_registry.url, str(anonymous_registry.certs.ca)
    corrupt = Pusher(url, "bad/corrupt", ca)
    corrupt.release("4.16.0", "4.16.0", "amd64")
    corrupt.image("4.16.9", "amd64", [base_layer(), b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"garbage" * 50])
    duplicate = Pusher(url, "bad/duplicate", ca)
    duplicate.release("4.16.0-a", "4.16.0", "amd64", metadata={"n": "1"})
    duplicate.release("4.16.0-b", "4.16.0", "amd64", metadata={"n": "2"})
    cycle = Pusher(url, "bad/cycle", ca)
    cycle.release("a", "4.16.0", "amd64", previous=["4.16.1"])
    cycle.release("b", "4.16.1", "amd64", previous=["4.16.0"])
    bomb = Pusher(url, "bad/bomb", ca)
    bomb.image("4.16.0", "amd64", [gzip_bytes(tar_bytes({"zeros": b"\0" * (8 << 20)}))])
    for pusher in (corrupt, duplicate, cycle, bomb):
        pusher.close()


def test_corrupt_layer_duplicate_version_and_cycle_stop_the_scrape(tmp_path, anonymous_registry,
                                                                    bad_repositories, capsys):
    (tmp_path / "releases").mkdir()
    (tmp_path / "releases/.site-gen").write_text("{}")
    (tmp_path / "releases/kept.yaml").write_text("kept")
    assert scrape_to(tmp_path, anonymous_registry, repository="bad/corrupt") == 1
    err = capsys.readouterr().err
    assert "tag 4.16.9: layer sha256:" in err and "is corrupt: cannot be decoded" in err
    assert scrape_to(tmp_path, anonymous_registry, repository="bad/duplicate") == 1
    err = capsys.readouterr().err
    assert "release 4.16.0 (amd64) is in two images: tag 4.16.0-" in err and "and tag 4.16.0-" in err
    assert scrape_to(tmp_path, anonymous_registry, repository="bad/cycle") == 1
    assert "releases form a cycle" in capsys.readouterr().err
    assert (tmp_path / "releases/kept.yaml").read_text() == "kept"  # nothing published was lost


def test_layer_limits_bound_a_huge_layer(anonymous_registry, bad_repositories, tmp_path):
    cert_dir = cert_dir_for(anonymous_registry, tmp_path / "certs.d")
    connection = ConnectionOptions(cert_dir=cert_dir)
    reference = parse_reference(anonymous_registry.docker_reference("bad/bomb"))
    with pytest.raises(RegistryError, match="over the 4,096 limit"):
        scrape_registry(reference, ScrapeOptions(connection, None, LayerLimits(compressed=4096)), Warnings())
    with pytest.raises(RegistryError, match="takes the layer past 1,048,576 decoded bytes, the limit"):
        scrape_registry(reference, ScrapeOptions(connection, None, LayerLimits(uncompressed=1 << 20)),
                        Warnings())
    result = scrape_registry(reference, ScrapeOptions(connection, None), Warnings())
    assert result.releases == [] and result.stats.without_metadata == 1


def test_a_failed_scrape_keeps_the_published_site(tmp_path, anonymous_registry, pushed, bad_repositories, scenario,
                                                  capsys):
    graph_data = scenario.channel("stable-4.16", ["4.16.0", "4.16.1"]).data
    common = ["--graph-data", str(graph_data), "--out", str(tmp_path / "site"), "--no-html", "-q",
              "--cert-dir", str(cert_dir_for(anonymous_registry, tmp_path / "certs.d")),
              "--cache-dir", str(tmp_path / "cache")]
    assert main(["build", *common, "--releases", anonymous_registry.docker_reference(REPO)]) == 0
    before = {p: p.read_bytes() for p in (tmp_path / "site").rglob("*") if p.is_file()}
    assert main(["build", *common, "--releases", anonymous_registry.docker_reference("bad/duplicate")]) == 1
    err = capsys.readouterr().err
    assert "error: release 4.16.0 (amd64) is in two images: tag 4.16.0-" in err and "Traceback" not in err
    assert "nothing was published" in err
    assert {p: p.read_bytes() for p in (tmp_path / "site").rglob("*") if p.is_file()} == before


def test_lists_the_reference_mishandles(tmp_path, anonymous_registry, capsys):
    """An empty list (the reference panics), a one-image list (the reference reads the
    child manifest as a layer) and a sparse mirror missing the last child (the reference
    fails the whole scrape)."""
    repository = "lists/release-images"
    pusher = Pusher(anonymous_registry.url, repository, str(anonymous_registry.certs.ca))
    pusher.image_list("empty", [])
    only = pusher.image(None, "s390x", [base_layer(), metadata_layer(release_metadata("4.16.5"))])
    single = pusher.image_list("4.16.5-s390x", [(only, "s390x")])
    sparse = pusher.multi_release("4.16.6-multi", "4.16.6", mark_children=True)
    listed = json.loads(pusher.http.get(f"/v2/{repository}/manifests/{sparse.digest}",
                                        headers={"Accept": sparse.media_type}).content)
    last = listed["manifests"][-1]["digest"]
    assert pusher.http.delete(f"/v2/{repository}/manifests/{last}").status_code == 202
    pusher.close()
    assert scrape_to(tmp_path, anonymous_registry, repository=repository) == 0
    err = capsys.readouterr().err
    docs = documents(tmp_path / "releases")
    prefix = f"{anonymous_registry.host_port}/{repository}@"
    assert docs["s390x/4.16.5.yaml"]["payload"] == prefix + single.digest
    assert docs["multi/4.16.6.yaml"]["payload"] == prefix + sparse.digest
    assert docs["multi/4.16.6.yaml"]["metadata"]["child"] == "amd64"
    assert "tag empty: empty manifest list; skipped" in err
    assert f"tag 4.16.6-multi: list child {last} (arm64) is unreadable" in err
    assert "release-metadata taken from list child" in err and "not the last one (a sparse mirror?)" in err
