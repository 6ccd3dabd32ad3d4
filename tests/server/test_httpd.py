"""``site-gen serve``'s answers: the shared cases over real sockets, and the request
decoding the policy engine does (which nginx cannot) on the pure planning function."""

from __future__ import annotations

import os

import orjson
import pytest

from site_gen.server.policy_http import GraphFile, Reply, SiteFile, plan
from site_gen.server.static_files import content_type

from serving_cases import (
    CASES,
    EMPTY,
    ESCAPES,
    JSON,
    V1,
    VND,
    build_example,
    builtin_server,
    check_case,
    check_escape,
    request,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = build_example(tmp_path_factory.mktemp("serve"))
    with builtin_server(site) as server:
        yield site, server.server_address[1]


@pytest.mark.heavy
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_case(served, case):
    site, port = served
    check_case(port, "", case, site)


@pytest.mark.parametrize("target", ESCAPES)
def test_paths_never_leave_the_site(served, target):
    _, port = served
    check_escape(port, "", target)


def test_symlink_out_of_the_site_is_not_followed(served):
    site, port = served
    link = site / "api" / "leak.txt"
    link.symlink_to(site.parent.parent / "secret.txt")
    try:
        assert request(port, "GET", "/api/leak.txt")[0] == 404
    finally:
        link.unlink()


def test_directories(served):
    site, port = served
    (site / "pages").mkdir()
    (site / "pages" / "index.html").write_text("<h1>pages</h1>")
    try:
        status, headers, _ = request(port, "GET", "/pages?x=1")
        assert (status, headers["location"]) == (301, "/pages/?x=1")
        status, headers, body = request(port, "GET", "/pages/")
        assert (status, headers["content-type"], body) == (200, "text/html; charset=utf-8", b"<h1>pages</h1>")
        assert request(port, "GET", "/api/")[0] == 403  # no index.html, and no listing
        assert request(port, "GET", f"/{V1}/stable-4.16/amd64.json/")[0] == 404
    finally:
        (site / "pages" / "index.html").unlink()
        (site / "pages").rmdir()


def test_follows_a_rebuilt_site(served, tmp_path):
    """A rebuild swaps the site directory; the server serves the new one, not a stale handle."""
    site, port = served
    before = request(port, "GET", f"/{V1}?channel=stable-4.16", (("Accept", JSON),))[2]
    moved = site.with_name("updates.old")
    os.rename(site, moved)
    try:
        site.mkdir()
        assert request(port, "GET", f"/{V1}?channel=stable-4.16", (("Accept", JSON),))[2] == EMPTY
    finally:
        site.rmdir()
        os.rename(moved, site)
    assert request(port, "GET", f"/{V1}?channel=stable-4.16", (("Accept", JSON),))[2] == before


@pytest.mark.parametrize("name, expected", [
    ("index.html", "text/html; charset=utf-8"), ("graph.svg", "image/svg+xml; charset=utf-8"),
    ("site.css", "text/css; charset=utf-8"), ("planner.js", "text/javascript; charset=utf-8"),
    ("amd64.json", "application/json"), ("signature-1", "application/octet-stream"),
    ("graph-data", "application/octet-stream"), ("site.tar.gz", "application/gzip"),
])
def test_content_types(name, expected):
    assert content_type(name) == expected


# -- the policy engine's query decoding, which `site-gen serve` reproduces ---------------

def graph_of(query: str, accept: str | None = JSON):
    headers = {} if accept is None else {"Accept": accept}
    return plan("GET", f"/{V1}?{query}", headers)


def error_value(outcome) -> str:
    assert isinstance(outcome, Reply) and outcome.status == 400, outcome
    return orjson.loads(outcome.body)["value"]


def test_values_are_percent_decoded_like_the_engine():
    assert graph_of("channel=stable%2D4.16") == GraphFile("stable-4.16", "amd64", graph_of("channel=x").headers)
    assert graph_of("ch%61nnel=fast-4.16&%61rch=arm64").arch == "arm64"
    assert "channel 'a_b' does not match" in error_value(graph_of("channel=a%5Fb"))
    assert "channel 'a b' does not match" in error_value(graph_of("channel=a+b"))
    assert "channel 'caf\u00e9' does not match" in error_value(graph_of("channel=caf%C3%A9"))
    assert "channel '\ufffd' does not match" in error_value(graph_of("channel=%FF"))


@pytest.mark.parametrize("query, shown", [
    ("channel=%F0%9F%98", "\ufffd"),  # a truncated sequence: one replacement, as from_utf8_lossy
    ("channel=%ED%A0%80", "\ufffd" * 3),  # an encoded surrogate: one per byte
    ("channel=a=b", "a=b"),  # split at the first '=' only
    ("channel=a%", "a%"), ("channel=a%2", "a%2"), ("channel=a%zz", "a%zz"),  # not an escape: kept
    ("channel=a%2B", "a+"),  # an escaped '+' is a plus, not a space
])
def test_decoding_follows_serde_urlencoded(query, shown):
    assert f"channel '{shown}' does not match" in error_value(graph_of(query))


def test_empty_pairs_and_semicolons():
    assert graph_of("&&channel=stable-4.16&&").channel == "stable-4.16"
    assert "channel 'stable-4.16;arch=s390x' does not match" in error_value(graph_of("channel=stable-4.16;arch=s390x"))


def test_a_trailing_newline_is_not_a_valid_channel():
    """Python's '$' matches before a final newline; the engine's regex does not."""
    assert "channel 'stable-4.16\\n'" in repr(error_value(graph_of("channel=stable-4.16%0A")))


def test_dots_only_is_refused_before_any_lookup():
    assert "channel '..' is only dots" in error_value(graph_of("channel=%2E%2E"))
    assert "channel '...' is only dots" in error_value(graph_of("channel=..."))
    assert isinstance(graph_of("channel=a..b"), GraphFile)


def test_an_empty_accept_header_is_not_a_missing_one():
    """The engine only defaults the media type when there is no Accept header at all."""
    assert graph_of("channel=stable-4.16", accept=None).headers[0] == ("Content-Type", VND)
    outcome = graph_of("channel=stable-4.16", accept="")
    assert isinstance(outcome, Reply) and outcome.status == 406


@pytest.mark.parametrize("target, segments, directory", [
    ("/a/../b", ("b",), False), ("/a/./b/.", ("a", "b"), True), ("/a/b/..", ("a",), True),
    ("//a///b", ("a", "b"), False), ("/a%2fb", ("a", "b"), False), ("/%2e%2e%2fa/../b", None, None),
    ("/a%5Cb", ("a\\b",), False), ("/%ff", ("\udcff",), False), ("/a#/../../b", ("a",), False),
])
def test_paths_are_normalized_as_nginx_does(target, segments, directory):
    """Decoded, '.' and empty segments dropped, '..' resolved; bytes that are not UTF-8
    stay (as surrogates) and simply name no file."""
    outcome = plan("GET", target, {})
    assert outcome == (SiteFile(segments, directory, "") if segments is not None else
                       Reply(400, (("Content-Type", "text/plain; charset=utf-8"),), b"bad request target\n"))


@pytest.mark.parametrize("target", ["/..", "/a/../../b", "/%2e%2e/b", "/a%00b", "*", "ftp://x/y"])
def test_targets_that_cannot_name_a_file_are_bad_requests(target):
    outcome = plan("GET", target, {})
    assert isinstance(outcome, Reply) and outcome.status == 400


@pytest.mark.parametrize("method", ["get", "G\u00c9T", "GET\x00", "", "G ET"])
def test_methods_nginx_cannot_parse_are_bad_requests(method):
    outcome = plan(method, f"/{V1}?channel=stable-4.16", {"Accept": JSON})
    assert outcome == Reply(400, (("Content-Type", "text/plain; charset=utf-8"),), b"bad request method\n")


def test_absolute_form_targets_are_understood():
    assert plan("GET", "http://mirror.example.com/api/upgrades_info/v1/graph?channel=x", {"Accept": JSON}) == \
        graph_of("channel=x")
    assert plan("GET", "http://mirror.example.com", {}) == SiteFile((), True, "")


def test_a_file_changed_in_place_is_served_anew(served):
    """Files are kept in memory between requests; a changed file (new size, mtime or inode)
    is read again, and a file replaced by a symlink out of the site is not served."""
    site, port = served
    page = site / "api" / "page.txt"
    page.write_bytes(b"first")
    try:
        assert request(port, "GET", "/api/page.txt")[2] == b"first"
        page.write_bytes(b"second, longer")
        assert request(port, "GET", "/api/page.txt")[2] == b"second, longer"
        page.unlink()
        page.symlink_to(site.parent.parent / "secret.txt")
        assert request(port, "GET", "/api/page.txt")[0] == 404
    finally:
        page.unlink()
