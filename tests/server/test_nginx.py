"""The generated nginx configuration, run by the real nginx on loopback.

One nginx serves the example site twice with the generated deploy/nginx/site-gen.conf
included as is: at the server root, and under /updates/ of a root that holds it. A
second nginx runs the generated standalone deploy/nginx/nginx.conf. Every case of
serving_cases.py is asserted against each, bodies compared with the built files.
Without nginx these tests fail (see nginx_server.py).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys

import orjson
import pytest

from site_gen.publish.deploy import render_nginx_conf, render_nginx_snippet

from conftest import REPO
from nginx_server import served  # noqa: F401  (the fixture)
from serving_cases import CASES, ESCAPES, V1, check_case, check_escape, raw_request, request, split_response

pytestmark = pytest.mark.nginx

SERVERS = ["below", "at-root", "standalone"]


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_case(served, server, case):
    site, servers, _ = served
    port, prefix = servers[server]
    check_case(port, prefix, case, site)


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("target", ESCAPES)
def test_paths_never_leave_the_site(served, server, target):
    site, servers, _ = served
    port, prefix = servers[server]
    check_escape(port, prefix, target)


def test_only_a_site_gen_site_answers_queries(served):
    """Under a root that holds the site at /updates, the endpoint elsewhere is a plain 404."""
    _, servers, _ = served
    port, _ = servers["below"]
    for prefix in ("", "/elsewhere", "/updates/api"):
        status, _, body = request(port, "GET", f"{prefix}/{V1}?channel=stable-4.16", (("Accept", "*/*"),))
        assert status == 404, (prefix, body)


def test_nginx_cannot_echo_unsafe_values_and_says_so(served):
    """nginx cannot JSON-escape: a value with a quote or non-ASCII bytes is left out of the
    message, which stays valid JSON."""
    _, servers, _ = served
    port, prefix = servers["at-root"]
    for value in (b'a"b', b"a%22b\\", "caf\u00e9".encode(), b"\xff"):
        raw = raw_request(port, b"GET " + prefix.encode() + b"/" + V1.encode() + b"?channel=" + value
                          + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, headers, body = split_response(raw)
        assert status == 400 and headers["content-type"] == "application/json", raw
        assert orjson.loads(body) == {"kind": "invalid_params", "value": "invalid client parameters: channel "
                                      "does not match regex '^[0-9a-z\\-\\.]+$'"}


def test_percent_encoded_values_are_refused_without_being_repeated(served):
    """A documented difference: nginx cannot decode a value, so one with an escape or '+'
    is refused (the engine would decode it), and not repeated back half-decoded."""
    _, servers, _ = served
    port, prefix = servers["at-root"]
    for value in ("stable%2D4.16", "stable-4.16+", "%2e%2e"):
        status, _, body = request(port, "GET", f"{prefix}/{V1}?channel={value}", (("Accept", "*/*"),))
        assert status == 400 and orjson.loads(body) == {
            "kind": "invalid_params", "value": "invalid client parameters: channel does not match regex "
            "'^[0-9a-z\\-\\.]+$'"}, (value, body)


def test_graph_answers_are_compressed_for_clients_that_ask(served):
    site, servers, _ = served
    port, _ = servers["standalone"]
    status, headers, body = request(port, "GET", f"/{V1}?channel=candidate-4.15",
                                    (("Accept", "application/json"), ("Accept-Encoding", "gzip")))
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == (site / V1 / "candidate-4.15/amd64.json").read_bytes()


def test_built_files_are_the_rendered_configuration(served):
    """What ran above is what the build wrote: the snippet as is, the standalone file with
    only its listen address changed."""
    site, servers, _ = served
    assert (site / "deploy/nginx/site-gen.conf").read_text() == render_nginx_snippet()
    built = (site / "deploy/nginx/nginx.conf").read_text()
    assert built == render_nginx_conf() and built.count("listen 8080;") == 1
    tested = (site / "deploy/nginx/test.conf").read_text()
    assert tested == built.replace("listen 8080;", f"listen 127.0.0.1:{servers['standalone'][0]};")


@pytest.mark.parametrize("allow_skip, outcome", [("", "1 error"), ("1", "1 skipped")])
def test_a_missing_nginx_fails_the_run_unless_skipping_is_allowed(tmp_path, allow_skip, outcome):
    """`./run.sh test` must not pass without having run nginx; SITE_GEN_ALLOW_SKIP=1 opts out."""
    env = dict(os.environ, SITE_GEN_NGINX=str(tmp_path / "no-nginx"), SITE_GEN_ALLOW_SKIP=allow_skip)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/server/test_nginx.py::test_built_files_are_the_rendered_configuration"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == (0 if allow_skip else 1), result.stdout
    assert outcome in result.stdout.splitlines()[-1] and "nginx is not installed" in result.stdout


def test_no_configuration_warnings_in_the_logs(served):
    """Run last in this module: after every case, nginx logged no uninitialized variable,
    no configuration warning, nothing critical."""
    _, _, logs = served
    for log in logs:
        text = log.read_text()
        for marker in ("uninitialized", "[warn]", "[crit]", "[alert]", "[emerg]"):
            assert marker not in text, (log, marker, text[-2000:])

