"""The HTTP behaviour every server of a built site must show: nginx with the generated
configuration and ``site-gen serve`` alike, over real sockets.

Each case is one request and what must come back. Graph bodies are compared byte for
byte with the files of the built example site; error bodies with the policy engine's
``{"kind", "value"}`` (spec §7.3).
"""

from __future__ import annotations

import http.client
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson

from site_gen.cli import main
from site_gen.server.httpd import SiteServer

from conftest import EXAMPLE

JSON = "application/json"
VND = "application/vnd.redhat.cincinnati.v1+json"
TEXT = "text/plain; charset=utf-8"
EMPTY = b'{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}'
CHANNEL_REGEX = r"^[0-9a-z\-\.]+$"
ARCH_REGEX = r"^[0-9a-z]+$"
SIGNATURE = "sha256=44634b61b09fef38bf46505eab67331cbebb51d7624a20b8c6c4caeaea1e7935/signature-2"
SECRET = b"site-gen test secret: must never be served"
ORIGIN = "https://console.example.com"


def build_example(root: Path, html: bool = False) -> Path:
    """The example site at ROOT/www/updates (with its pages if ``html``), and a secret file
    at ROOT/secret.txt that no request may reach (two levels above the site)."""
    site = root / "www" / "updates"
    assert main(["--graph-data", str(EXAMPLE), "--out", str(site), "-q", *(() if html else ("--no-html",))]) == 0
    (root / "secret.txt").write_bytes(SECRET)
    return site


@contextmanager
def builtin_server(site: Path, **options) -> Iterator[SiteServer]:
    """``site-gen serve``'s server for ``site`` on a free loopback port, in a thread."""
    server = SiteServer(("127.0.0.1", 0), site, quiet=True, **options)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def mismatch(name: str, value: str) -> str:
    regex = CHANNEL_REGEX if name == "channel" else ARCH_REGEX
    return f"invalid client parameters: {name} '{value}' does not match regex '{regex}'"


@dataclass(frozen=True)
class Case:
    id: str
    target: str  # relative to the site's URL path
    status: int
    body: str | None = None  # "graph:<channel>/<arch>", "empty", "file:<path in site>", "text:<text>", "nothing"
    media: str | None = None  # the exact Content-Type
    error: tuple[str, str | None] | None = None  # (kind, value); value None: servers word it differently
    headers: tuple[tuple[str, str], ...] = (("Accept", JSON),)
    method: str = "GET"
    expect_headers: tuple[tuple[str, str], ...] = ()
    length_of: str | None = None  # a body spec whose length the Content-Length must be (HEAD)


def graph(target: str, channel: str, arch: str = "amd64", media: str = JSON, **extra) -> dict:
    return {"target": target, "status": 200, "body": f"graph:{channel}/{arch}", "media": media, **extra}


V1 = "api/upgrades_info/v1/graph"
V0 = "api/upgrades_info/graph"
LONG = "a" * 256

CASES = [
    Case("valid", **graph(f"{V1}?channel=stable-4.16&arch=amd64", "stable-4.16")),
    Case("default-arch", **graph(f"{V1}?channel=stable-4.16", "stable-4.16")),
    Case("unversioned-endpoint", **graph(f"{V0}?channel=candidate-4.15&arch=arm64", "candidate-4.15", "arm64")),
    Case("s390x", **graph(f"{V1}?channel=stable-4.15&arch=s390x", "stable-4.15", "s390x")),
    Case("multi", **graph(f"{V1}?arch=multi&channel=eus-4.16", "eus-4.16", "multi")),
    Case("cluster-query", **graph(f"{V1}?arch=amd64&channel=fast-4.16&id=01234567-89ab-cdef-0123-456789abcdef"
                                  "&version=4.16.0", "fast-4.16")),
    # oc-mirror with UPDATE_URL_OVERRIDE (internal/pkg/cincinnati/download.go): no version when it has none
    Case("oc-mirror-query", **graph(f"{V1}?arch=arm64&channel=stable-4.16&id=01234567-89ab-cdef-0123-456789abcdef",
                                    "stable-4.16", "arm64")),
    Case("last-repeated-key-wins", **graph(f"{V1}?channel=nope-1.0&channel=stable-4.14", "stable-4.14")),
    # Keys are percent-decoded, as the engine's query map decodes them (issue 9: %61rch).
    Case("encoded-arch-key", **graph(f"{V1}?channel=stable-4.15&%61rch=s390x", "stable-4.15", "s390x")),
    Case("encoded-channel-key", **graph(f"{V1}?%63%68%61%6E%6e%65%6C=eus-4.16&ar%63h=multi", "eus-4.16", "multi")),
    Case("encoded-key-last-wins", **graph(f"{V1}?channel=stable-4.16&%61rch=s390x&arch=amd64", "stable-4.16")),
    Case("double-encoded-key-is-no-key", f"{V1}?%2563hannel=stable-4.16", 400,
         error=("missing_params", "mandatory client parameters missing: channel")),
    Case("encoded-equals-is-part-of-the-key", f"{V1}?channel%3Dstable-4.16", 400,
         error=("missing_params", "mandatory client parameters missing: channel")),
    Case("missing-channel", f"{V1}", 400, error=("missing_params", "mandatory client parameters missing: channel")),
    Case("missing-channel-other-params", f"{V1}?arch=amd64&version=4.16.0", 400,
         error=("missing_params", "mandatory client parameters missing: channel")),
    Case("empty-channel", f"{V1}?channel=", 400, error=("invalid_params", mismatch("channel", ""))),
    Case("channel-key-only", f"{V1}?channel&arch=amd64", 400, error=("invalid_params", mismatch("channel", ""))),
    Case("invalid-channel", f"{V1}?channel=Stable-4.16", 400,
         error=("invalid_params", mismatch("channel", "Stable-4.16"))),
    Case("invalid-arch", f"{V1}?channel=stable-4.16&arch=x86_64", 400,
         error=("invalid_params", mismatch("arch", "x86_64"))),
    Case("empty-arch", f"{V1}?channel=stable-4.16&arch=", 400, error=("invalid_params", mismatch("arch", ""))),
    Case("channel-checked-before-arch", f"{V1}?arch=x86_64&channel=a_b", 400,
         error=("invalid_params", mismatch("channel", "a_b"))),
    Case("unknown-channel", f"{V1}?channel=stable-9.99", 200, body="empty", media=JSON),
    Case("unknown-arch", f"{V1}?channel=stable-4.16&arch=ppc64le", 200, body="empty", media=JSON),
    Case("unknown-channel-named-like-a-file", f"{V1}?channel=empty.json", 200, body="empty", media=JSON),
    Case("unknown-channel-named-like-the-index", f"{V1}?channel=index.json&arch=amd64", 200, body="empty",
         media=JSON),
    # Accept negotiation: the whole header value is compared as one string.
    Case("no-accept-is-vnd", **graph(f"{V1}?channel=stable-4.16", "stable-4.16", media=VND, headers=())),
    Case("accept-vnd", **graph(f"{V1}?channel=stable-4.16", "stable-4.16", media=VND, headers=(("Accept", VND),))),
    Case("accept-any", **graph(f"{V1}?channel=stable-4.16", "stable-4.16", headers=(("Accept", "*/*"),))),
    Case("accept-star", **graph(f"{V1}?channel=stable-4.16", "stable-4.16", headers=(("Accept", "*"),))),
    Case("accept-application-any", **graph(f"{V1}?channel=stable-4.16", "stable-4.16",
                                           headers=(("Accept", "application/*"),))),
    Case("accept-vnd-unknown-channel", f"{V1}?channel=nope-4.16", 200, body="empty", media=VND,
         headers=(("Accept", VND),)),
    Case("accept-other", f"{V1}?channel=stable-4.16", 406, headers=(("Accept", "text/html"),),
         error=("invalid_content_type", "invalid Content-Type requested")),
    Case("accept-list", f"{V1}?channel=stable-4.16", 406, headers=(("Accept", "application/json, text/plain"),),
         error=("invalid_content_type", "invalid Content-Type requested")),
    Case("accept-parameter", f"{V1}?channel=stable-4.16", 406,
         headers=(("Accept", "application/json; charset=utf-8"),),
         error=("invalid_content_type", "invalid Content-Type requested")),
    Case("accept-checked-before-params", f"{V1}", 406, headers=(("Accept", "text/plain"),),
         error=("invalid_content_type", "invalid Content-Type requested")),
    # CORS, as the policy engine: the origin is echoed, on errors too.
    Case("cors-echo", **graph(f"{V1}?channel=stable-4.16", "stable-4.16",
                              headers=(("Accept", JSON), ("Origin", ORIGIN)),
                              expect_headers=(("access-control-allow-origin", ORIGIN),))),
    Case("cors-echo-on-error", f"{V1}?channel=A", 400, error=("invalid_params", mismatch("channel", "A")),
         headers=(("Origin", ORIGIN),), expect_headers=(("access-control-allow-origin", ORIGIN),)),
    Case("cors-preflight", f"{V1}?channel=stable-4.16", 204, body="nothing", method="OPTIONS",
         headers=(("Origin", ORIGIN), ("Access-Control-Request-Method", "GET")),
         expect_headers=(("access-control-allow-origin", ORIGIN),
                         ("access-control-allow-methods", "GET, HEAD"))),
    Case("cors-static-graph", f"{V1}/stable-4.16/amd64.json", 200, body="graph:stable-4.16/amd64", media=JSON,
         headers=(("Origin", ORIGIN),), expect_headers=(("access-control-allow-origin", ORIGIN),)),
    Case("post-not-allowed", f"{V1}?channel=stable-4.16", 405, body="text:method not allowed\n", media=TEXT,
         method="POST", expect_headers=(("allow", "GET, HEAD, OPTIONS"),)),
    Case("unknown-method-not-allowed", f"{V1}?channel=stable-4.16", 405, body="text:method not allowed\n",
         media=TEXT, method="FOO", headers=(("Origin", ORIGIN),),
         expect_headers=(("allow", "GET, HEAD, OPTIONS"), ("access-control-allow-origin", ORIGIN))),
    Case("delete-not-allowed", f"{V1}?channel=stable-4.16", 405, body="text:method not allowed\n", media=TEXT,
         method="DELETE", expect_headers=(("allow", "GET, HEAD, OPTIONS"),)),
    Case("lowercase-method-is-malformed", f"{V1}?channel=stable-4.16", 400, method="get"),
    Case("method-on-a-file-not-allowed", f"{V1}/index.json", 405, method="PUT", headers=(("Origin", ORIGIN),),
         expect_headers=(("access-control-allow-origin", ORIGIN),)),
    # The whitespace around a header value is not part of it.
    Case("accept-surrounded-by-spaces", **graph(f"{V1}?channel=stable-4.16", "stable-4.16",
                                                headers=(("Accept", " application/json "),))),
    Case("accept-surrounded-by-tabs", **graph(f"{V1}?channel=stable-4.16", "stable-4.16", media=VND,
                                              headers=(("Accept", f"\t{VND}\t"),))),
    Case("accept-inner-space-is-not-whitespace", f"{V1}?channel=stable-4.16", 406,
         headers=(("Accept", "application/ json"),),
         error=("invalid_content_type", "invalid Content-Type requested")),
    Case("head", f"{V1}?channel=stable-4.16&arch=multi", 200, body="nothing", media=JSON, method="HEAD",
         length_of="graph:stable-4.16/multi"),
    Case("head-empty-graph", f"{V1}?channel=nope-1.0", 200, body="nothing", media=VND, method="HEAD",
         headers=(), length_of="empty"),
    # Direct file URLs and the mirror files.
    Case("direct-file", f"{V1}/candidate-4.16/arm64.json", 200, body="graph:candidate-4.16/arm64", media=JSON),
    Case("index", f"{V1}/index.json", 200, body=f"file:{V1}/index.json", media=JSON),
    Case("signature", f"signatures/{SIGNATURE}", 200, body=f"file:signatures/{SIGNATURE}"),
    Case("signature-encoded-equals", "signatures/" + SIGNATURE.replace("=", "%3D"), 200,
         body=f"file:signatures/{SIGNATURE}"),
    Case("graph-data-tarball", "api/upgrades_info/graph-data", 200, body="file:api/upgrades_info/graph-data"),
    # Range requests, as nginx's range filter: one range, the file as it is on disk.
    Case("range", f"{V1}/stable-4.16/amd64.json", 206, body='text:{"version"', headers=(("Range", "bytes=0-9"),)),
    Case("range-of-a-query", f"{V1}?channel=stable-4.16", 206, body='text:{"version"',
         headers=(("Range", "bytes=0-9"), ("Accept", JSON))),
    Case("range-past-the-end", f"{V1}/stable-4.16/amd64.json", 416, headers=(("Range", "bytes=99999999-"),)),
    Case("range-if-range-stale", **graph(f"{V1}/stable-4.16/amd64.json", "stable-4.16",
                                         headers=(("Range", "bytes=0-9"), ("If-Range", '"0-0"')),
                                         expect_headers=(("accept-ranges", "bytes"),))),
    Case("range-ignored-for-gzip", f"{V1}/stable-4.16/amd64.json", 200,
         body="file:" + f"{V1}/stable-4.16/amd64.json.gz",
         headers=(("Range", "bytes=0-9"), ("Accept-Encoding", "gzip")),
         expect_headers=(("content-encoding", "gzip"),)),
    Case("missing-file", f"{V1}/stable-4.16/ppc64le.json", 404),
    Case("directory-without-index", f"{V1}/stable-4.16/", 403),
    # The path is normalized as nginx does it before anything is looked up.
    Case("dot-segments-resolved", **graph("api/upgrades_info/graph/../v1/./graph?channel=stable-4.16",
                                          "stable-4.16")),
    Case("encoded-slash-is-a-slash", **graph("api%2Fupgrades_info/v1%2fgraph?channel=stable-4.16", "stable-4.16")),
    Case("merged-slashes", **graph("api//upgrades_info/v1///graph?channel=stable-4.16", "stable-4.16")),
    Case("fragment-ignored", **graph(f"{V1}?channel=stable-4.16#arch=s390x", "stable-4.16")),
    # Path tricks in the query never reach a file: the engine's 400.
    Case("query-dot-dot", f"{V1}?channel=..", 400, error=("invalid_params", None)),
    Case("query-dot", f"{V1}?channel=.&arch=amd64", 400, error=("invalid_params", None)),
    Case("query-traversal", f"{V1}?channel=../../secret.txt", 400,
         error=("invalid_params", mismatch("channel", "../../secret.txt"))),
    Case("query-encoded-dots", f"{V1}?channel=%2e%2e", 400, error=("invalid_params", None)),
    Case("query-encoded-slash", f"{V1}?channel=stable-4.16%2Famd64", 400, error=("invalid_params", None)),
    Case("query-nul", f"{V1}?channel=stable-4.16%00", 400, error=("invalid_params", None)),
    Case("query-arch-traversal", f"{V1}?channel=stable-4.16&arch=..%2F..%2F..%2Fsecret", 400,
         error=("invalid_params", None)),
    Case("query-channel-too-long", f"{V1}?channel={LONG}", 400,
         error=("invalid_params", "invalid client parameters: channel is longer than 255 characters")),
    Case("query-arch-too-long", f"{V1}?channel=stable-4.16&arch={LONG}", 400,
         error=("invalid_params", "invalid client parameters: arch is longer than 255 characters")),
]

# Paths that try to leave the site: never the secret beside it, always an error.
ESCAPES = [
    "../../secret.txt",
    "%2e%2e/%2e%2e/secret.txt",
    "..%2f..%2fsecret.txt",
    "api/../../../secret.txt",
    f"{V1}/..%2f..%2f..%2f..%2f..%2f..%2fsecret.txt",
    "%2e%2e%2f%2e%2e%2fsecret.txt",
    "api%00/../../../secret.txt",
    "../../../../../../../../etc/passwd",
]


def request(port: int, method: str, target: str, headers=(), timeout: float = 10.0):
    """(status, {lower-case header: value}, body) of one request on its own connection; a
    header sent more than once has its values joined with ", ", as HTTP reads it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in headers:
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        received: dict[str, str] = {}
        for name, value in response.getheaders():
            received[name.lower()] = f"{received[name.lower()]}, {value}" if name.lower() in received else value
        return response.status, received, response.read()
    finally:
        connection.close()


def raw_request(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send bytes as they are (no client-side checks) and read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(data)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


def split_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def expected_body(spec: str, site: Path) -> bytes:
    kind, _, rest = spec.partition(":")
    if kind == "graph":
        return (site / V1 / f"{rest}.json").read_bytes()
    if kind == "file":
        return (site / rest).read_bytes()
    if kind == "text":
        return rest.encode()
    return {"empty": EMPTY, "nothing": b""}[kind]


def check_case(port: int, prefix: str, case: Case, site: Path) -> None:
    status, headers, body = request(port, case.method, f"{prefix}/{case.target}", case.headers)
    assert status == case.status, (case.id, status, body[:300])
    if case.body is not None:
        assert body == expected_body(case.body, site), (case.id, body[:300])
    if case.media is not None:
        assert headers.get("content-type") == case.media, (case.id, headers)
    if case.error is not None:
        kind, value = case.error
        assert headers.get("content-type") == JSON, (case.id, headers)
        document = orjson.loads(body)
        assert document["kind"] == kind and set(document) == {"kind", "value"}, (case.id, document)
        if value is not None:
            assert document["value"] == value, (case.id, document)
    for name, value in case.expect_headers:
        assert headers.get(name) == value, (case.id, name, headers)
    if case.length_of is not None:
        assert int(headers["content-length"]) == len(expected_body(case.length_of, site)), (case.id, headers)


def check_escape(port: int, prefix: str, target: str) -> None:
    status, _, body = request(port, "GET", f"{prefix}/{target}")
    assert status in (400, 404), (target, status, body[:200])
    assert SECRET not in body and b"root:" not in body, target


def wait_for_port(port: int, process=None, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {timeout} s")


def interruptible() -> None:
    """For ``preexec_fn`` of a server the test stops with Ctrl-C (SIGINT). A shell without job
    control starts background commands with SIGINT ignored, and Python keeps an ignored SIGINT
    ignored, so without this the server would not stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
