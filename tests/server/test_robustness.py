"""The built-in server against hostile and broken clients, over real sockets: it answers
or drops each of them and keeps serving everyone else."""

from __future__ import annotations

import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from site_gen.server import httpd

from serving_cases import JSON, V1, build_example, builtin_server, raw_request, request, split_response

pytestmark = pytest.mark.slow  # several tests wait out timeouts on purpose

TIMEOUT = 1.0  # the servers below give a request head this long to arrive
# Upper bounds only check that a deadline fires at all; they are wide so that a loaded
# machine cannot fail them. How fast the server is belongs in benchmarks/.
EVENTUALLY = 10 * TIMEOUT


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_example(tmp_path_factory.mktemp("robust"))


@pytest.fixture
def server(site):
    with builtin_server(site, request_timeout=TIMEOUT, max_connections=4) as server:
        yield server


def port_of(server) -> int:
    return server.server_address[1]


def still_serves(server) -> None:
    status, _, body = request(port_of(server), "GET", f"/{V1}?channel=stable-4.16", (("Accept", JSON),))
    assert status == 200 and body.startswith(b'{"version":1,"nodes":[{')


@pytest.mark.parametrize("data, status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET\r\n\r\n", 400),
    (b"GET / HTTP/9.9\r\n\r\n", 505),
    (b"\x00\xff\xfe\x01 \x02 HTTP/1.1\r\n\r\n", 400),
    (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
    # nginx's limits and statuses (test_serve_differential compares them at the edges)
    (b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(3000)) + b"\r\n", 400),
    (b"GET / HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n", 400),
    (b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"brew / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
])
def test_malformed_requests_get_an_error_and_the_server_goes_on(server, data, status):
    assert split_response(raw_request(port_of(server), data))[0] == status
    still_serves(server)


def test_an_answer_that_closes_ends_with_a_fin_even_with_bytes_unread(server, site):
    """Bytes the client sent that the server never read (here: sent while it was not reading,
    its answer not yet taken) must not turn the close into a reset: a reset makes the client's
    read fail, and can take the end of the answer with it. The server sends its answer, then a
    FIN, and reads and drops what still comes until the client closes (a lingering close, as
    nginx does)."""
    big = site / "big.json"
    big.write_bytes(b"[" + b"0," * 1_000_000 + b"0]")
    try:
        with socket.socket() as connection:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the answer waits on us
            connection.settimeout(EVENTUALLY)
            connection.connect(("127.0.0.1", port_of(server)))
            connection.sendall(b"GET /big.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            received = connection.recv(16)  # answering: the server reads nothing more meanwhile
            connection.sendall(b"x" * 100_000)
            time.sleep(0.2)
            while chunk := connection.recv(65536):  # to the server's FIN, not a reset
                received += chunk
        status, headers, body = split_response(received)
        assert (status, headers["connection"], body) == (200, "close", big.read_bytes())
    finally:
        big.unlink()
    still_serves(server)


def test_a_client_that_never_closes_after_its_answer_holds_its_slot_for_linger_only(site):
    """The lingering close is bounded: a client that takes its answer (and the FIN) but keeps
    the connection open loses it ``linger`` seconds later, and its slot serves others again."""
    linger = 0.5
    with builtin_server(site, max_connections=1, linger=linger) as server:
        with socket.create_connection(("127.0.0.1", port_of(server)), timeout=EVENTUALLY) as holder:
            holder.sendall(f"GET /{V1}/index.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            answered = b""
            while chunk := holder.recv(65536):  # the answer, then the server's FIN
                answered += chunk
            started = time.monotonic()
            assert split_response(answered)[0] == 200
            assert split_response(raw_request(port_of(server), b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))[0] == 503
            while request(port_of(server), "GET", f"/{V1}/index.json")[0] == 503:
                assert time.monotonic() - started < EVENTUALLY, "the lingering client still holds the only slot"
                time.sleep(0.05)
            assert time.monotonic() - started > linger * 0.9


def test_a_request_body_never_becomes_the_next_request(server):
    raw = raw_request(port_of(server), b"POST /" + V1.encode() + b"?channel=x HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 31\r\n\r\nGET /secret HTTP/1.1\r\nHost: x\r\n\r\n")
    status, headers, _ = split_response(raw)
    assert (status, headers["connection"]) == (405, "close")
    assert raw.count(b"HTTP/1.1 ") == 1


def test_a_slow_partial_request_blocks_no_one(site):
    with builtin_server(site, request_timeout=EVENTUALLY) as server:  # the slow client may hang for long
        slow = socket.create_connection(("127.0.0.1", port_of(server)))
        slow.sendall(b"GET /" + V1.encode() + b"?channel=stable-4.16 HTTP/1.1\r\nHost: x\r\n")  # never finished
        still_serves(server)
        slow.setblocking(False)
        with pytest.raises(BlockingIOError):  # still open: our answer did not wait for its deadline
            slow.recv(1)
        slow.close()


def test_a_slow_partial_request_is_dropped(server):
    slow = socket.create_connection(("127.0.0.1", port_of(server)))
    slow.sendall(b"GET /" + V1.encode() + b"?channel=stable-4.16 HTTP/1.1\r\nHost: x\r\n")  # never finished
    slow.settimeout(EVENTUALLY)
    assert slow.recv(1024) == b""  # closed by the server, with nothing sent
    slow.close()
    still_serves(server)


def test_a_trickling_client_is_dropped_at_the_deadline(server):
    """One byte every 0.2 s never trips a per-read timeout; the whole head has a deadline."""
    trickle = socket.create_connection(("127.0.0.1", port_of(server)))
    started = time.monotonic()
    request_line = b"GET /" + V1.encode() + b"?channel=stable-4.16 HTTP/1.1\r\nHost: x\r\nX-Padding: "
    closed_after = None
    try:
        for byte in request_line + b"y" * 100:
            trickle.sendall(bytes([byte]))
            time.sleep(0.2)
            if time.monotonic() - started > EVENTUALLY:
                break
    except (BrokenPipeError, ConnectionResetError):
        closed_after = time.monotonic() - started
    if closed_after is None:
        trickle.settimeout(1.0)
        assert trickle.recv(1024) == b""
        closed_after = time.monotonic() - started
    trickle.close()
    assert closed_after < EVENTUALLY  # 100 bytes at 0.2 s would keep it open for 20 s
    still_serves(server)


def test_an_idle_keep_alive_connection_is_closed(server):
    connection = socket.create_connection(("127.0.0.1", port_of(server)), timeout=EVENTUALLY)
    connection.sendall(b"GET /" + V1.encode() + b"/index.json HTTP/1.1\r\nHost: x\r\n\r\n")
    received = b""
    started = time.monotonic()
    while chunk := connection.recv(65536):
        received += chunk
    connection.close()
    assert received.startswith(b"HTTP/1.1 200 ")
    assert TIMEOUT * 0.5 < time.monotonic() - started < EVENTUALLY  # kept alive a while, not forever


def test_connections_beyond_the_limit_get_503_until_slots_free_up(server):
    idle = [socket.create_connection(("127.0.0.1", port_of(server))) for _ in range(4)]
    time.sleep(0.2)  # let the server accept them
    refused = raw_request(port_of(server), b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert split_response(refused)[0] == 503
    for connection in idle:
        connection.close()
    time.sleep(0.2)
    still_serves(server)


def test_a_client_that_hangs_up_mid_answer_harms_no_one(server, site):
    big = site / "big.json"
    big.write_bytes(b"[" + b"0," * 5_000_000 + b"0]")
    try:
        for _ in range(3):
            connection = socket.create_connection(("127.0.0.1", port_of(server)))
            connection.sendall(b"GET /big.json HTTP/1.1\r\nHost: x\r\n\r\n")
            connection.recv(10)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            connection.close()  # reset while the server is still sending
        still_serves(server)
    finally:
        big.unlink()


def test_an_internal_error_costs_one_500_not_the_server(server, monkeypatch):
    def broken(outcome, site):
        raise RuntimeError("injected fault")

    monkeypatch.setattr(httpd, "resolve", broken)
    status, _, body = request(port_of(server), "GET", f"/{V1}/index.json")
    assert (status, body) == (500, b"internal error\n")
    monkeypatch.undo()
    still_serves(server)


def test_a_slow_reader_holds_its_slot_no_longer_than_the_answer_deadline(site):
    """A client that keeps reading a large graph a few bytes at a time never lets a
    per-read timeout fire; the whole answer has a deadline, after which its connection
    is dropped and the slot serves others again."""
    deadline = 1.0
    big = site / "big.json"
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.settimeout(5)
    received, done = [], threading.Event()

    def read_slowly():
        while not done.is_set() and (chunk := slow.recv(16)):
            received.append(len(chunk))
            time.sleep(0.005)

    reader = threading.Thread(target=read_slowly, daemon=True)
    with builtin_server(site, max_connections=1, send_timeout=deadline) as server:
        big.write_bytes(b"[" + b"0," * 5_000_000 + b"0]")  # 10 MB: more than the socket buffers hold
        try:
            slow.connect(("127.0.0.1", port_of(server)))
            slow.sendall(b"GET /big.json HTTP/1.1\r\nHost: x\r\n\r\n")
            started = time.monotonic()
            reader.start()
            time.sleep(deadline / 3)
            assert split_response(raw_request(port_of(server), b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))[0] == 503
            while request(port_of(server), "GET", f"/{V1}/index.json")[0] == 503:
                assert time.monotonic() - started < 10 * deadline, "the slow reader still holds the only slot"
                time.sleep(0.05)
            freed_after = time.monotonic() - started
            assert deadline * 0.9 < freed_after < 10 * deadline  # not before the deadline; wide after it
            assert 0 < sum(received) < big.stat().st_size  # it was reading, and never got the whole answer
        finally:
            done.set()
            if reader.is_alive():
                reader.join()
            slow.close()
            big.unlink()


def test_a_fifo_in_the_site_names_no_file_and_wedges_nothing(site):
    """Issue 9: a FIFO in the served site plus 130 requests wedged every thread for good.
    Only regular files are served; a FIFO is no file, as graph, its .gz or a page."""
    fifo_dir = site / V1 / "fifo-9.9"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "amd64.json")
    (fifo_dir / "arm64.json").write_bytes(b'{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}')
    os.mkfifo(fifo_dir / "arm64.json.gz")
    os.mkfifo(site / "fifo.html")
    probes = [("/fifo.html", (), 404), (f"/{V1}/fifo-9.9/amd64.json", (), 404),
              (f"/{V1}?channel=fifo-9.9", (("Accept", JSON),), 200),
              (f"/{V1}/fifo-9.9/arm64.json", (("Accept-Encoding", "gzip"),), 200)]
    try:
        with builtin_server(site, request_timeout=TIMEOUT) as server, ThreadPoolExecutor(32) as pool:
            asked = [probes[number % len(probes)] for number in range(130)]
            answers = list(pool.map(lambda probe: request(port_of(server), "GET", probe[0], probe[1], timeout=5),
                                    asked))
            for (target, _, status), (got, headers, _) in zip(asked, answers):
                assert got == status and "content-encoding" not in headers, (target, got)
            still_serves(server)
    finally:
        for fifo in (fifo_dir / "amd64.json", fifo_dir / "arm64.json", fifo_dir / "arm64.json.gz", site / "fifo.html"):
            fifo.unlink()
        fifo_dir.rmdir()


def test_300_trickling_connections_keep_no_one_waiting(site):
    """Issue 9: 300 reconnecting slow connections denied service while they lasted. Now
    each costs the event loop nothing while it trickles: normal clients are answered
    while every slow connection is still open, waiting out its head deadline (10 s). A
    server that served the slow ones first would answer the others only after dropping
    them. No wall-clock bound: a loaded machine makes answers slow, not out of order."""
    with builtin_server(site) as server:
        slow = [socket.create_connection(("127.0.0.1", port_of(server))) for _ in range(300)]
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                for connection in slow:
                    try:
                        connection.send(b"G")
                    except OSError:
                        pass
                stop.wait(0.3)

        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        try:
            for _ in range(5):
                still_serves(server)
            stop.set()
            sender.join()
            dropped = [index for index, connection in enumerate(slow) if not is_open(connection)]
            assert dropped == [], f"{len(dropped)} slow connections were closed before the others were served"
        finally:
            stop.set()
            sender.join()
            for connection in slow:
                connection.close()


def is_open(connection: socket.socket) -> bool:
    """Whether the server still holds the connection open, waiting: nothing to read (an
    answer, such as an error, or the end of the stream would mean it gave up on it)."""
    connection.setblocking(False)
    try:
        connection.recv(1, socket.MSG_PEEK)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        connection.setblocking(True)
