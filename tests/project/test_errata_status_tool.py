"""tools/errata_status.py against a real HTTP server on loopback, and the build's
--trust-errata-urls: the two offline ways to errata publicity."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from errata_status import main as errata_status
from errata_status import phrasings

from site_gen.cli import main as site_gen
from site_gen.inputs.time_files import load_errata

pytest_plugins = ["registry_fixtures"]  # the session registry, for the docker:// source

PUBLISHED = {"/errata/RHBA-2024:1", "/errata/RHSA-2024:2"}


class Portal(BaseHTTPRequestHandler):
    asked: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        Portal.asked.append(self.path)
        self.send_response(200 if self.path in PUBLISHED else 500 if self.path.endswith(":500") else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def portal():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Portal)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Portal.asked = []
    yield f"http://127.0.0.1:{server.server_address[1]}/errata"
    server.shutdown()
    server.server_close()


def test_phrasings_follow_the_tool():
    assert phrasings("https://access.redhat.com/errata/RHSA-2024:0001") == [
        "https://access.redhat.com/errata/RHBA-2024:0001", "https://access.redhat.com/errata/RHSA-2024:0001",
        "https://access.redhat.com/errata/RHEA-2024:0001"]


@pytest.mark.heavy
def test_errata_file_from_the_portal(scenario, portal, tmp_path, capsys):
    scenario.release("4.16.1", metadata={"url": f"{portal}/RHBA-2024:1"})
    scenario.release("4.16.2", metadata={"url": f"{portal}/RHBA-2024:2"})   # public as an RHSA
    scenario.release("4.16.3", metadata={"url": f"{portal}/RHBA-2024:3"})   # not public yet
    scenario.release("4.16.3", arch="s390x", metadata={"url": f"{portal}/RHBA-2024:1"})  # amd64 counts
    out = tmp_path / "errata.yaml"
    assert errata_status(["--releases", str(scenario.releases), "--out", str(out)]) == 0
    written = yaml.safe_load(out.read_text())
    assert written["4.16.3"] is False and set(written) == {"4.16.1", "4.16.2", "4.16.3"}
    first_seen = load_errata(out)
    assert first_seen["4.16.3"] is None and first_seen["4.16.1"] == first_seen["4.16.2"] is not None
    assert Portal.asked[-3:] == ["/errata/RHBA-2024:3", "/errata/RHSA-2024:3", "/errata/RHEA-2024:3"]
    # again: public ones keep their time and are not asked again
    Portal.asked = []
    assert errata_status(["--releases", str(scenario.releases), "--out", str(out)]) == 0
    assert Portal.asked == ["/errata/RHBA-2024:3", "/errata/RHSA-2024:3", "/errata/RHEA-2024:3"]
    assert load_errata(out) == first_seen
    assert "2 of 3 versions public" in capsys.readouterr().err


@pytest.mark.heavy
def test_trust_errata_urls_makes_errata_gated_promotions_due(scenario, capsys):
    """internal fast (errata: public, no delay) never comes due without errata knowledge;
    --trust-errata-urls takes the amd64 release's url as public; an errata file overrides it."""
    scenario.release("4.16.0").release("4.16.1", previous=["4.16.0"], metadata={"url": "https://e/RHBA-1"})
    scenario.release("4.16.2", previous=["4.16.1"])
    scenario.write("internal-channels/candidate.yaml", "name: candidate\nversions: [4.16.0, 4.16.1, 4.16.2]\n")
    scenario.write("internal-channels/fast.yaml", "name: fast\nfeeder: {name: candidate, errata: public}\n"
                                                  "versions: [4.16.0]\n")
    scenario.channel("candidate-4.16", ["4.16.0", "4.16.1", "4.16.2"])

    def pending(*extra):
        assert site_gen(["--graph-data", str(scenario.data), "--releases", str(scenario.releases),
                         "--out", str(scenario.out), "--no-html", "-q", "--force", *extra]) == 0
        model = json.loads((scenario.out / "data" / "promotion.json").read_text())
        [fast] = [c for c in model["channels"] if c["name"] == "fast"]
        return model["errataSource"], {p["version"]: (p["dueBecause"], p["waitsOnlyOnErrata"])
                                       for p in fast["pending"]}

    assert pending() == (None, {"4.16.1": (None, True), "4.16.2": (None, True)})
    assert pending("--trust-errata-urls") == ("release-urls", {"4.16.1": ("errata", False),
                                                               "4.16.2": (None, True)})
    errata = scenario.root / "errata.yaml"
    errata.write_text("4.16.1: false\n")
    assert pending("--trust-errata-urls", "--errata", str(errata)) == (
        "release-urls+file", {"4.16.1": (None, True), "4.16.2": (None, True)})


# -- issue 18 point 6: every release source build takes; unreachable URLs fail the run ----------

def closed_port_url() -> str:
    """An errata URL on loopback that nobody answers (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/errata"


@pytest.mark.heavy
def test_errata_file_from_a_raw_graph(scenario, portal, tmp_path):
    """The raw graph JSON build --releases takes was "releases directory not found"."""
    scenario.release("4.16.1", metadata={"url": f"{portal}/RHBA-2024:1"})
    scenario.release("4.16.3", metadata={"url": f"{portal}/RHBA-2024:3"})
    scenario.release("4.16.3", arch="s390x", metadata={"url": f"{portal}/RHBA-2024:1"})
    raw = tmp_path / "graph-gb-raw.json"
    write_raw_graph_of(scenario.releases, raw)
    out = tmp_path / "errata.yaml"
    assert errata_status(["--releases", str(raw), "--out", str(out)]) == 0
    written = yaml.safe_load(out.read_text())
    assert set(written) == {"4.16.1", "4.16.3"} and written["4.16.3"] is False
    assert load_errata(out)["4.16.1"] is not None  # public since now


def write_raw_graph_of(releases, raw) -> None:
    """The raw graph the graph-builder would emit for a directory of release documents."""
    from site_gen.engine.release_nodes import load_release_graph
    from site_gen.model.errors import Warnings
    graph = load_release_graph(releases, Warnings())
    nodes = [{"version": version, "payload": graph.payloads[node], "metadata": graph.metadata[node]}
             for node, version in enumerate(graph.versions)]
    edges = [[source, target] for source in range(len(nodes)) for target in sorted(graph.children[source])]
    raw.write_text(json.dumps({"nodes": nodes, "edges": edges}))


@pytest.mark.heavy
def test_unreachable_errata_urls_fail_the_run(scenario, portal, tmp_path, capsys):
    """Every URL unreachable wrote {} and exited 0, so a scheduled run failed silently."""
    scenario.release("4.16.1", metadata={"url": f"{portal}/RHBA-2024:1"})
    scenario.release("4.16.2", metadata={"url": f"{closed_port_url()}/RHBA-2024:2"})
    scenario.release("4.16.3", metadata={"url": f"{portal}/RHBA-2024:500"})  # the portal answers 500
    scenario.release("4.16.4", metadata={"url": "htp:/not a url"})
    out = tmp_path / "errata.yaml"
    out.write_text("4.16.2: false\n")
    before = out.read_bytes()
    assert errata_status(["--releases", str(scenario.releases), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{out}: error: 3 of 4 errata URLs could not be asked; the file is unchanged" in err
    assert out.read_bytes() == before
    # --allow-missing: written, loudly; what was known stays
    assert errata_status(["--releases", str(scenario.releases), "--out", str(out), "--allow-missing"]) == 0
    err = capsys.readouterr().err
    assert "WARNING: 3 of 4 errata URLs could not be asked" in err
    written = yaml.safe_load(out.read_text())
    assert set(written) == {"4.16.1", "4.16.2"} and written["4.16.2"] is False


def test_all_errata_urls_unreachable(scenario, tmp_path, capsys):
    scenario.release("4.16.1", metadata={"url": f"{closed_port_url()}/RHBA-2024:1"})
    out = tmp_path / "errata.yaml"
    assert errata_status(["--releases", str(scenario.releases), "--out", str(out)]) == 1
    assert not out.exists()
    assert "1 of 1 errata URLs could not be asked" in capsys.readouterr().err


def test_bad_release_source_is_one_line(tmp_path, capsys):
    assert errata_status(["--releases", str(tmp_path / "missing"), "--out", str(tmp_path / "e.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path / 'missing'}: error: release source not found") and err.count("\n") == 1


@pytest.mark.registry
def test_errata_file_from_a_registry(request, portal, tmp_path, capsys):
    """docker://: scraped as build scrapes it, then read as its raw graph."""
    from registry_images import Pusher
    from registry_server import REGISTRY, cert_dir_for
    if REGISTRY is None:
        pytest.skip("docker-registry is not installed (./run.sh test installs it)")
    registry = request.getfixturevalue("anonymous_registry")
    repository = "errata-status/release-images"
    pusher = Pusher(registry.url, repository, str(registry.certs.ca))
    pusher.release("4.16.1-x86_64", "4.16.1", "amd64", metadata={"url": f"{portal}/RHBA-2024:1"})
    pusher.release("4.16.3-x86_64", "4.16.3", "amd64", metadata={"url": f"{portal}/RHBA-2024:3"})
    out = tmp_path / "errata.yaml"
    assert errata_status(["--releases", f"docker://{registry.host_port}/{repository}", "--out", str(out),
                          "--cert-dir", str(cert_dir_for(registry, tmp_path / "certs.d")),
                          "--cache-dir", str(tmp_path / "cache")]) == 0, capsys.readouterr().err
    written = yaml.safe_load(out.read_text())
    assert set(written) == {"4.16.1", "4.16.3"} and written["4.16.3"] is False
