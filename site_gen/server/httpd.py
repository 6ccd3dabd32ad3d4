"""The HTTP/1.1 server behind ``site-gen serve``: one asyncio event loop, no thread per client.

A connection costs a few hundred bytes of state, not a thread, so hundreds of clients that
trickle bytes or never finish their request cannot crowd out the others: at most
``max_connections`` are open at once (a client beyond that gets a 503 at once), each request
head must arrive within ``request_timeout`` seconds in total however slowly its bytes come,
an idle keep-alive connection is closed after the same time, and each answer must be taken
within ``send_timeout`` seconds in total however slowly the client reads. Requests are
answered as they complete, in order (pipelining works); while a client does not take its
answer, nothing more is read from it. A connection that ends with an answer ends as nginx's
do (a lingering close): a FIN after the answer, then what the client still sends is read and
dropped until it closes, for ``linger`` seconds at most, so that a client still sending (a
refused request line, a body) gets its answer rather than a reset. Malformed requests get a
4xx; an unexpected error costs a 500 on that connection, never the server. Files are read
with a non-blocking open and only when regular (static_files), so nothing in the site can
stall the loop.
"""

from __future__ import annotations

import asyncio
import re
import resource
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path

from ..event_loop import loop_factory
from .conditional import http_date
from .policy_http import TEXT, Reply, plan
from .static_files import SiteFiles, resolve

BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
# nginx's limits with its default large_client_header_buffers (4 8k): a request line or a
# header line must fit in 8 KiB with its line end (else 414, or 400 for a header), the
# whole head in the four buffers (else 400).
MAX_LINE = 8190
MAX_HEAD = 4 * 8192
# How long a connection closing after its answer waits for the client to close, reading and
# dropping what it still sends (nginx's lingering_timeout).
LINGER = 5.0
REFUSED_LINGER = 1.0  # a refused client holds no slot, only a file descriptor: a second is enough
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_LINE_END = re.compile(r"\r?\n")
_BODY_HEADERS = ("content-length", "transfer-encoding")
_NO_BODY = (204, 304)


class RequestHeaders(dict):
    """Header name (lower case) -> the first value sent; looked up in any case."""

    def get(self, name: str, default=None):
        return dict.get(self, name.lower(), default)


class BadRequest(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def parse_head(head: bytes) -> tuple[str, str, tuple[int, int], RequestHeaders]:
    """(method, target, HTTP version, headers) of a request head, or BadRequest."""
    lines = _LINE_END.split(head.decode("iso-8859-1"))
    if len(lines[0]) > MAX_LINE:
        raise BadRequest(414, "request line too long")
    if len(head) > MAX_HEAD:
        raise BadRequest(400, "request head too large")
    words = lines[0].split()
    if len(words) != 3 or not words[2].startswith("HTTP/"):
        raise BadRequest(400, "bad request line")
    method, target, protocol = words
    number = protocol[5:].split(".")
    if len(number) != 2 or not all(part.isdigit() and len(part) <= 10 for part in number):
        raise BadRequest(400, "bad HTTP version")
    version = (int(number[0]), int(number[1]))
    if version >= (2, 0):
        raise BadRequest(505, "HTTP version not supported")
    headers = RequestHeaders()
    name = None
    for line in lines[1:]:
        if len(line) > MAX_LINE:
            raise BadRequest(400, "header line too long")
        if line[:1] in (" ", "\t") and name is not None:  # obsolete line folding
            folded = line.strip(" \t")
            headers[name] = f"{headers[name]} {folded}".strip(" ")
            continue
        key, colon, value = line.partition(":")
        if not colon or not key or key != key.strip(" \t"):
            raise BadRequest(400, "bad header line")
        name = key.lower()
        headers.setdefault(name, value.strip(" \t"))
    return method, target, version, headers


def keep_alive(version: tuple[int, int], headers: RequestHeaders) -> bool:
    """Whether the client keeps the connection: HTTP/1.1 unless it says ``close``, HTTP/1.0
    only when it says ``keep-alive`` (and not ``close`` too: nginx lets close win)."""
    tokens = {token.strip().lower() for token in headers.get("Connection", "").split(",")}
    return "close" not in tokens and ("keep-alive" in tokens or version >= (1, 1))


class _Clock:
    """The Date header, formatted once per second."""

    def __init__(self):
        self.second = -1
        self.text = ""

    def date(self) -> str:
        now = int(time.time())
        if now != self.second:
            self.second, self.text = now, http_date(now)
        return self.text


class _Connection(asyncio.Protocol):
    def __init__(self, server: SiteServer):
        self.server = server
        assert server.loop is not None  # connections exist only while the server's loop runs
        self.loop = server.loop
        self.buffer = bytearray()
        self.scanned = 0  # how far the buffer was searched for the end of a head
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.closing = False
        self.writing_paused = False

    @property
    def live(self) -> asyncio.Transport:
        """The transport, between connection_made and connection_lost (the only time it is used)."""
        assert self.transport is not None
        return self.transport

    # -- the connection's life --------------------------------------------------------

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.peer = (transport.get_extra_info("peername") or ("-",))[0]
        if len(self.server.connections) >= self.server.max_connections:
            transport.write(BUSY)  # then closed as any answer that ends its connection
            self._linger(REFUSED_LINGER)
            return
        self.server.connections.add(self)
        transport.set_write_buffer_limits(high=0)  # told at once when an answer is not taken
        self._expect_head()

    def connection_lost(self, exc) -> None:
        self.closing = True
        self._cancel_timer()
        self.server.connections.discard(self)

    def _expect_head(self) -> None:
        self._arm(self.server.request_timeout)

    def _arm(self, seconds: float, then: Callable[[], None] | None = None) -> None:
        self._cancel_timer()
        self.timer = self.loop.call_later(seconds, then or self._expired)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _expired(self) -> None:
        """The request head or the answer took too long: drop the connection, nothing sent."""
        self.timer = None
        self.closing = True
        self.live.abort()

    # -- flow control: stop reading while the client does not take its answers ------------

    def pause_writing(self) -> None:
        self.writing_paused = True
        self.live.pause_reading()
        self._arm(self.server.send_timeout)

    def resume_writing(self) -> None:
        self.writing_paused = False
        self.live.resume_reading()
        if self.closing:  # the answer is taken: what the client still sends is dropped
            self._arm(self.server.linger, self._lingered)
            return
        self._expect_head()
        self._process()

    # -- requests -------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return
        self.buffer += data
        self._process()

    def _process(self) -> None:
        while not self.closing and not self.writing_paused:
            while self.buffer[:2] == b"\r\n":  # stray line ends between requests
                del self.buffer[:2]
            found = _HEAD_END.search(self.buffer, max(0, self.scanned - 3))
            if found is None:
                self.scanned = len(self.buffer)
                self._check_unfinished()
                return
            head = bytes(self.buffer[:found.start()])
            del self.buffer[:found.end()]
            self.scanned = 0
            self._answer(head)

    def _check_unfinished(self) -> None:
        first_line = self.buffer.find(b"\n")
        if first_line < 0 and len(self.buffer) > MAX_LINE + 1:  # + its '\r'
            self._fail(414, "request line too long")
        elif len(self.buffer) > MAX_HEAD:
            self._fail(400, "request head too large")

    def _fail(self, status: int, message: str, request_line: str = "-") -> None:
        self._send(Reply(status, (("Content-Type", TEXT),), f"{message}\n".encode()), "GET", close=True,
                   request_line=request_line)

    def _answer(self, head: bytes) -> None:
        request_line = head.split(b"\n", 1)[0].decode("iso-8859-1").rstrip("\r")
        try:
            method, target, version, headers = parse_head(head)
        except BadRequest as error:
            self._fail(error.status, str(error), request_line)
            return
        if version >= (1, 1) and headers.get("Host") is None:  # RFC 9112 3.2, as nginx refuses it
            self._fail(400, "no Host header", request_line)
            return
        # An unread request body must never be taken for the next request.
        close = (not keep_alive(version, headers) or method not in ("GET", "HEAD", "OPTIONS")
                 or any(headers.get(name) for name in _BODY_HEADERS))
        try:
            reply = resolve(plan(method, target, headers), self.server.site)
        except Exception:  # a bug must cost one response, not the server
            self.server.log(f"internal error answering {target!r}:\n{traceback.format_exc()}")
            reply = Reply(500, (("Content-Type", TEXT),), b"internal error\n")
        self._send(reply, method, close, request_line)

    def _send(self, reply: Reply, method: str, close: bool, request_line: str) -> None:
        status = reply.status
        lines = [f"HTTP/1.1 {status} {_reason(status)}", "Server: site-gen", f"Date: {self.server.clock.date()}"]
        lines += [f"{name}: {value}" for name, value in reply.headers]
        if status not in _NO_BODY:
            lines.append(f"Content-Length: {len(reply.body)}")
        # Said on every answer, as nginx does: an HTTP/1.0 client keeps the connection only
        # when told so, and otherwise waits for a close that would come after the idle timeout.
        lines.append("Connection: close" if close else "Connection: keep-alive")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
        body = reply.body if method != "HEAD" and status not in _NO_BODY else b""
        self.live.write(head + body if len(body) < 65536 else head)
        if len(body) >= 65536:
            self.live.write(body)  # not copied into one buffer with the head
        if not self.server.quiet:
            self.server.log(f'{self.peer} - - [{self.server.clock.date()}] "{request_line}" {status} '
                            f'{len(body) or "-"}')
        if close:
            self._linger()
        elif not self.writing_paused:
            self._expect_head()

    def _linger(self, seconds: float | None = None) -> None:
        """Close after the answer as nginx does (a lingering close): the answer, then a FIN, and
        what the client still sends read and dropped until it closes (``eof_received``), or
        ``seconds`` (default: the server's ``linger``) after the answer is taken. Closing with
        bytes of the client unread would send a reset instead: the client's read fails, and may
        lose the answer's end."""
        self.closing = True
        if self.writing_paused:  # the answer must be taken within send_timeout, as any
            self._arm(self.server.send_timeout)
        else:
            self._arm(self.server.linger if seconds is None else seconds, self._lingered)
        self.live.write_eof()

    def _lingered(self) -> None:
        """The client had its answer and its time to close: closed here, gracefully (what the
        system still holds of the answer is delivered)."""
        self.timer = None
        self.live.close()


_REASONS = {status.value: status.phrase for status in HTTPStatus}


def _reason(status: int) -> str:
    return _REASONS.get(status, "Unknown")


def _raise_file_limit(needed: int) -> None:
    """Lift the soft limit on open files towards ``needed`` (never above the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass


class SiteServer:
    """``site-gen serve``'s server: bound on creation, serving in ``serve_forever`` until
    ``shutdown`` (from another thread) or Ctrl-C."""

    def __init__(self, address: tuple[str, int], root: Path, *, max_connections: int = 1000,
                 request_timeout: float = 10.0, send_timeout: float = 30.0, linger: float = LINGER,
                 quiet: bool = False):
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(address)
            self.socket.listen(1024)  # bursts of new connections queue rather than fail
        except OSError:
            self.socket.close()
            raise
        self.socket.setblocking(False)
        self.server_address = self.socket.getsockname()
        self.site = SiteFiles(root)
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        self.send_timeout = send_timeout
        self.linger = linger
        self.quiet = quiet
        self.clock = _Clock()
        self.connections: set[_Connection] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Future | None = None
        self._started = threading.Event()
        self._finished = threading.Event()
        _raise_file_limit(max_connections + 64)

    def log(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def serve_forever(self, poll_interval: float | None = None) -> None:
        """Serve until ``shutdown``. (``poll_interval`` is accepted for socketserver's
        signature and not needed: the loop wakes on events.)"""
        try:
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                runner.run(self._serve())
        finally:
            self._finished.set()

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = self.loop.create_future()
        listener = await self.loop.create_server(lambda: _Connection(self), sock=self.socket)
        self._started.set()
        try:
            await self._stop
        finally:
            listener.close()
            for connection in list(self.connections):
                if connection.transport is not None:
                    connection.transport.abort()
            self.connections.clear()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` running in another thread, and wait until it has."""
        self._started.wait(timeout=10)
        stop = self._stop
        if self.loop is not None and stop is not None and not self._finished.is_set():
            def stop_once() -> None:
                if not stop.done():
                    stop.set_result(None)

            self.loop.call_soon_threadsafe(stop_once)
            self._finished.wait(timeout=10)

    def server_close(self) -> None:
        self.socket.close()

    def __enter__(self) -> SiteServer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.server_close()
