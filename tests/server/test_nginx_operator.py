"""What docs/serving.md tells an operator about access rules and extra headers around the
included snippet, checked with the real nginx: the pitfalls it warns about happen, and
the configurations it recommends work.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from nginx_server import AS_ROOT, NGINX, Nginx, require_nginx, wrapper_config
from serving_cases import JSON, ORIGIN, V1, build_example, free_port, request

pytestmark = pytest.mark.nginx

HSTS = "max-age=31536000"
SNIPPET = "include {site}/deploy/nginx/site-gen.conf;"

# name -> what the operator writes in the server block, besides listen and root
SERVERS = {
    # The pitfalls: a prefix location loses to the snippet's regex locations, and a
    # server-level add_header is not inherited by locations that have their own.
    "prefix-deny": "location /updates/ {{ deny all; }}\n" + SNIPPET,
    "server-header": f'add_header Strict-Transport-Security "{HSTS}" always;\n' + SNIPPET,
    # The recommendations: access rules at server level, `^~` to shut a whole path.
    "server-allows-loopback": "allow 127.0.0.1; deny all;\n" + SNIPPET,
    "server-allows-others": "allow 10.0.0.0/8; deny all;\n" + SNIPPET,
    "caret-deny": "location ^~ /updates/ {{ deny all; }}\n" + SNIPPET,
    "plain": SNIPPET,
}
# Headers on every answer: a front server adds them to what the server above answers.
FRONT = f"""\
    server {{{{
        listen 127.0.0.1:{{front}};
        add_header Strict-Transport-Security "{HSTS}" always;
        location / {{{{
            proxy_pass http://127.0.0.1:{{plain}};
            proxy_set_header Host $host;
        }}}}
    }}}}
"""

QUERY = f"/updates/{V1}?channel=stable-4.16"
GRAPH_FILE = f"/updates/{V1}/stable-4.16/amd64.json"
PLAIN_FILE = "/updates/deploy/nginx/site-gen.conf"  # outside the snippet's locations


@pytest.fixture(scope="module")
def ports(tmp_path_factory):
    require_nginx()
    root = tmp_path_factory.mktemp("operator")
    site = build_example(root)
    run = root / "run"
    run.mkdir()
    ports = {name: free_port() for name in [*SERVERS, "front"]}
    blocks = "".join(f"    server {{\n        listen 127.0.0.1:{ports[name]};\n        root {site.parent};\n"
                     f"        {body.format(site=site)}\n    }}\n" for name, body in SERVERS.items())
    (run / "nginx.conf").write_text(wrapper_config(run, blocks + FRONT.format(**ports)))
    with Nginx(run, str(run / "nginx.conf")) as nginx:
        nginx.wait(ports["front"])
        yield ports


def status_of(port: int, target: str) -> int:
    return request(port, "GET", target, (("Accept", JSON),))[0]


def test_a_prefix_location_does_not_protect_the_graphs(ports):
    port = ports["prefix-deny"]
    assert status_of(port, PLAIN_FILE) == 403
    assert status_of(port, QUERY) == 200 and status_of(port, GRAPH_FILE) == 200  # the warning in the docs


def test_access_rules_at_server_level_cover_every_answer(ports):
    for target in (QUERY, GRAPH_FILE, PLAIN_FILE):
        assert status_of(ports["server-allows-loopback"], target) == 200, target
        assert status_of(ports["server-allows-others"], target) == 403, target
        assert status_of(ports["caret-deny"], target) == 403, target


def test_server_level_headers_miss_the_snippet_answers_but_a_front_server_adds_them(ports):
    def answer(port, target, accept=JSON):
        status, headers, _ = request(port, "GET", target, (("Accept", accept), ("Origin", ORIGIN)))
        return status, headers.get("strict-transport-security"), headers.get("access-control-allow-origin")

    assert answer(ports["server-header"], PLAIN_FILE)[:2] == (200, HSTS)
    assert answer(ports["server-header"], QUERY)[:2] == (200, None)  # the warning in the docs
    assert answer(ports["server-header"], GRAPH_FILE)[:2] == (200, None)
    for target, accept, status in ((QUERY, JSON, 200), (GRAPH_FILE, JSON, 200), (PLAIN_FILE, JSON, 200),
                                   (QUERY, "text/html", 406), (f"/updates/{V1}?arch=amd64", JSON, 400)):
        cors = ORIGIN if "/api/" in target else None
        assert answer(ports["front"], target, accept) == (status, HSTS, cors), target
    direct, through_front = (request(ports[name], "GET", QUERY, (("Accept", JSON),))[2]
                             for name in ("plain", "front"))
    assert through_front == direct and direct.startswith(b'{"version":1,"nodes":[{')


def test_the_snippet_cannot_be_wrapped_in_a_location(tmp_path):
    """Its named locations must sit at server level: nginx refuses the configuration."""
    require_nginx()
    site = build_example(tmp_path)
    conf = tmp_path / "nginx.conf"
    wrapped = f"location /updates/ {{ {SNIPPET.format(site=site)} }}"
    server = f"    server {{\n        root {site.parent};\n        {wrapped}\n    }}\n"
    conf.write_text(wrapper_config(tmp_path, server))
    user = ["-g", "user root;"] if AS_ROOT else []
    result = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"),
                             "-c", str(conf), *user], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert re.search(r'named location "@site_gen_\w+" can be on the server level only', result.stderr)
