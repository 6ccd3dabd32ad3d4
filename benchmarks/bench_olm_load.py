"""Operator catalogs: load, validate, build every channel graph and write the JSON, timed with peak memory.

Two inputs: the shared community catalogs (v4.18-v4.20, 40 MB of YAML) and a synthetic
JSON-stream index shaped like Red Hat's operator index (``--packages``, ``--bundles``,
``--csv-kib`` of ``olm.csv.metadata`` per bundle; the brief's target is 250 packages,
10,000 bundles, 500 MB of metadata in <= 10 s and <= 500 MiB). Each run is a fresh
process, so its peak RSS is the run's own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
from bench_json_build import timed_run_with_cpu

REPO = Path(__file__).resolve().parent.parent
SHARED_CATALOGS = REPO.parent / "shared" / "data" / "olm-catalogs-2026-08"
_CHILD = """
import sys, time
from pathlib import Path
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import write_catalog_json
start = time.perf_counter()
for source in sys.argv[2:]:
    write_catalog_json(load_catalog(Path(source)), Path(sys.argv[1]))
print(time.perf_counter() - start, time.process_time())
"""


# The build's catalog steps themselves (pipeline.steps.read_catalogs: load, validate, the
# model; catalog_json: the JSON; with pages, render.catalog_pages with the pictures), written to OUT.
_STEP = """
import sys, time
from pathlib import Path
from site_gen.olm.sources import parse_catalog_source as catalog_source
from site_gen.pipeline.steps import catalog_json, catalog_links, read_catalogs
start = time.perf_counter()
out, cache, pages = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "pages"
read = read_catalogs([catalog_source(text) for text in sys.argv[4:]], cache)
files = {path: data for catalog in catalog_json(read).catalogs for path, data in catalog.files.items()}
if pages:
    from site_gen.render.catalog_pages import catalog_pages
    from site_gen.render.environment import CollectedPages
    from site_gen.render.graph_drawer import GraphDrawer
    collected = CollectedPages()
    with GraphDrawer(cache, None) as drawer:
        catalog_pages([model for _, model in read], catalog_links(read), drawer, collected)
    files.update(collected.files)
for path, data in files.items():
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.encode() if isinstance(data, str) else data)
print(time.perf_counter() - start, time.process_time())
"""


def run_step(out: Path, cache: Path, pages: bool, catalogs: list[str]) -> tuple[float, float, float]:
    """The catalog step in a fresh process: (wall s, CPU s of it and its children, peak RSS MiB
    of the largest of them, from os.wait4)."""
    argv = [sys.executable, "-c", _STEP, str(out), str(cache), "pages" if pages else "json", *catalogs]
    with tempfile.TemporaryDirectory(prefix="bench-olm-logs-") as logs:
        wall, peak, cpu, code, stderr = timed_run_with_cpu(argv, Path(logs))
    if code != 0:
        sys.exit(f"error: the catalog step failed:\n{stderr}")
    return wall, cpu, peak


def step_cases(root: Path, catalogs: list[str], runs: int) -> dict:
    """Pages off cold (empty cache each run) and warm (the parse cache of a first run), then
    pages on, cold and warm (the SVG cache too). Peak RSS: the largest process of the case."""
    cases: dict = {}
    for pages in (False, True):
        for warm in (False, True):
            name = f"{'pages' if pages else 'json'}-{'warm' if warm else 'cold'}"
            cache = root / f"cache-{name}"
            if warm:
                run_step(root / f"out-{name}-prime", cache, pages, catalogs)
            walls, cpus, peaks = [], [], []
            for run in range(runs):
                if not warm:
                    cache = root / f"cache-{name}-{run}"
                wall, cpu, peak = run_step(root / f"out-{name}-{run}", cache, pages, catalogs)
                walls.append(round(wall, 2))
                cpus.append(round(cpu, 2))
                peaks.append(round(peak))
            cases[name] = {"seconds": walls, "median": statistics.median(walls), "cpu_seconds": cpus,
                           "peak_mib": max(peaks)}
    return cases


def _verdict(step: dict) -> dict:
    """Issue 20's targets: pages off cold <= 3 s and warm <= 1 s, pages on <= 10 s, peak <= 400 MiB."""
    peak = max(case["peak_mib"] for name, case in step.items() if isinstance(case, dict))
    return {"json cold <= 3 s": step["json-cold"]["median"] <= 3.0,
            "json warm <= 1 s": step["json-warm"]["median"] <= 1.0,
            "pages cold <= 10 s": step["pages-cold"]["median"] <= 10.0,
            "peak <= 400 MiB": peak <= 400}


def synthetic_index(path: Path, packages: int, bundles: int, csv_kib: int) -> int:
    """Write a JSON stream (opm render's layout) and return its size in bytes."""
    filler = "x" * (csv_kib * 1024)
    per_package = max(1, bundles // packages)
    with path.open("wb") as out:
        for p in range(packages):
            name = f"operator-{p:04d}"
            out.write(orjson.dumps({"schema": "olm.package", "name": name, "defaultChannel": "stable"},
                                   option=orjson.OPT_INDENT_2) + b"\n")
            entries = [{"name": f"{name}.v1.{b}.0", **({"replaces": f"{name}.v1.{b - 1}.0",
                                                        "skipRange": f">=1.0.0 <1.{b}.0"} if b else {})}
                       for b in range(per_package)]
            out.write(orjson.dumps({"schema": "olm.channel", "package": name, "name": "stable",
                                    "entries": entries}, option=orjson.OPT_INDENT_2) + b"\n")
            for b in range(per_package):
                blob = {"schema": "olm.bundle", "package": name, "name": f"{name}.v1.{b}.0",
                        "image": f"registry.example.com/{name}/bundle@sha256:{'0' * 64}",
                        "properties": [
                            {"type": "olm.package", "value": {"packageName": name, "version": f"1.{b}.0"}},
                            {"type": "olm.csv.metadata", "value": {"displayName": name, "description": filler,
                                                                   "annotations": {"alm-examples": "[]"}}}]}
                out.write(orjson.dumps(blob, option=orjson.OPT_INDENT_2) + b"\n")
    return path.stat().st_size


def run_child(out: Path, sources: list[Path]) -> tuple[float, float, float]:
    """(wall seconds inside the child, its CPU seconds, its peak RSS in MiB). CPU time is the
    steadier figure on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = subprocess.run([sys.executable, "-c", _CHILD, str(out), *map(str, sources)], cwd=REPO,
                            check=True, capture_output=True, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    wall, cpu = map(float, result.stdout.split())
    return wall, cpu, max(peak, before) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalogs", type=Path, default=SHARED_CATALOGS, help="folder of v4.NN catalogs")
    parser.add_argument("--packages", type=int, default=250)
    parser.add_argument("--bundles", type=int, default=10_000)
    parser.add_argument("--csv-kib", type=int, default=52, help="olm.csv.metadata per bundle (default 52 KiB)")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--catalog", action="append", default=[], metavar="NAME=SOURCE",
                        help="time the build's catalog step on these (repeatable; default: every v4.NN "
                             "folder of --catalogs), pages off and on, cold and warm")
    parser.add_argument("--skip-step", action="store_true", help="leave out the catalog-step cases")
    args = parser.parse_args(argv)
    results: dict = {"load_average_before": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory(prefix="bench-olm-") as scratch:
        root = Path(scratch)
        # By default the step times every v4.NN folder of --catalogs; without them, only the synthetic case runs.
        if not args.skip_step and (args.catalog or args.catalogs.is_dir()):
            catalogs = args.catalog or [f"{p.name}={p}" for p in sorted(args.catalogs.iterdir())
                                        if p.is_dir() and p.name.startswith("v4.")]
            results["step"] = {"catalogs": catalogs, **step_cases(root, catalogs, args.runs)}
            results["step"]["verdict"] = _verdict(results["step"])
        if args.catalogs.is_dir():
            sources = sorted(p for p in args.catalogs.iterdir() if p.is_dir())
            runs = [run_child(root / f"shared{i}", sources) for i in range(args.runs)]
            results["shared"] = {"catalogs": [p.name for p in sources], "seconds": [r[0] for r in runs],
                                 "cpu_seconds": [r[1] for r in runs], "peak_mib": [round(r[2]) for r in runs]}
        if not args.skip_synthetic:
            index = root / "index.json"
            size = synthetic_index(index, args.packages, args.bundles, args.csv_kib)
            runs = [run_child(root / f"synthetic{i}", [index]) for i in range(args.runs)]
            results["synthetic"] = {"packages": args.packages, "bundles": args.bundles, "mib": round(size / 2**20),
                                    "seconds": [r[0] for r in runs], "cpu_seconds": [r[1] for r in runs],
                                    "peak_mib": [round(r[2]) for r in runs]}
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
