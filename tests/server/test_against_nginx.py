"""The same generated matrix of requests sent to `site-gen serve` and to the real nginx
running the generated configuration, over real sockets, on the same built site.

Every answer must agree in status, Content-Type, the CORS headers, Vary, Allow, body, and
the caching headers: Content-Encoding (precompressed gzip), ETag, Last-Modified and
Cache-Control, so a 304 from one server is a 304 from the other.
The only differences allowed are the documented ones (docs/serving.md), each listed in
DIVERGENCES with the requests it concerns and the fields it may change; each must still
show up in the matrix, so the list cannot outlive the behaviour it excuses.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import orjson
import pytest

from site_gen.server.conditional import etag, http_date
from site_gen.server.httpd import MAX_LINE

from nginx_server import served  # noqa: F401  (the fixture)
from serving_cases import JSON, ORIGIN, SIGNATURE, V0, V1, VND, builtin_server, raw_request, request, split_response

pytestmark = pytest.mark.nginx

OWS = " \t"


@dataclass(frozen=True)
class Probe:
    kind: str  # "endpoint", "file" (exists), "directory", "missing" (no such file) or "malformed"
    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def query(self) -> str:
        return self.target.partition("?")[2]

    @property
    def accept(self) -> str | None:
        return dict(self.headers).get("Accept")

    def __str__(self) -> str:
        return f"{self.method} {self.target} {list(self.headers)}"


# -- the matrix ------------------------------------------------------------------------

CHANNELS = ["stable-4.16", "eus-4.16", "nope-1.0", "Stable-4.16", "", "a_b", "..", "a$b", 'a"b', "a\\b",
            "stable%2D4.16", "stable-4.16+", "a" * 256, None]
ARCHES = ["amd64", "s390x", "multi", "ppc64le", "x86_64", "", "%61md64", None]
ACCEPTS = [None, JSON, VND, "*/*", "*", "application/*", "text/html", "APPLICATION/JSON", f"{JSON}, text/plain",
           f"{JSON}; charset=utf-8", f" {JSON}", f"{JSON} ", f"\t{JSON}", f"{VND}\t", " \t*/* ", "", " ", "\t"]
METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "FOO", "M-SEARCH", "TRACE", "get", "Get"]
TARGETS = {  # what every method is tried on -> kind
    f"/{V1}?channel=stable-4.16": "endpoint", f"/{V0}?arch=x86_64": "endpoint",
    f"/{V1}/stable-4.16/amd64.json": "file", f"/{V1}/index.json": "file", "/api/upgrades_info/graph-data": "file",
    f"/signatures/{SIGNATURE}": "file", "/deploy/nginx/site-gen.conf": "file",
    f"/{V1}/stable-4.16/ppc64le.json": "missing", "/missing.html": "missing",
}
PATHS = {  # request path -> kind, for path tricks
    f"/{V0}": "endpoint", f"/{V1}//": "directory", f"/{V1}/": "directory",
    "/api/upgrades_info//v1/graph": "endpoint", "/api/upgrades_info/v1/%67raph": "endpoint",
    f"/{V1}/../graph": "endpoint", f"/./{V1}": "endpoint",
    "/api%2Fupgrades_info/v1/graph": "endpoint", "/API/upgrades_info/v1/graph": "missing",
    f"/{V1}/stable-4.16": "directory", f"/{V1}/stable-4.16/": "directory", "/api/": "directory",
    "/signatures": "directory",
    f"/{V1}/stable-4.16/amd64.json/": "missing", "/a%5Cb": "missing", "/%ff": "missing",
    f"/../{V1}": "malformed", f"/{V1}/../../../graph": "malformed", f"/{V1}%00": "malformed",
}
QUERIES = ["", "?", "?channel", "?channel&arch=amd64", "?arch=amd64", "?xchannel=stable-4.16",
           "?channel=stable-4.16#arch=s390x", "?channel=nope-1.0&channel=stable-4.16", "?channel=stable-4.16&arch",
           "?channel=stable-4.16;arch=s390x", "?%63hannel=stable-4.16", "?channel=stable-4.16&%61rch=s390x",
           "?channel=%2e%2e", "?channel=stable-4.16%2Famd64", "?channel=caf%C3%A9", "?channel=%FF",
           "?arch=s390x&channel=eus-4.16&id=01234567-89ab-cdef-0123-456789abcdef&version=4.16.0",
           "?%63%68%61%6E%6e%65%6C=eus-4.16&ar%63h=multi", "?channel=stable-4.16&%61rch=s390x&arch=amd64",
           "?%2563hannel=stable-4.16", "?channel%3Dstable-4.16", "?channel+=stable-4.16", "?%63hannel",
           "?CHANNEL=stable-4.16", "?channel=stable-4.16&%41rch=s390x"]
# Caching: Accept-Encoding and validators ("@etag:<file>", "@gzetag:<file>", "@date:<file>"
# stand for the file's own, filled in from the site when the request is sent).
GRAPH_FILE = f"{V1}/stable-4.16/amd64.json"
ENCODINGS = ["gzip", "gzip, deflate, br", "deflate", "gzip;q=0", "gzip; q=0.5", "GZIP", "x-gzip", "*",
             "identity", "br;q=1.0, gzip;q=0.8"]
VALIDATORS = [("If-None-Match", f"@etag:{GRAPH_FILE}"), ("If-None-Match", f"@gzetag:{GRAPH_FILE}"),
              ("If-None-Match", f'W/@etag:{GRAPH_FILE}'), ("If-None-Match", f'"x", @etag:{GRAPH_FILE}'),
              ("If-None-Match", '"0-0"'), ("If-None-Match", "*"), ("If-Modified-Since", f"@date:{GRAPH_FILE}"),
              ("If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"), ("If-Modified-Since", "not a date")]
# Pages and what they load, precompressed by the build (favicon.svg is below the size
# threshold: no .gz, sent as it is by both); '/' is index.html through nginx's index module.
PAGES = {"/": "file", "/index.html": "file", "/planner.html": "file", "/assets/site.css": "file",
         "/assets/planner.js": "file", "/assets/favicon.svg": "file", "/data/payloads.json": "file",
         "/data/planner-amd64.json": "file", "/channels/": "directory"}
CACHED_TARGETS = {f"/{V1}?channel=stable-4.16": "endpoint", f"/{V1}?channel=nope-1.0": "endpoint",
                  f"/{GRAPH_FILE}": "file", f"/{V1}/index.json": "file", "/api/upgrades_info/graph-data": "file",
                  "/deploy/nginx/site-gen.conf": "file", f"/{V1}/stable-4.16": "directory", **PAGES}
# Range requests, read as nginx reads them; the comment says what nginx answers.
RANGES = ["bytes=0-9", "bytes=10-", "bytes=-5", "bytes=0-", "bytes=0-99999999",  # 206
          "bytes= 0 - 3 ", "BYTES=2-4", "bytes=5-2,0-1", "bytes=-0,1-1",  # 206
          "items=0-1", "bytes=", "bytes=0-99999999,0-1",  # 200, the whole file
          "bytes=99999999-", "bytes=5-2", "bytes=-0", "bytes=abc", "bytes=1-x", "bytes=0-1;"]  # 416
MULTIPART = ["bytes=0-1,4-5", "bytes=0-0,-1"]  # 206 multipart/byteranges from nginx only
RANGE_TARGETS = {f"/{GRAPH_FILE}": "file", f"/{V1}?channel=stable-4.16": "endpoint",
                 f"/{V1}?channel=nope-1.0": "endpoint", "/api/upgrades_info/graph-data": "file",
                 "/planner.html": "file", "/": "file", "/missing.html": "missing"}
IF_RANGES = [f"@etag:{GRAPH_FILE}", '"0-0"', f"@date:{GRAPH_FILE}", "Thu, 01 Jan 1970 00:00:00 GMT",
             f"W/@etag:{GRAPH_FILE}"]


def query(channel: str | None, arch: str | None) -> str:
    pairs = [f"{key}={value}" for key, value in (("channel", channel), ("arch", arch)) if value is not None]
    return "?" + "&".join(pairs) if pairs else ""


def probes() -> list[Probe]:
    """Every channel × arch, every Accept and method on a few requests, path and query
    tricks; the Origin header on every other request."""
    found = []
    for channel, arch in itertools.product(CHANNELS, ARCHES):
        found.append(("endpoint", "GET", f"/{V1}{query(channel, arch)}", (("Accept", JSON),)))
    for accept, target in itertools.product(ACCEPTS, ["?channel=stable-4.16&arch=multi", "?channel=nope-1.0",
                                                      "?channel=A", ""]):
        found.append(("endpoint", "GET", f"/{V1}{target}", () if accept is None else (("Accept", accept),)))
    for method, (target, kind) in itertools.product(METHODS, TARGETS.items()):
        malformed = method.upper() != method  # nginx takes only capitals, '_' and '-'
        found.append(("malformed" if malformed else kind, method, target, (("Accept", JSON),)))
    for path, kind in PATHS.items():
        found.append((kind, "GET", f"{path}?channel=stable-4.16&arch=s390x", (("Accept", "*/*"),)))
    for target in QUERIES:
        found.append(("endpoint", "GET", f"/{V1}{target}", (("Accept", VND),)))
        found.append(("endpoint", "HEAD", f"/{V1}{target}", ()))
    for (target, kind), encoding in itertools.product(CACHED_TARGETS.items(), ENCODINGS):
        found.append((kind, "GET", target, (("Accept", JSON), ("Accept-Encoding", encoding))))
    for (target, kind), validator, encoding in itertools.product(CACHED_TARGETS.items(), VALIDATORS, [None, "gzip"]):
        encoded = () if encoding is None else (("Accept-Encoding", encoding),)
        found.append((kind, "GET", target, (validator, *encoded)))
        found.append((kind, "HEAD", target, (validator, *encoded)))
    for (target, kind), encoding, method in itertools.product(PAGES.items(), ["gzip", None], ["GET", "HEAD"]):
        encoded = () if encoding is None else (("Accept-Encoding", encoding),)
        found.append((kind, method, target, encoded))
        found.append((kind, method, target, (("If-None-Match", f"@etag:{target.lstrip('/')}"), *encoded)))
        found.append((kind, method, target, (("If-None-Match", f"@gzetag:{target.lstrip('/')}"), *encoded)))
    for (target, kind), byte_range in itertools.product(RANGE_TARGETS.items(), RANGES + MULTIPART):
        found.append((kind, "GET", target, (("Range", byte_range),)))
    for (target, kind), encoding, method in itertools.product(RANGE_TARGETS.items(), ["gzip", None], ["GET", "HEAD"]):
        encoded = () if encoding is None else (("Accept-Encoding", encoding),)
        found.append((kind, method, target, (("Range", "bytes=10-19"), *encoded)))
    for if_range in IF_RANGES:
        found.append(("file", "GET", f"/{GRAPH_FILE}", (("Range", "bytes=0-9"), ("If-Range", if_range))))
    etag_and_date = (("If-None-Match", f"@gzetag:{GRAPH_FILE}"), ("If-Modified-Since", f"@date:{GRAPH_FILE}"))
    found.append(("file", "GET", f"/{GRAPH_FILE}", (*etag_and_date, ("Accept-Encoding", "gzip"))))
    found.append(("file", "GET", f"/{GRAPH_FILE}", (etag_and_date[0], ("If-Modified-Since", "not a date"),
                                                    ("Accept-Encoding", "gzip"))))
    return [Probe(kind, method, target, headers + ((("Origin", ORIGIN),) if number % 2 else ()))
            for number, (kind, method, target, headers) in enumerate(found)]


PROBES = probes()


# -- the documented divergences ----------------------------------------------------------

@dataclass(frozen=True)
class Divergence:
    why: str
    concerns: Callable[[Probe], bool]
    may_differ: frozenset[str]


def _is_query(probe: Probe) -> bool:
    return probe.kind == "endpoint" and probe.method in ("GET", "HEAD")


def _raw_values(probe: Probe) -> list[str]:
    """The values, as sent, of the keys that decode to channel or arch."""
    pairs = [pair.partition("=") for pair in probe.query.partition("#")[0].split("&")]
    return [value for key, _, value in pairs if unquote(key.replace("+", " ")) in ("channel", "arch")]


ANSWER = frozenset({"status", "content-type", "body", "content-encoding", "etag", "last-modified", "cache-control",
                    "content-range", "accept-ranges"})

def _range(probe: Probe) -> str | None:
    return dict(probe.headers).get("Range")


DIVERGENCES = {
    "multipart-ranges": Divergence(
        "several ranges in one request: nginx sends them as multipart/byteranges, site-gen serve "
        "the whole file (200), which RFC 9110 allows",
        lambda p: _range(p) in MULTIPART and p.kind != "missing",
        frozenset({"status", "content-type", "body", "content-range", "accept-ranges"})),
    "unsatisfiable-range-page": Divergence(
        "416 for a range past the end is nginx's own HTML page; site-gen serve answers a line of text. "
        "Under api/ nginx also keeps Cache-Control and sends Access-Control-Allow-Origin twice (its "
        "add_header runs on the 200 before the range filter turns it into a 416, and again on the page)",
        lambda p: _range(p) in RANGES[RANGES.index("bytes=99999999-"):],
        frozenset({"content-type", "body", "cors", "cache-control"})),
    "raw-query": Divergence(
        "nginx matches query keys in any percent-encoding but cannot decode values: a channel or arch "
        "value with a percent-escape or '+' is refused (400, not repeated back), where the engine decodes it",
        lambda p: _is_query(p) and any(char in value for value in _raw_values(p) for char in "%+"),
        ANSWER),
    "blank-accept": Divergence(
        "nginx cannot tell an Accept header that is empty (or only spaces) from none",
        lambda p: _is_query(p) and p.accept is not None and not p.accept.strip(OWS),
        ANSWER),
    "unsafe-value": Divergence(
        "nginx cannot JSON-escape, so a value with a quote or backslash is left out of the message",
        lambda p: _is_query(p) and any(char in p.query for char in '"\\'),
        frozenset({"body"})),
    "nginx-pages": Divergence(
        "error and redirect answers for plain files and directories are nginx's own HTML pages, "
        "and its 405 for them carries no Allow header",
        lambda p: p.kind in ("missing", "directory") or (p.kind == "file" and p.method not in ("GET", "HEAD")),
        frozenset({"content-type", "body", "allow"})),
    "post-to-missing-file": Divergence(
        "nginx answers POST to a plain file that does not exist with 404 (site-gen serve: 405)",
        lambda p: p.kind == "missing" and p.method == "POST",
        frozenset({"status"})),
    "refused-before-configuration": Divergence(
        "nginx refuses TRACE (405) and malformed requests (400) before reading its configuration: "
        "same status, but its own page with no Allow, CORS or Vary headers",
        lambda p: p.method == "TRACE" or p.kind == "malformed",
        frozenset({"content-type", "body", "allow", "cors", "vary", "vary-encoding"})),
}

CORS = ("access-control-allow-origin", "access-control-allow-methods", "access-control-max-age")


CACHING = ("content-encoding", "etag", "last-modified", "cache-control")


def fields(probe: Probe, answer: tuple[int, dict[str, str], bytes]) -> dict[str, object]:
    """What must agree. For HEAD, the Content-Length stands for the body, except for JSON
    errors: those are compared parsed, as nginx writes '$' as \\u0024 (the same text, longer)."""
    status, headers, body = answer
    media = headers.get("content-type")
    if status >= 400 and media == JSON:
        content = orjson.loads(body) if probe.method != "HEAD" else body
    else:
        content = (headers.get("content-length"), body) if probe.method == "HEAD" else body
    vary = {token.strip() for token in headers.get("vary", "").split(",") if token.strip()}
    return {"status": status, "content-type": media, "cors": tuple(headers.get(name) for name in CORS),
            "vary": sorted(vary - {"Accept-Encoding"}), "vary-encoding": "Accept-Encoding" in vary,
            "allow": headers.get("allow"), "body": content, "content-range": headers.get("content-range"),
            "accept-ranges": headers.get("accept-ranges"),
            **{name: headers.get(name) for name in CACHING}}


def filled(headers: tuple[tuple[str, str], ...], site: Path) -> tuple[tuple[str, str], ...]:
    """The probe's headers with its validator placeholders replaced by the file's own
    (a directory's: its index.html's)."""
    def value(text: str) -> str:
        for marker, suffix in (("@etag:", ""), ("@gzetag:", ".gz"), ("@date:", "")):
            if marker in text:
                before, _, path = text.partition(marker)
                path = path + "index.html" if not path or path.endswith("/") else path
                if not (site / (path + suffix)).exists():
                    return before + '"none"'
                state = (site / (path + suffix)).stat()
                made = http_date(int(state.st_mtime)) if marker == "@date:" else etag(int(state.st_mtime),
                                                                                      state.st_size)
                return before + made
        return text
    return tuple((name, value(text)) for name, text in headers)


@pytest.fixture(scope="module")
def builtin(served):  # noqa: F811  (the fixture)
    with builtin_server(served[0]) as server:
        yield server.server_address[1]


@pytest.fixture(scope="module")
def differences(served, builtin):  # noqa: F811  (the fixture)
    """{nginx server: [(probe, {field: (nginx, site-gen serve)})]} for every probe that differs."""
    site, servers, _ = served
    found = {}
    for name in ("at-root", "standalone"):
        port = servers[name][0]
        found[name] = []
        for probe in PROBES:
            headers = filled(probe.headers, site)
            theirs = fields(probe, request(port, probe.method, probe.target, headers))
            ours = fields(probe, request(builtin, probe.method, probe.target, headers))
            differing = {key: (theirs[key], ours[key]) for key in theirs if theirs[key] != ours[key]}
            if differing:
                found[name].append((probe, differing))
            else:
                found.setdefault("agreed", set()).add((theirs["status"], theirs["content-encoding"]))
    return found


def test_both_agree_on_precompressed_and_not_modified_answers(differences):
    """The caching probes are not all excused: both servers gave the same 304s, gzip answers,
    and ranges (416s differ only in the page, an excused divergence)."""
    assert {(304, None), (200, "gzip"), (200, None), (206, None)} <= differences["agreed"]


def test_pages_go_out_precompressed_from_both(served, builtin):  # noqa: F811  (the fixture)
    """A page, script, style or page data asked for with gzip is the build's .gz, from every
    server, with Vary; the same without gzip is the file itself, with Vary too."""
    site, servers, _ = served
    ports = [servers["at-root"][0], servers["standalone"][0], builtin]
    for target in ("/planner.html", "/", "/assets/site.css", "/assets/planner.js", "/data/payloads.json"):
        name = target.lstrip("/") or "index.html"
        for port in ports:
            status, headers, body = request(port, "GET", target, (("Accept-Encoding", "gzip"),))
            assert (status, headers.get("content-encoding"), headers.get("vary")) == (200, "gzip", "Accept-Encoding")
            assert body == (site / f"{name}.gz").read_bytes(), (port, target)
            status, headers, body = request(port, "GET", target)
            assert (status, "content-encoding" in headers, headers.get("vary")) == (200, False, "Accept-Encoding")
            assert body == (site / name).read_bytes(), (port, target)


LIMITS = [  # (raw request, what nginx answers)
    (b"GET /" + b"a" * (MAX_LINE - len("GET / HTTP/1.1")) + b" HTTP/1.1\r\nHost: x\r\n\r\n", 404),
    (b"GET /" + b"a" * (MAX_LINE + 1 - len("GET / HTTP/1.1")) + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"y" * (MAX_LINE - 3) + b"\r\n\r\n", 200),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"y" * (MAX_LINE - 2) + b"\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X%d: " % i + b"y" * 8000 + b"\r\n" for i in range(3))
     + b"\r\n", 200),
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X%d: " % i + b"y" * 8000 + b"\r\n" for i in range(5))
     + b"\r\n", 400),
    (b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    (b"GET / HTTP/1.1\r\n\r\n", 400),  # HTTP/1.1 without Host
    (b"GET / HTTP/1.0\r\n\r\n", 200),
]


@pytest.mark.parametrize("data, status", LIMITS, ids=range(len(LIMITS)))
def test_size_limits_and_malformed_heads_get_nginx_statuses(served, builtin, data, status):  # noqa: F811
    nginx_port = served[1]["standalone"][0]
    data = data.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1) if b"Host" in data else data
    assert split_response(raw_request(nginx_port, data))[0] == status
    assert split_response(raw_request(builtin, data))[0] == status


def test_the_matrix_is_large_and_varied():
    assert len(PROBES) > 300
    assert {probe.kind for probe in PROBES} == {"endpoint", "file", "directory", "missing", "malformed"}
    assert sum(1 for probe in PROBES if dict(probe.headers).get("Origin")) * 2 >= len(PROBES) - 1


@pytest.mark.parametrize("server", ["at-root", "standalone"])
def test_both_servers_answer_alike_but_for_the_documented_divergences(differences, server):
    unexplained = []
    for probe, differing in differences[server]:
        allowed = set().union(*(d.may_differ for d in DIVERGENCES.values() if d.concerns(probe)))
        if set(differing) - allowed:
            unexplained.append(f"{probe}: " + "; ".join(
                f"{key}: nginx {theirs!r:.120} / site-gen serve {ours!r:.120}"
                for key, (theirs, ours) in differing.items() if key not in allowed))
    assert not unexplained, "\n".join(unexplained)


@pytest.mark.parametrize("name", DIVERGENCES)
def test_every_listed_divergence_is_real(differences, name):
    """A divergence nginx no longer shows must leave the list (and docs/serving.md)."""
    divergence = DIVERGENCES[name]
    assert any(divergence.concerns(probe) and set(differing) & divergence.may_differ
               for probe, differing in differences["standalone"]), divergence.why
