"""The generated nginx configuration, run by the real nginx on loopback.

One nginx serves the example site twice with the generated deploy/nginx/site-gen.conf
included as is: at the server root, and under /updates/ of a root that holds it. A
second nginx runs the generated standalone deploy/nginx/nginx.conf. Every case of
serving_cases.py is asserted against each, bodies compared with the built files.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from serving_cases import (CASES, ESCAPES, V1, build_example, check_case, check_escape, free_port, raw_request,
                           request, split_response, wait_for_port)
from site_gen.publish.deploy import render_nginx_conf, render_nginx_snippet

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
pytestmark = pytest.mark.skipif(not os.access(NGINX, os.X_OK),
                                reason="nginx is not installed (./run.sh test installs it)")
AS_ROOT = os.geteuid() == 0  # then workers must stay root to read pytest's private temp dirs

WRAPPER = """\
pid {run}/nginx.pid;
error_log {run}/error.log info;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    types {{ application/json json; }}
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{below};
        root {www};
        include {site}/deploy/nginx/site-gen.conf;
    }}
    server {{
        listen 127.0.0.1:{at_root};
        root {site};
        include {site}/deploy/nginx/site-gen.conf;
    }}
}}
"""


class Nginx:
    def __init__(self, prefix: Path, config: str, *extra: str):
        self.prefix = prefix
        self.log = prefix / "stderr.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([NGINX, "-p", str(prefix), "-e", str(prefix / "startup.log"),
                                             "-c", config, "-g", "daemon off;" + (" user root;" if AS_ROOT else ""),
                                             *extra], stdout=log, stderr=subprocess.STDOUT)

    def wait(self, port: int) -> None:
        try:
            wait_for_port(port, self.process)
        except AssertionError:
            self.stop()
            raise AssertionError(self.log.read_text())

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(site, {prefix label: (port, URL prefix)}, error logs) with both nginx running."""
    root = tmp_path_factory.mktemp("nginx")
    site = build_example(root)
    run = root / "run"
    run.mkdir()
    ports = {"below": free_port(), "at-root": free_port(), "standalone": free_port()}
    (run / "nginx.conf").write_text(WRAPPER.format(run=run, www=site.parent, site=site, below=ports["below"],
                                                   at_root=ports["at-root"]))
    included = Nginx(run, str(run / "nginx.conf"))
    # The standalone configuration as built, with a free port; nginx's prefix holds the site as site/.
    standalone_prefix = root / "standalone"
    standalone_prefix.mkdir()
    (standalone_prefix / "site").symlink_to(site)
    test_conf = site / "deploy/nginx/test.conf"
    test_conf.write_text(render_nginx_conf(f"127.0.0.1:{ports['standalone']}"))
    standalone = Nginx(standalone_prefix, "site/deploy/nginx/test.conf")
    try:
        included.wait(ports["below"])
        standalone.wait(ports["standalone"])
        yield site, {"below": (ports["below"], "/updates"), "at-root": (ports["at-root"], ""),
                     "standalone": (ports["standalone"], "")}, [run / "error.log", standalone_prefix / "error.log"]
    finally:
        included.stop()
        standalone.stop()


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


def test_percent_encoded_values_are_checked_as_sent(served):
    """A documented difference: nginx validates the raw (still percent-encoded) value."""
    _, servers, _ = served
    port, prefix = servers["at-root"]
    status, _, body = request(port, "GET", f"{prefix}/{V1}?channel=stable%2D4.16", (("Accept", "*/*"),))
    assert status == 400 and b"'stable%2D4.16'" in body


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


def test_no_configuration_warnings_in_the_logs(served):
    """Run last in this module: after every case, nginx logged no uninitialized variable,
    no configuration warning, nothing critical."""
    _, _, logs = served
    for log in logs:
        text = log.read_text()
        for marker in ("uninitialized", "[warn]", "[crit]", "[alert]", "[emerg]"):
            assert marker not in text, (log, marker, text[-2000:])
