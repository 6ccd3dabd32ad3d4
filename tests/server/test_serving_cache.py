"""Precompressed and cacheable answers (issue 11), through the real nginx with the
generated configuration and through ``site-gen serve`` alike, over real sockets.

A cluster's Go client sends ``Accept-Encoding: gzip`` and decompresses what comes back:
the body it ends up with must be byte-identical to the published JSON file. A client
that repeats the ETag it got receives 304 and no body.
"""

from __future__ import annotations

import gzip

import pytest

from site_gen.server.policy_http import CACHE_CONTROL

from nginx_server import served  # noqa: F401  (the fixture)
from serving_cases import EMPTY, JSON, V1, VND, build_example, builtin_server, request

pytestmark = pytest.mark.nginx

SERVERS = ["below", "at-root", "standalone", "serve"]
GO_CLIENT = (("User-Agent", "Go-http-client/1.1"), ("Accept-Encoding", "gzip"))  # what Go's transport adds
GRAPHS = [("stable-4.16", "amd64"), ("candidate-4.15", "arm64"), ("eus-4.16", "multi")]


@pytest.fixture(scope="module")
def servers(served):  # noqa: F811  (the fixture)
    """{label: (port, URL prefix)}: the three nginx servers and site-gen serve on one site."""
    site, ports, _ = served
    with builtin_server(site) as server:
        yield site, {**ports, "serve": (server.server_address[1], "")}


def go_get(port: int, target: str, accept: str = JSON, extra=()) -> tuple[int, dict, bytes]:
    """A GET as the CVO's Go client makes it: the body decompressed when the answer is gzip."""
    status, headers, body = request(port, "GET", target, (("Accept", accept), *GO_CLIENT, *extra))
    if headers.get("content-encoding") == "gzip":
        body = gzip.decompress(body)
    return status, headers, body


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("channel, arch", GRAPHS)
def test_a_go_client_reads_the_graph_byte_for_byte(servers, server, channel, arch):
    site, ports = servers
    port, prefix = ports[server]
    published = (site / V1 / channel / f"{arch}.json").read_bytes()
    for target, media in ((f"{prefix}/{V1}?channel={channel}&arch={arch}", VND),
                          (f"{prefix}/{V1}/{channel}/{arch}.json", JSON)):
        status, headers, body = go_get(port, target, accept=media)
        assert (status, headers.get("content-encoding"), headers.get("content-type")) == (200, "gzip", media), target
        assert body == published, target
        assert "Accept-Encoding" in headers["vary"] and headers["cache-control"] == CACHE_CONTROL, headers
        assert int(headers["content-length"]) == (site / V1 / channel / f"{arch}.json.gz").stat().st_size


@pytest.mark.parametrize("server", SERVERS)
def test_clients_that_do_not_ask_get_the_plain_file(servers, server):
    site, ports = servers
    port, prefix = ports[server]
    for encoding in (None, "gzip;q=0", "deflate", "x-gzip"):
        headers = (("Accept", JSON),) + ((("Accept-Encoding", encoding),) if encoding else ())
        status, received, body = request(port, "GET", f"{prefix}/{V1}?channel=stable-4.16", headers)
        assert (status, received.get("content-encoding")) == (200, None), encoding
        assert body == (site / V1 / "stable-4.16/amd64.json").read_bytes()
        assert "Accept-Encoding" in received["vary"]


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_a_repeated_etag_gets_304_without_a_body(servers, server, encoding):
    _, ports = servers
    port, prefix = ports[server]
    asked = () if encoding is None else (("Accept-Encoding", encoding),)
    for target in (f"{prefix}/{V1}?channel=stable-4.16&arch=multi", f"{prefix}/{V1}/stable-4.16/multi.json"):
        status, first, body = request(port, "GET", target, (("Accept", JSON), *asked))
        assert status == 200 and body and first["etag"].startswith('"'), first
        for sent in (first["etag"], f"W/{first['etag']}", f'"other", {first["etag"]}'):
            status, again, body = request(port, "GET", target, (("Accept", JSON), ("If-None-Match", sent), *asked))
            assert (status, body) == (304, b""), (target, sent)
            assert again["etag"] == first["etag"] and again["cache-control"] == CACHE_CONTROL, again
            assert "content-encoding" not in again and "Accept-Encoding" in again["vary"], again
        status, _, body = request(port, "GET", target, (("Accept", JSON), ("If-None-Match", '"stale"'), *asked))
        assert status == 200 and body, target


@pytest.mark.parametrize("server", SERVERS)
def test_each_representation_has_its_own_etag(servers, server):
    """The gzip answer is another representation: a cache must not confuse the two."""
    _, ports = servers
    port, prefix = ports[server]
    target = f"{prefix}/{V1}/stable-4.16/amd64.json"
    plain = request(port, "GET", target)[1]["etag"]
    packed = request(port, "GET", target, (("Accept-Encoding", "gzip"),))[1]["etag"]
    assert plain != packed
    assert request(port, "GET", target, (("If-None-Match", packed),))[0] == 200  # not the plain one's tag


@pytest.mark.parametrize("server", SERVERS)
def test_the_empty_graph_is_cacheable_and_never_compressed(servers, server):
    _, ports = servers
    port, prefix = ports[server]
    status, headers, body = request(port, "GET", f"{prefix}/{V1}?channel=nope-1.0",
                                    (("Accept", JSON), ("Accept-Encoding", "gzip")))
    assert (status, body, headers.get("content-encoding")) == (200, EMPTY, None)
    assert headers["cache-control"] == CACHE_CONTROL


def test_serve_and_nginx_give_the_same_validators(servers):
    """A cluster moved from one server to the other keeps its 304s."""
    _, ports = servers
    for target in (f"/{V1}?channel=stable-4.16", f"/{V1}/index.json"):
        for asked in ((), (("Accept-Encoding", "gzip"),)):
            answers = [request(ports[name][0], "GET", target, (("Accept", JSON), *asked))[1]
                       for name in ("standalone", "serve")]
            assert [(a["etag"], a["last-modified"]) for a in answers][0] == \
                [(a["etag"], a["last-modified"]) for a in answers][1], target


def test_precompressed_files_are_deterministic_and_complete(tmp_path):
    """Every graph JSON (and index.json) has a .gz beside it that decompresses to it, with
    no name and mtime 0 in its header, and two builds give the same bytes."""
    first, second = build_example(tmp_path / "one"), build_example(tmp_path / "two")
    graphs = sorted((first / V1).glob("*/*.json")) + [first / V1 / "index.json"]
    assert len(graphs) > 10
    for graph in graphs:
        packed = graph.with_name(graph.name + ".gz").read_bytes()
        assert gzip.decompress(packed) == graph.read_bytes(), graph
        assert packed[3] & 0x08 == 0 and packed[4:8] == b"\0\0\0\0", graph  # no FNAME flag, mtime 0
        twin = second / graph.relative_to(first)
        assert twin.with_name(twin.name + ".gz").read_bytes() == packed, graph
