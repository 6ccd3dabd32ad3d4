"""A fault-injecting HTTPS proxy on loopback in front of a real docker-registry.

It forwards every request to the registry and answers it as the registry did, except
for the paths a test gives a fault: a status code, a replaced or bit-flipped body, a
body larger than any manifest, or no answer at all. It counts what it sends, so a test
can see how much of a huge body the client downloaded before it gave up. The client
sees the registry's own behaviour everywhere else (auth-less TLS, 304s, digests).
"""

from __future__ import annotations

import http.client
import http.server
import re
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from registry_server import Certificates, Registry, free_port

Upstream = tuple[int, dict[str, str], bytes]
HUGE_CHUNK = 1 << 16


@dataclass
class Fault:
    path: re.Pattern[str]
    respond: Callable[[Upstream], Upstream] | None = None  # rewrite the registry's answer
    status: int | None = None                              # answer this instead, every time
    huge: int = 0                                          # stream this many bytes instead
    content_length: bool = True                            # ... announcing them up front
    hang: float = 0.0                                      # sleep this long before answering
    hits: int = 0
    sent: int = 0                                          # body bytes written (huge)


def flip_bit(position: int) -> Callable[[Upstream], Upstream]:
    """The registry's body with one bit flipped (negative: from the end)."""
    def respond(upstream: Upstream) -> Upstream:
        status, headers, body = upstream
        changed = bytearray(body)
        changed[position] ^= 0x01
        return status, headers, bytes(changed)
    return respond


def replace_body(body: bytes) -> Callable[[Upstream], Upstream]:
    def respond(upstream: Upstream) -> Upstream:
        return upstream[0], upstream[1], body
    return respond


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # a client that hangs up mid-answer is what the faults provoke, not news


class FaultProxy:
    """HTTPS on 127.0.0.1:<free port> (the registry's certificate), forwarding to ``registry``."""

    def __init__(self, registry: Registry):
        self.registry = registry
        self.certs: Certificates = registry.certs
        self.port = free_port()
        self.host_port = f"127.0.0.1:{self.port}"
        self.faults: list[Fault] = []
        upstream_tls = ssl.create_default_context(cafile=str(registry.certs.ca))
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                fault = next((f for f in proxy.faults if f.path.search(self.path)), None)
                if fault is not None:
                    fault.hits += 1
                    if fault.hang:
                        time.sleep(fault.hang)
                    if fault.huge:
                        return self.stream_huge(fault)
                    if fault.status is not None:
                        return self.answer(fault.status, {"Content-Type": "text/plain"}, b"injected fault\n")
                status, headers, body = self.forward()
                if fault is not None and fault.respond is not None:
                    status, headers, body = fault.respond((status, headers, body))
                self.answer(status, headers, body)

            def forward(self) -> Upstream:
                connection = http.client.HTTPSConnection("127.0.0.1", proxy.registry.port, context=upstream_tls,
                                                         timeout=30)
                try:
                    passed = {k: v for k, v in self.headers.items()
                              if k.lower() in ("accept", "if-none-match", "authorization")}
                    connection.request("GET", self.path, headers=passed)
                    response = connection.getresponse()
                    body = response.read()
                    keep = ("content-type", "docker-content-digest", "docker-distribution-api-version",
                            "www-authenticate", "etag", "link", "location")
                    return response.status, {k: v for k, v in response.getheaders() if k.lower() in keep}, body
                finally:
                    connection.close()

            def answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def stream_huge(self, fault: Fault) -> None:
                """A manifest-typed body of ``fault.huge`` bytes, until the client hangs up."""
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.docker.distribution.manifest.v2+json")
                if fault.content_length:
                    self.send_header("Content-Length", str(fault.huge))
                else:
                    self.send_header("Connection", "close")  # the body ends when the connection does
                    self.close_connection = True
                self.end_headers()
                chunk = b" " * HUGE_CHUNK
                try:
                    while fault.sent < fault.huge:
                        piece = chunk[:fault.huge - fault.sent]
                        self.wfile.write(piece)
                        fault.sent += len(piece)
                except OSError:
                    self.close_connection = True

        self.httpd = _QuietServer(("127.0.0.1", self.port), Handler)
        self.httpd.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(self.certs.cert), str(self.certs.key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def fault(self, path: str, **how) -> Fault:
        """Inject a fault on every GET whose path matches the regular expression ``path``."""
        fault = Fault(re.compile(path), **how)
        self.faults.append(fault)
        return fault

    def clear(self) -> None:
        self.faults.clear()

    def docker_reference(self, repository: str) -> str:
        return f"docker://{self.host_port}/{repository}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
