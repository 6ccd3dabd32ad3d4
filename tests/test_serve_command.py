"""``site-gen serve`` as users run it: a real process, stopped with Ctrl-C."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys

import pytest

from conftest import REPO
from serving_cases import JSON, V1, build_example, request, wait_for_port


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_example(tmp_path_factory.mktemp("command"))


def serve(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "site_gen", "serve", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


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
        _, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert "stopped" in err and "Traceback" not in err
    assert f'"GET /{V1}?channel=eus-4.16&arch=s390x HTTP/1.1" 200' in err  # the access log


def test_a_missing_site_is_a_clear_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "site_gen", "serve", str(tmp_path / "nowhere")],
                            cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.startswith(f"{tmp_path / 'nowhere'}: error: no site here")
    assert "Traceback" not in result.stderr


def test_a_busy_port_is_a_clear_error(site):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "site_gen", "serve", str(site), "--port", str(port)],
                                cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1 port {port}" in result.stderr and "Traceback" not in result.stderr


def test_help_says_when_to_use_nginx():
    result = subprocess.run([sys.executable, "-m", "site_gen", "serve", "--help"], cwd=REPO,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "deploy/nginx/" in result.stdout
