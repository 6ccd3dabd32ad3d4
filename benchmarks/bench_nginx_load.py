"""Load benchmark: the site behind nginx (the generated deploy/nginx/ configuration) on
loopback, driven by wrk with graph queries mixed over every channel and architecture.

Builds the full-scale synthetic site (JSON only; the real graph-data snapshot with
benchmarks/synthetic_releases.py) or the embedded example, starts nginx with the
site's standalone nginx.conf on 127.0.0.1, and runs wrk `--runs` times for
`--duration` seconds per scenario:

* identity: plain answers, as curl or a browser fetching the file;
* gzip: `Accept-Encoding: gzip`, as the cluster-version operator's Go client sends it
  (answered from the precompressed `.json.gz` files);
* gzip-304: the same with `If-None-Match` carrying each graph's ETag, as a client that
  revalidates: every answer is a 304 without a body.

Every request is a query `GET /api/upgrades_info/v1/graph?channel=C&arch=A`, taking
each channel × architecture in turn. Reports requests per second, p50/p90/p99
latency, transfer rate and errors (median over the runs), the server's CPU time per
answer (independent of other load on the machine) with the load average, and the machine.
`--server builtin` measures `site-gen serve` the same way, for comparison.
Traffic goes to 127.0.0.1 only; every run stops by itself after `--duration`.
wrk is installed from Debian (apt-get) when missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench_json_build import REPO_ROOT, machine, verdict

from site_gen.layout import GRAPH_API_DIR, graph_path
from site_gen.publish.deploy import render_nginx_conf

from bench_common import DEFAULT_GRAPH_DATA, parse_benchmark_args, run_in_scratch
from synthetic_releases import write_synthetic_releases

EXAMPLE = REPO_ROOT / "graph-data"
SLO_SECONDS = 0.5  # the reference service's objective: 90 % of requests under 0.5 s

LUA = """\
local paths = {%(paths)s}
local etags = {%(etags)s}
local counter = 0
local headers = {%(headers)s}
local requests = {}

-- Every request is formatted once, up front: formatting one per request in Lua costs wrk
-- more CPU than nginx spends answering it, on the cores the two share.
init = function(args)
  for index, path in ipairs(paths) do
    if #etags > 0 then
      headers["If-None-Match"] = etags[index]
    end
    requests[index] = wrk.format("GET", path, headers)
  end
end

request = function()
  counter = counter + 1
  return requests[(counter %% #requests) + 1]
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %%d %%d %%d %%d %%d %%d %%d %%d %%d %%d %%d\\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
"""
SCENARIOS = {"identity": {"Accept": "application/json"},
             "gzip": {"Accept": "application/json", "Accept-Encoding": "gzip"},
             "gzip-304": {"Accept": "application/json", "Accept-Encoding": "gzip"}}
CONDITIONAL = "gzip-304"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", choices=("full", "example"), default="full",
                        help="full-scale synthetic site from the real snapshot, or the example (default: full)")
    parser.add_argument("--graph-data", type=Path, default=DEFAULT_GRAPH_DATA, help="snapshot for --data full")
    parser.add_argument("--server", choices=("nginx", "builtin"), default="nginx")
    parser.add_argument("--runs", type=int, default=3, help="wrk runs per scenario (default: 3)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per run (default: 10)")
    parser.add_argument("--connections", type=int, default=64, help="open connections (default: 64)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default: 2)")
    return parse_benchmark_args(parser, argv)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("installing wrk (Debian package) ...", file=sys.stderr)
    installed = subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"],
                               capture_output=True, text=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if installed.returncode != 0:
        sys.exit(f"error: apt-get install wrk failed (run apt-get update first?):\n{installed.stderr}")
    return shutil.which("wrk") or sys.exit("error: wrk is still missing after apt-get install")


def build_site(args, scratch: Path) -> tuple[Path, dict]:
    site = scratch / "prefix" / "site"
    if args.data == "example":
        graph_data, releases, described = EXAMPLE, EXAMPLE / "releases", {"data": "embedded example"}
    else:
        graph_data, releases = args.graph_data.resolve(), scratch / "releases"
        made = write_synthetic_releases(graph_data, releases, fmt="json")
        described = {"data": f"full-scale synthetic ({made['documents']} release documents)"}
    subprocess.run([sys.executable, "build.py", "--graph-data", str(graph_data), "--releases", str(releases),
                    "--out", str(site), "--no-html", "--quiet"], cwd=REPO_ROOT, check=True)
    graphs = list((site / GRAPH_API_DIR).glob("*/*.json"))
    described.update(graphs=len(graphs), graph_bytes=sum(p.stat().st_size for p in graphs))
    return site, described


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(kind: str, site: Path, port: int) -> subprocess.Popen:
    if kind == "builtin":
        argv = [sys.executable, "-m", "site_gen", "serve", str(site), "--port", str(port), "--quiet"]
        return subprocess.Popen(argv, cwd=REPO_ROOT, stderr=subprocess.DEVNULL)
    (site / "deploy/nginx/bench.conf").write_text(render_nginx_conf(f"127.0.0.1:{port}"))
    user = " user root;" if os.geteuid() == 0 else ""  # root: workers keep read access to temp dirs
    argv = ["nginx", "-p", str(site.parent), "-e", "startup.log", "-c", "site/deploy/nginx/bench.conf",
            "-g", f"daemon off;{user}"]
    return subprocess.Popen(argv)


def channel_arch_pairs(site: Path) -> list[tuple[str, str]]:
    """Every channel × architecture the site publishes, from its index.json."""
    index = json.loads((site / GRAPH_API_DIR / "index.json").read_bytes())
    return [(channel, arch) for channel in index["channels"] for arch in index["arches"]]


def wait_until_serving(port: int, site: Path, channel: str, arch: str, process: subprocess.Popen) -> None:
    """Up, and answering a query with the published bytes."""
    url = f"http://127.0.0.1:{port}/{GRAPH_API_DIR}?channel={channel}&arch={arch}"
    deadline = time.monotonic() + 15
    while True:
        if process.poll() is not None:
            sys.exit(f"error: the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "*/*"}), timeout=5) as reply:
                assert reply.read() == (site / graph_path(channel, arch)).read_bytes()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def query_paths(pairs: list[tuple[str, str]]) -> list[str]:
    return [f"/{GRAPH_API_DIR}?channel={c}&arch={a}" for c, a in pairs]


def current_etags(port: int, paths: list[str], headers: dict) -> list[str]:
    """Each path's ETag as the server gives it, checked to earn a 304 when sent back."""
    etags = []
    for path in paths:
        url = f"http://127.0.0.1:{port}{path}"
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as reply:
            etags.append(reply.headers["ETag"])
    try:
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{paths[0]}",
                                                      headers={**headers, "If-None-Match": etags[0]}), timeout=5)
        sys.exit("error: the server did not answer a matching If-None-Match with 304")
    except urllib.error.HTTPError as answer:
        if answer.code != 304:
            raise
    return etags


def lua_script(paths: list[str], headers: dict, path: Path, etags: list[str] | None = None) -> None:
    path.write_text(LUA % {"paths": ", ".join(json.dumps(p) for p in paths),
                           "etags": ", ".join(json.dumps(tag) for tag in etags or []),
                           "headers": ", ".join(f'["{k}"] = "{v}"' for k, v in headers.items())})


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its direct children (nginx's workers)."""
    pids = [pid] + [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                    for child in (task / "children").read_text().split()]
    total = 0
    for one in pids:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def run_wrk(wrk: str, args, port: int, script: Path, server: subprocess.Popen) -> dict:
    argv = [wrk, "-t", str(args.threads), "-c", str(args.connections), "-d", f"{args.duration}s",
            "--timeout", "5s", "-s", str(script), f"http://127.0.0.1:{port}/"]
    cpu_before = cpu_seconds(server.pid)
    output = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    cpu = cpu_seconds(server.pid) - cpu_before
    line = next(line for line in output.splitlines() if line.startswith("RESULT "))
    requests, micros, size, *errors, p50, p90, p99 = (int(v) for v in line.split()[1:])
    seconds = micros / 1e6
    # The server's own CPU per answer does not depend on what else runs on the machine
    # (the latency percentiles do): 1e6 / cpu_us is what one free core could answer.
    return {"requests": requests, "rps": requests / seconds, "mb_per_s": size / seconds / 1e6,
            "errors": sum(errors), "p50_ms": p50 / 1000, "p90_ms": p90 / 1000, "p99_ms": p99 / 1000,
            "cpu_us": cpu / max(requests, 1) * 1e6, "load": os.getloadavg()[0]}


def median_of(runs: list[dict]) -> dict:
    summary = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    summary["errors"] = sum(run["errors"] for run in runs)
    summary["requests"] = sum(run["requests"] for run in runs)
    return summary


def benchmark(args, scratch: Path) -> dict:
    wrk = ensure_wrk()
    results = {"machine": machine(), "server": args.server, "scenarios": {},
               "load": {"connections": args.connections, "threads": args.threads,
                        "duration_s": args.duration, "runs": args.runs}}
    site, results["site"] = build_site(args, scratch)
    pairs = channel_arch_pairs(site)
    results["site"]["query_mix"] = len(pairs)
    port = free_port()
    server = start_server(args.server, site, port)
    try:
        wait_until_serving(port, site, *pairs[0], server)
        paths = query_paths(pairs)
        for name, headers in SCENARIOS.items():
            script = scratch / f"{name}.lua"
            lua_script(paths, headers, script, current_etags(port, paths, headers) if name == CONDITIONAL else None)
            runs = [run_wrk(wrk, args, port, script, server) for _ in range(args.runs)]
            results["scenarios"][name] = {"median": median_of(runs), "runs": runs}
    finally:
        server.terminate()
        server.wait(timeout=10)
    return results


def main(argv=None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-load-", benchmark, print_report)


def print_report(results: dict) -> None:
    m, site, load = results["machine"], results["site"], results["load"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM ({m['platform']})")
    print(f"site:    {site['data']}: {site['graphs']} graphs, {site['graph_bytes'] / 1e6:.1f} MB; "
          f"query mix over {site['query_mix']} channel x arch pairs")
    print(f"server:  {results['server']} on 127.0.0.1; wrk {load['threads']} threads, {load['connections']} "
          f"connections, {load['runs']} runs x {load['duration_s']} s per scenario (medians)")
    print(f"{'scenario':10} {'req/s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'MB/s':>8} {'errors':>7} "
          f"{'CPU us/answer':>14} {'load':>5}")
    for name, scenario in results["scenarios"].items():
        s = scenario["median"]
        print(f"{name:10} {s['rps']:9.0f} {s['p50_ms']:8.2f} {s['p90_ms']:8.2f} {s['p99_ms']:8.2f} "
              f"{s['mb_per_s']:8.1f} {s['errors']:7d} {s['cpu_us']:14.1f} {s['load']:5.1f}")
        met = s["p90_ms"] / 1000 < SLO_SECONDS and s["errors"] == 0
        print(f"{'':10} reference objective (90 % under {SLO_SECONDS} s, no errors): {verdict(met)}")
    print("load: the machine's 1-minute load average during the runs (2 cores: above 2, other work "
          "competed for the CPU and the latencies show it)")

if __name__ == "__main__":
    sys.exit(main())
