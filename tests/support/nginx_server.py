"""The real nginx on loopback, for the tests that run the generated configuration.

nginx is part of the test setup (`./run.sh test` installs it), so without it these tests
FAIL rather than skip: a passing run then always means the configuration was exercised.
Set SITE_GEN_ALLOW_SKIP=1 to skip them instead on a machine that cannot have nginx, and
SITE_GEN_NGINX to run another nginx binary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from site_gen.publish.deploy import render_nginx_conf
from site_gen.server.static_files import CONTENT_TYPES, TEXT_TYPES

from serving_cases import build_example, free_port, wait_for_port

NGINX = os.environ.get("SITE_GEN_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
AS_ROOT = os.geteuid() == 0  # then workers must stay root to read pytest's private temp dirs

# The http-level settings every test configuration needs: all of nginx's files in RUN.
HTTP_SETTINGS = """\
    access_log off;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    types {{ application/json json; }}
    default_type application/octet-stream;
"""

WRAPPER = """\
pid {run}/nginx.pid;
error_log {run}/error.log info;
events {{ worker_connections 64; }}
http {{
{settings}
{servers}
}}
"""

# The generated snippet included as is: below a root that holds the site at /updates,
# and with the site as the root; both with the lines docs/serving.md gives for the pages.
PAGES = """\
        types {{ {types} }}
        charset utf-8;
        charset_types {charset_types};
        gzip_static on;
        gzip_vary on;
        gzip_proxied any;
        gzip_http_version 1.0;"""
INCLUDED = """\
    server {{
        listen 127.0.0.1:{below};
        root {www};
{pages}
        include {site}/deploy/nginx/site-gen.conf;
    }}
    server {{
        listen 127.0.0.1:{at_root};
        root {site};
{pages}
        include {site}/deploy/nginx/site-gen.conf;
    }}
"""


def pages_settings() -> str:
    """PAGES with the site's media types, as a server serving the pages would set them."""
    types = " ".join(f"{media} {extension};" for extension, media in sorted(CONTENT_TYPES.items()))
    charset = " ".join(media for media in TEXT_TYPES if media != "text/html")  # nginx always includes text/html
    return PAGES.format(types=types, charset_types=charset)


def require_nginx() -> None:
    if os.access(NGINX, os.X_OK):
        return
    message = f"nginx is not installed ({NGINX}); ./run.sh test installs it"
    if os.environ.get("SITE_GEN_ALLOW_SKIP") == "1":
        pytest.skip(f"{message} (skipped: SITE_GEN_ALLOW_SKIP=1)")
    pytest.fail(f"{message}, or set SITE_GEN_ALLOW_SKIP=1 to skip the nginx tests", pytrace=False)


def wrapper_config(run: Path, servers: str) -> str:
    """A complete nginx.conf around ``servers`` (server blocks), keeping every file in ``run``."""
    return WRAPPER.format(run=run, settings=HTTP_SETTINGS.format(run=run), servers=servers)


class Nginx:
    """nginx in the foreground with every file in ``prefix``; stopped when its ``with`` ends."""

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
            raise AssertionError(self.log.read_text()) from None

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def __enter__(self) -> Nginx:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(site, {label: (port, URL prefix)}, error logs) with two nginx running the example
    site (with its pages): the snippet included in two servers ("below", "at-root"), and the generated
    standalone configuration ("standalone")."""
    require_nginx()
    root = tmp_path_factory.mktemp("nginx")
    site = build_example(root, html=True)
    run = root / "run"
    run.mkdir()
    ports = {"below": free_port(), "at-root": free_port(), "standalone": free_port()}
    (run / "nginx.conf").write_text(wrapper_config(run, INCLUDED.format(
        www=site.parent, site=site, below=ports["below"], at_root=ports["at-root"], pages=pages_settings())))
    # The standalone configuration as built, with a free port; nginx's prefix holds the site as site/.
    standalone_prefix = root / "standalone"
    standalone_prefix.mkdir()
    (standalone_prefix / "site").symlink_to(site)
    (site / "deploy/nginx/test.conf").write_text(render_nginx_conf(f"127.0.0.1:{ports['standalone']}"))
    with (Nginx(run, str(run / "nginx.conf")) as included,
          Nginx(standalone_prefix, "site/deploy/nginx/test.conf") as standalone):
        included.wait(ports["below"])
        standalone.wait(ports["standalone"])
        yield site, {"below": (ports["below"], "/updates"), "at-root": (ports["at-root"], ""),
                     "standalone": (ports["standalone"], "")}, [run / "error.log", standalone_prefix / "error.log"]
