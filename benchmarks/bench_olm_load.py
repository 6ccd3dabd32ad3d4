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
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
SHARED_CATALOGS = REPO.parent / "shared" / "data" / "olm-catalogs-2026-08"
_CHILD = """
import sys, time
from pathlib import Path
from site_gen.olm.loading import load_catalog
from site_gen.olm.publish import write_catalog_json
start = time.perf_counter()
for source in sys.argv[2:]:
    write_catalog_json(load_catalog(Path(source)), Path(sys.argv[1]))
print(time.perf_counter() - start, time.process_time())
"""


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
    args = parser.parse_args(argv)
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-olm-") as scratch:
        root = Path(scratch)
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
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
