"""Release contents in a rebuild: the read and write steps' CPU per record when every record is cached.

The two steps of ``site-gen build --release-contents ... --force`` that depend on the number of
records, run in this process on a cache filled beforehand: ``read_contents`` (every record found in
the record cache: nothing read from the source) and ``published_contents`` into a staged site (contents,
shared and change files, from their caches). Records are synthetic (tests/support/release_payloads.py:
~150 tags, ~900 manifests) for the z-streams of ``--minors`` x ``--arches``; each is made once and
cached under its own image digest, as a build would. The cold write (change files computed in V8),
without the newest release of each arch, is not timed; the build adding those is reported apart; the precompress step is, for what it does with the files written (each read back and
compared, or compressed). Reports process CPU per record for each step (median of ``--runs``), and the figure
extrapolated to the full set (6,845 release x arch), which is what the 1 s rebuild target is about.

    python benchmarks/bench_contents_rebuild.py [--minors 4.15,4.16] [--zstreams 20] [--arches amd64,arm64]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

from site_gen.contents.manifest_files import ManifestMemo  # noqa: E402
from site_gen.contents.release_contents import release_contents  # noqa: E402
from site_gen.model.errors import Warnings  # noqa: E402
from site_gen.model.graph import Graph  # noqa: E402
from site_gen.pipeline.steps import _StagedFiles  # noqa: E402
from site_gen.publish.precompressed import precompress_pages  # noqa: E402
from site_gen.publish.release_contents_files import published_contents  # noqa: E402
from site_gen.publish.staging import StagedSite  # noqa: E402
from site_gen.registry.contents_reading import ContentsOptions, RecordCache, read_contents  # noqa: E402
from site_gen.registry.contents_source import contents_source  # noqa: E402
from site_gen.registry.payload_images import PayloadRequest  # noqa: E402

from release_payloads import payload_tree  # noqa: E402

FULL_SCALE = 6845  # release x arch records of the full set (1,369 versions x 5 arches)


def request(version: str, arch: str) -> PayloadRequest:
    digest = hashlib.sha256(f"{version}-{arch}".encode()).hexdigest()
    return PayloadRequest(version, arch, f"sha256:{digest}", f"example.com/release@sha256:{digest}")


def fill(cache: Path, requests: list[PayloadRequest]) -> None:
    records, memo = RecordCache(cache), ManifestMemo()
    for asked in requests:
        records.put(asked, release_contents(payload_tree(asked.version, asked.arch), memo=memo))


def build(cache: Path, out: Path, requests: list[PayloadRequest], layout: str) -> tuple[float, float, float]:
    """CPU seconds of the read step, the write step and the precompress step (the `.gz` copies)."""
    source = contents_source("docker://example.com/release")  # never asked: every record is cached
    started = time.process_time()
    read = read_contents(source, requests, ContentsOptions(cache_dir=cache), Warnings())
    read_cpu = time.process_time() - started
    assert read.cached == len(requests), (read.cached, len(requests))
    with StagedSite(out, []) as site:
        started = time.process_time()
        published_contents(read.records, Graph(), [], _StagedFiles(site), cache, layout)
        write_cpu = time.process_time() - started
        started = time.process_time()
        precompress_pages(site)  # its threads' CPU is the process's too
        gzip_cpu = time.process_time() - started
    read.records.close()
    return read_cpu, write_cpu, gzip_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minors", default="4.15,4.16", help="comma-separated (default: %(default)s)")
    parser.add_argument("--zstreams", type=int, default=20, help="z-streams per minor (default: %(default)s)")
    parser.add_argument("--arches", default="amd64,arm64", help="comma-separated (default: %(default)s)")
    parser.add_argument("--layout", choices=("self-contained", "shared"), default="self-contained")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scratch", type=Path, help="keep the filled cache (reused when it exists) and the outputs "
                        "(out-cold, out-new-release, out) here")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    args = parser.parse_args(argv)
    requests = [request(f"{minor}.{z}", arch) for arch in args.arches.split(",")
                for minor in args.minors.split(",") for z in range(args.zstreams)]
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="site-gen-bench-rebuild-"))
    cache, out = scratch / "cache", scratch / "out"
    try:
        if not (scratch / "filled").exists():
            fill(cache, requests)
            (scratch / "filled").write_text("")
        # cold, without the newest release of each arch (the first timed build adds it: "new release")
        newest = {asked.arch: asked for asked in requests}
        build(cache, out, [asked for asked in requests if asked not in newest.values()], args.layout)
        if args.scratch is not None:  # kept for a comparison with another code's output (diff -r)
            shutil.rmtree(scratch / "out-cold", ignore_errors=True)
            shutil.copytree(out, scratch / "out-cold", symlinks=True)
        first = build(cache, out, requests, args.layout)
        if args.scratch is not None:
            shutil.rmtree(scratch / "out-new-release", ignore_errors=True)
            shutil.copytree(out, scratch / "out-new-release", symlinks=True)
        runs = [build(cache, out, requests, args.layout) for _ in range(args.runs)]
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    count = len(requests)
    read_ms, write_ms, gzip_ms = (1000 * statistics.median(run[i] for run in runs) / count for i in range(3))
    results = {"records": count, "layout": args.layout, "runs": args.runs, "load": os.getloadavg()[0],
               "read_ms_per_record": round(read_ms, 3), "write_ms_per_record": round(write_ms, 3),
               "precompress_ms_per_record": round(gzip_ms, 3),
               "all_runs_s": [[round(x, 3) for x in run] for run in runs],
               "full_scale_s": round((read_ms + write_ms + gzip_ms) * FULL_SCALE / 1000, 2),
               "new_release_s": [round(x, 3) for x in first]}
    print(f"{count} records ({args.layout}), {args.runs} --force rebuilds in process, load {results['load']:.1f}: "
          f"read step {read_ms:.3f} ms a record, write step {write_ms:.3f} ms, precompress step {gzip_ms:.3f} ms "
          f"(CPU medians); at {FULL_SCALE:,} records ~{results['full_scale_s']:.2f} s; the build adding the newest "
          f"release of each arch (read, write, precompress): {', '.join(f'{x:.3f}' for x in first)} s")
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
