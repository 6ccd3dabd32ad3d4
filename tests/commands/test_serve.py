"""``site-gen serve`` as users run it: a real process, stopped with Ctrl-C."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys

import pytest

from site_gen.cli import make_parser

from conftest import REPO
from serving_cases import JSON, V1, build_example, interruptible, request, wait_for_port


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_example(tmp_path_factory.mktemp("command"))


SERVE = [sys.executable, "-m", "site_gen", "serve"]


def serve(*args: str) -> subprocess.Popen:
    return subprocess.Popen([*SERVE, *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)


def serve_and_exit(*args: str) -> subprocess.CompletedProcess:
    """``site-gen serve`` for arguments that make it exit at once."""
    return subprocess.run([*SERVE, *args], cwd=REPO, capture_output=True, text=True, timeout=30)


@pytest.mark.heavy
def test_serves_until_interrupted(site):
    process = serve(str(site), "--port", "0")
    try:
        banner = process.stderr.readline()
        port = int(re.search(r"at http://127\.0\.0\.1:(\d+)/", banner).group(1))
        wait_for_port(port, process)
        status, headers, body = request(port, "GET", f"/{V1}?channel=eus-4.16&arch=s390x", (("Accept", JSON),))
        assert (status, headers["content-type"]) == (200, JSON)
        assert body == (site / V1 / "eus-4.16" / "s390x.json").read_bytes()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # never leave a server behind, even when failing
            process.kill()
            _, err = process.communicate()
            pytest.fail(f"site-gen serve did not stop within 30 s of Ctrl-C: {err}")
    assert process.returncode == 0, err
    assert "stopped" in err and "Traceback" not in err
    assert f'"GET /{V1}?channel=eus-4.16&arch=s390x HTTP/1.1" 200' in err  # the access log


@pytest.mark.heavy
def test_a_missing_site_is_a_clear_error(tmp_path):
    result = serve_and_exit(str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{tmp_path / 'nowhere'}: error: no site here")
    assert "Traceback" not in result.stderr


@pytest.mark.heavy
def test_a_busy_port_is_a_clear_error(site):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve_and_exit(str(site), "--port", str(port))
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1 port {port}" in result.stderr and "Traceback" not in result.stderr


def test_help_says_when_to_use_nginx():
    result = serve_and_exit("--help")
    assert result.returncode == 0 and "deploy/nginx/" in result.stdout


@pytest.mark.heavy
@pytest.mark.parametrize("port", ["70000", "65536", "-1", "http", "8080.5"])
def test_a_port_out_of_range_is_a_usage_error(site, port):
    """Refused by the argument parser with the reason, before anything is opened."""
    result = serve_and_exit(str(site), "--port", port)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (f"site-gen serve: error: argument --port: {port!r} is not a "
                                              "port: use 1 to 65535, or 0 for any free port")


def test_the_port_range_ends_are_accepted():
    parser = make_parser()
    assert [parser.parse_args(["serve", "--port", port]).port for port in ("0", "1", "65535")] == [0, 1, 65535]
