"""The threaded HTTP server behind ``site-gen serve``.

One thread per connection and at most ``max_connections`` of them: a client beyond
that gets a 503 at once instead of a thread. Each request head must arrive within
``request_timeout`` seconds in total, however slowly its bytes trickle in, an idle
keep-alive connection is closed after the same time, and each answer must be taken
within ``send_timeout`` seconds in total, however slowly the client reads: slow
clients cannot pin the server. Malformed requests get a 4xx; an unexpected error
costs a 500 on that connection, never the server.
"""

from __future__ import annotations

import io
import math
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .policy_http import Reply, plan
from .static_files import SiteFiles, resolve

BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_BODY_HEADERS = ("Content-Length", "Transfer-Encoding")


class _DeadlineSocket(io.RawIOBase):
    """Socket reads and writes that fail once the current deadline has passed: a per-call
    timeout would let a client that moves a few bytes at a time hold its thread forever."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.deadline = math.inf

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def _remaining(self) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the deadline has passed")
        return remaining

    def readinto(self, buffer) -> int:
        self.sock.settimeout(self._remaining())
        return self.sock.recv_into(buffer)

    def write(self, data) -> int:
        self.sock.settimeout(self._remaining())
        self.sock.sendall(data)  # the timeout bounds the whole call, not each send inside it
        with memoryview(data) as view:
            return view.nbytes


class SiteRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as clients polling graphs expect
    default_request_version = "HTTP/1.0"  # errors in a garbled request line still get a status line
    server_version = "site-gen"
    # Headers and body leave in two writes; with Nagle's algorithm the body would wait for
    # the client's delayed ACK of the headers, some 40 ms per answer on a kept-alive connection.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # both replaced by one that enforces the current deadline
        self.wfile.close()
        self.stream = _DeadlineSocket(self.connection)
        self.rfile = io.BufferedReader(self.stream)
        self.wfile = self.stream

    def handle_one_request(self) -> None:
        self.stream.deadline = time.monotonic() + self.server.request_timeout
        super().handle_one_request()

    def __getattr__(self, name: str):
        """Every method goes to ``answer`` (405 for most), where http.server would send 501
        with its own HTML page for any method without a ``do_`` handler."""
        if name.startswith("do_"):
            return self.answer
        raise AttributeError(name)

    def answer(self) -> None:
        try:
            reply = resolve(plan(self.command, self.path, self.headers), self.server.site)
        except Exception:  # a bug must cost one response, not the server
            self.log_error("internal error answering %r:\n%s", self.path, traceback.format_exc())
            reply = Reply(500, (("Content-Type", "text/plain; charset=utf-8"),), b"internal error\n")
        if self.command not in ("GET", "HEAD", "OPTIONS") or any(self.headers.get(h) for h in _BODY_HEADERS):
            self.close_connection = True  # an unread request body must not be taken for the next request
        self.send_reply(reply)

    def send_reply(self, reply: Reply) -> None:
        self.stream.deadline = time.monotonic() + self.server.send_timeout  # for the whole answer
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.status not in (204, 304):
            self.send_header("Content-Length", str(len(reply.body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and reply.body:
            self.wfile.write(reply.body)

    def version_string(self) -> str:
        return self.server_version  # no Python version for the world to see

    def log_request(self, code="-", size="-") -> None:
        if not self.server.quiet:
            super().log_request(code, size)


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # listen backlog; socketserver's 5 drops connection bursts

    def __init__(self, address: tuple[str, int], root: Path, *, max_connections: int = 128,
                 request_timeout: float = 10.0, send_timeout: float = 30.0, quiet: bool = False):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.site = SiteFiles(root)
        self.request_timeout = request_timeout
        self.send_timeout = send_timeout
        self.quiet = quiet
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, SiteRequestHandler)

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def _refuse(self, request: socket.socket) -> None:
        try:
            request.settimeout(1.0)
            request.sendall(BUSY)
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # resets, broken pipes, timeouts: the client's doing
            if not self.quiet:
                print(f"{client_address[0]} - connection dropped: {error}", file=sys.stderr)
            return
        super().handle_error(request, client_address)
