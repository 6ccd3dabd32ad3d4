"""Persistent connections as HTTP/1.0 and HTTP/1.1 clients ask for them, on ``site-gen serve``
and on nginx with the generated configuration alike, over real sockets.

An HTTP/1.0 client keeps a connection open only when the answer says
``Connection: keep-alive``; otherwise it waits for the server to close it after each
answer. ``site-gen serve`` used to keep the connection without saying so, and
``ab -k`` then waited out the idle timeout (10 s) on every request.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time

import pytest

from nginx_server import require_nginx, served  # noqa: F401  (the fixture)
from serving_cases import V1, build_example, builtin_server

TARGET = f"/{V1}/index.json"
QUICK = 5.0  # seconds: far below the servers' idle timeouts (10 s and 15 s), far above an answer


@pytest.fixture(scope="module", params=["builtin", pytest.param("nginx", marks=pytest.mark.nginx)])
def port(request, tmp_path_factory):
    if request.param == "nginx":
        require_nginx()
        yield request.getfixturevalue("served")[1]["standalone"][0]
        return
    with builtin_server(build_example(tmp_path_factory.mktemp("keepalive"))) as server:
        yield server.server_address[1]


def read_answer(connection: socket.socket, buffer: bytearray) -> tuple[str, dict[str, str], bytes]:
    """(status line, {lower-case header: value}, body) of one answer read off ``connection``;
    what follows it stays in ``buffer``."""
    while b"\r\n\r\n" not in buffer:
        chunk = connection.recv(65536)
        assert chunk, f"closed before an answer: {bytes(buffer)!r}"
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (line.partition(": ") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = connection.recv(65536)
        assert chunk, "closed in the middle of a body"
        rest += chunk
    buffer[:] = rest[length:]
    return lines[0], headers, rest[:length]


def exchange(port: int, requests: list[bytes]) -> list[tuple[str, dict[str, str], bytes]]:
    """Send the requests one after the other on one connection, each after the previous answer."""
    answers = []
    with socket.create_connection(("127.0.0.1", port), timeout=QUICK) as connection:
        buffer = bytearray()
        for data in requests:
            connection.sendall(data)
            answers.append(read_answer(connection, buffer))
    return answers


def http10(connection: str | None) -> bytes:
    header = f"Connection: {connection}\r\n" if connection else ""
    return f"GET {TARGET} HTTP/1.0\r\nHost: 127.0.0.1\r\n{header}\r\n".encode()


def closed_soon(port: int, data: bytes) -> bool:
    """Whether the server closes the connection right after its answer to ``data``."""
    with socket.create_connection(("127.0.0.1", port), timeout=QUICK) as connection:
        connection.sendall(data)
        buffer = bytearray()
        read_answer(connection, buffer)
        try:
            return connection.recv(1) == b"" and not buffer
        except TimeoutError:
            return False


@pytest.mark.heavy
@pytest.mark.parametrize("token", ["keep-alive", "Keep-Alive", "close, keep-alive"])
def test_http10_keep_alive_is_confirmed_and_kept(port, token):
    if token == "close, keep-alive":
        # Both tokens: nginx takes the first it recognises (close); so does site-gen serve.
        assert closed_soon(port, http10(token))
        return
    answers = exchange(port, [http10(token)] * 3)
    for status_line, headers, body in answers:
        assert status_line.startswith("HTTP/1.1 200 "), status_line
        assert headers.get("connection", "").lower() == "keep-alive", headers
        assert body.startswith(b"{")


def test_http10_without_keep_alive_is_closed(port):
    assert closed_soon(port, http10(None))


def test_http11_keeps_the_connection_and_says_so_as_nginx(port):
    data = f"GET {TARGET} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    answers = exchange(port, [data, data])
    assert all(headers.get("connection") == "keep-alive" for _, headers, _ in answers)


def test_http11_close_is_honoured(port):
    data = f"GET {TARGET} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    assert closed_soon(port, data)


@pytest.mark.nginx  # ab comes with apache2-utils, installed by ./run.sh test with nginx
def test_apache_bench_keep_alive_does_not_wait_out_the_timeout(port):
    ab = shutil.which("ab")
    assert ab, "ab is not installed (apache2-utils; ./run.sh test installs it)"
    started = time.monotonic()
    done = subprocess.run([ab, "-k", "-n", "3", "-s", "30", f"http://127.0.0.1:{port}{TARGET}"],
                          capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert re.search(r"Keep-Alive requests:\s+3\b", done.stdout), done.stdout
    assert re.search(r"Failed requests:\s+0\b", done.stdout), done.stdout
    assert took < QUICK, f"ab -k -n 3 took {took:.1f} s"
