"""Benchmark `site-gen scrape` against a docker-registry on loopback.

Starts Debian's docker-registry with TLS (tests/support/registry_server.py), pushes a release
set as images through the registry API (tests/support/registry_images.py; not timed), then
times `site-gen scrape docker://... --out OUT` in a subprocess:

* cold: an empty --cache-dir, so every config and metadata layer is fetched;
* warm: the same cache and nothing new: the tag list, and one manifest request per tag
  that the registry answers 304 (the cache's tag index).

Sets: `2021` is the real 2021 quay scrape (cincinnati-fixtures/20211124.083150,
992 images on 4 architectures); `2026` is the full-scale synthetic set of
bench_json_build.py (1,369 versions x 5 architectures; multi as manifest lists).
Reports medians of wall time and the scrape process's peak RSS, the machine, and
PASS/FAIL against issue 8's targets. The verdict is informational.

--baseline DIR times another checkout's code (e.g. `git archive main | tar -x -C DIR`)
against the same registry, each of its runs right after one of ours, and reports the
ratios: on a machine busy with other work, the only fair comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_json_build import REPO_ROOT, machine, verdict

from bench_common import benchmark_parser, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import write_synthetic_releases

sys.path.insert(0, str(REPO_ROOT / "tests" / "support"))

from registry_images import (
    Pusher,
    images_from_documents,
    images_from_raw_graph,
    push_release_images,
)
from registry_server import REGISTRY, Registry, cert_dir_for, make_ca

FIXTURE = REPO_ROOT.parent / "shared" / "data" / "cincinnati-fixtures" / "20211124.083150" / "graph-gb-raw.json"
TARGETS = {"2021": {"cold": 20.0, "warm": 3.0, "peak_mib": 300.0},
           "2026": {"cold": 60.0, "warm": 10.0, "peak_mib": None}}
REPO = "openshift/release-images"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__, 3, "cold and warm scrapes each", "graph-data checkout for the 2026 set")
    parser.add_argument("--set", choices=("2021", "2026", "both"), default="both", help="release set (default: both)")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="a checkout of other code to time the same way, run for run after ours")
    return parse_benchmark_args(parser, argv)


def cpu_seconds(pid: int) -> float:
    """User + system CPU a running process has used (the registry's, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_scrape(argv: list[str], log_dir: Path, registry: Registry, code: Path = REPO_ROOT) -> dict:
    """Run one scrape: wall time, its peak RSS and CPU (os.wait4), and the registry's CPU meanwhile.
    On a shared machine the CPU seconds are the steadier figure: wall time depends on what
    else runs."""
    registry_before = cpu_seconds(registry.process.pid)
    stderr_path = log_dir / "stderr"
    with open(stderr_path, "wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=code, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    text = stderr_path.read_text(errors="replace")
    if process.returncode != 0:
        raise SystemExit(f"scrape failed:\n{text}")
    summary = [line for line in text.splitlines() if line.startswith("scraped ")]
    return {"wall": wall, "peak_mib": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime,
            "registry_cpu": cpu_seconds(registry.process.pid) - registry_before,
            "summary": summary[-1] if summary else ""}


def release_images(name: str, args: argparse.Namespace, scratch: Path) -> list:
    if name == "2021":
        return images_from_raw_graph(json.loads(FIXTURE.read_text()))
    documents = scratch / "synthetic-releases"
    write_synthetic_releases(args.graph_data, documents)
    return images_from_documents(documents)


def bench_set(name: str, args: argparse.Namespace, scratch: Path, registry: Registry, certs_d: Path) -> dict:
    repository = f"{name}/{REPO}"
    images = release_images(name, args, scratch)
    started = time.perf_counter()
    pusher = Pusher(registry.url, repository, str(registry.certs.ca))
    push_release_images(pusher, images)
    pusher.close()
    pushed = time.perf_counter() - started
    codes = {"ours": REPO_ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    results: dict = {"images": len(images), "push_seconds": round(pushed, 1)}
    for kind in ("cold", "warm"):
        runs: dict[str, list[dict]] = {who: [] for who in codes}
        for _ in range(args.runs):
            for who, code in codes.items():  # interleaved: both see the same load
                cache, out = scratch / f"cache-{name}-{who}", scratch / f"out-{name}-{who}"
                if kind == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                    shutil.rmtree(out, ignore_errors=True)
                argv = [sys.executable, "-m", "site_gen", "scrape", registry.docker_reference(repository),
                        "--out", str(out), "--cache-dir", str(cache), "--cert-dir", str(certs_d)]
                runs[who].append(timed_scrape(argv, scratch, registry, code))
        for who, done in runs.items():
            results.setdefault(who, {})[kind] = {
                "wall": spread([r["wall"] for r in done]),
                **{key: statistics.median(r[key] for r in done) for key in ("peak_mib", "cpu", "registry_cpu")},
                "summary": done[-1]["summary"]}
    results.update(results.pop("ours"))
    return results


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    if REGISTRY is None:
        raise SystemExit("docker-registry is not installed (apt-get install docker-registry)")
    names = ["2021", "2026"] if args.set == "both" else [args.set]
    certs = make_ca(scratch / "ca")
    registry = Registry(scratch / "registry", scratch / "storage", certs)
    try:
        certs_d = cert_dir_for(registry, scratch / "certs.d")
        sets = {name: bench_set(name, args, scratch, registry, certs_d) for name in names}
    finally:
        registry.stop()
    return {"machine": machine(), "load_average": list(os.getloadavg()), "sets": sets}


def print_report(results: dict) -> None:
    m = results["machine"]
    print(f"machine:  {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python {m['python']}")
    print("load average at the end: " + " ".join(f"{x:.2f}" for x in results["load_average"]))
    for name, result in results["sets"].items():
        targets = TARGETS[name]
        print(f"\n{name} set: {result['images']:,} release images (pushed in {result['push_seconds']} s)")
        for kind in ("cold", "warm"):
            r = result[kind]
            wall = r["wall"]
            ok = wall["median"] <= targets[kind]
            line = (f"  {kind}: {wall['median']:.2f} s median (min {wall['min']:.2f}, max {wall['max']:.2f}), "
                    f"peak {r['peak_mib']:.0f} MiB; target <= {targets[kind]:g} s: {verdict(ok)}")
            if targets["peak_mib"]:
                line += f"; memory <= {targets['peak_mib']:g} MiB: {verdict(r['peak_mib'] <= targets['peak_mib'])}"
            print(line)
            print(f"    CPU: scrape {r['cpu']:.1f} s, registry {r['registry_cpu']:.1f} s "
                  f"(both on 2 idle cores: about {(r['cpu'] + r['registry_cpu']) / 2:.1f} s)")
            print(f"    {r['summary']}")
            base = result.get("baseline", {}).get(kind)
            if base:
                print(f"    baseline: {base['wall']['median']:.2f} s median, CPU scrape {base['cpu']:.1f} s; "
                      f"ours/baseline: wall {wall['median'] / base['wall']['median']:.2f}x, "
                      f"scrape CPU {r['cpu'] / base['cpu']:.2f}x")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-bench-registry-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
