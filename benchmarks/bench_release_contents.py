"""Benchmark `site-gen build --release-contents docker://...` (issue 28, point 6).

Pushes a synthetic release set to Debian's docker-registry on loopback (TLS,
tests/support/registry_server.py): every (version, arch) an image of three layers (a base, the
CVO's manifests/, release-manifests/) from tests/support/release_payloads.py (~150 tags, ~900
manifests, ~5 MB; files repeat across arches and z-streams as real ones do), then writes
the release documents (benchmarks/synthetic_releases.py) with the pushed images' digests
as their payloads. Pushing is in a process apart and not timed as the build.

The default set is scaled (the newest 60 channel versions of the graph-data x amd64,
arm64) so it runs in minutes; --full is every channel version x 5 arches (multi as a
manifest list whose amd64 child is read). Timed in a subprocess, each build
`site-gen build --no-html --timings --cache-dir C` with and without
`--release-contents` ("today's"), interleaved so both see the same load:

* cold: empty --cache-dir and --out: wall, CPU and peak RSS (os.wait4), the contents
  steps' seconds (--timings), and the CPU per image read;
* no-op: the same again into the published --out: nothing new, so the fingerprint skips
  the build; and with --force, so every step runs with the records from the cache;
* new release: the newest version of the set (all its arches) pushed beforehand and its
  documents added: the rebuild into the published site (from a copy of the site and the
  cache each run);
* the size of OUT/releases (bytes and files, with and without the .gz copies),
  extrapolated to the full set when the run is scaled (stated as such).

The figures beside "over today's" are the differences of the medians. The verdicts
are informational: the exit status is 1 only when a build fails.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_json_build import REPO_ROOT, machine, verdict

from bench_common import benchmark_parser, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import (
    ARCHES,
    PAYLOAD_REPO,
    Version,
    channel_versions,
    previous_lists,
    release_document,
    serialize,
)

sys.path.insert(0, str(REPO_ROOT / "tests" / "support"))

from registry_server import REGISTRY, Registry, cert_dir_for, make_ca  # noqa: E402

REPO = "openshift/release-contents"
SCALED_VERSIONS, SCALED_ARCHES = 60, ("amd64", "arm64")
TARGETS = {"peak_mib": 500.0, "cpu_ms_per_image": 60.0, "noop_over": 1.0, "new_over": 3.0,
           "site_bytes": 1 << 30}
MIB = 1 << 20
STEP = re.compile(r"^  (.+?)\s+(here|apart|beside)\s+([\d.]+) s$")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__, 3, "timed builds of each kind")
    parser.add_argument("--full", action="store_true",
                        help="every channel version x 5 arches (1,365 x 5 on the 2026-08 graph-data)")
    parser.add_argument("--versions", type=int, default=SCALED_VERSIONS,
                        help="the newest N channel versions, when not --full (default: %(default)s)")
    parser.add_argument("--arches", default=",".join(SCALED_ARCHES),
                        help="comma-separated, when not --full (default: %(default)s)")
    parser.add_argument("--push-workers", type=int, default=2, help="pushing threads (default: %(default)s)")
    parser.add_argument("--release-contents-layout", choices=("self-contained", "shared"), default="self-contained",
                        help="the builds' --release-contents-layout (default: %(default)s)")
    return parse_benchmark_args(parser, argv)


# --- the set -----------------------------------------------------------------------------------

def chosen_versions(graph_data: Path, count: int | None) -> tuple[list[Version], int, int]:
    """The newest ``count`` channel versions (all when None), ascending; how many there are, and
    how many minors they span."""
    versions, _ = channel_versions(graph_data)
    minors = {tuple(str(v).split(".")[:2]) for v in versions}
    return (versions if count is None else versions[-count:]), len(versions), len(minors)


def push_set(url: str, ca: str, repository: str, releases: list[tuple[str, str]], workers: int) -> dict:
    """Run in a process apart (its memory is not the harness's, which a build's peak RSS would
    start from): push one image per (version, arch); (version, arch) -> manifest digest."""
    from registry_images import Pusher, base_layer, gzip_bytes, tar_bytes
    from release_payloads import payload_tree

    pusher = Pusher(url, repository, ca)
    pusher.blob(base_layer())

    def push(release: tuple[str, str]) -> tuple[tuple[str, str], str]:
        version, arch = release
        tree = payload_tree(version, arch)
        layers = [base_layer(),
                  gzip_bytes(tar_bytes({f"manifests/{k}": v for k, v in tree.cvo_manifests.items()})),
                  gzip_bytes(tar_bytes({f"release-manifests/{k}": v for k, v in tree.release_manifests.items()}))]
        tag = f"{version}-{arch}"
        if arch != "multi":
            return release, pusher.image(tag, arch, layers).digest
        child = pusher.image(None, "amd64", layers)  # the reader takes a list's amd64 child
        return release, pusher.image_list(tag, [(child, "amd64")]).digest

    try:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            return dict(pool.map(push, releases))
    finally:
        pusher.close()


def push_in_process(registry: Registry, releases: list[tuple[str, str]], workers: int) -> dict:
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(push_set, registry.url, str(registry.certs.ca), REPO, releases, workers).result()


def write_documents(directory: Path, versions: list[Version], arches: tuple[str, ...],
                    digests: dict[tuple[str, str], str]) -> None:
    previous = previous_lists(versions, 15)
    for errata, version in enumerate(versions, start=1):
        for arch in arches:
            document = release_document(version, arch, previous[version], errata)
            document["payload"] = f"{PAYLOAD_REPO}@{digests[str(version), arch]}"
            (directory / arch).mkdir(parents=True, exist_ok=True)
            (directory / arch / f"{version}.json").write_bytes(serialize(document, "json"))


# --- timing ------------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_build(argv: list[str], logs: Path, registry: Registry) -> dict:
    """One build: wall, CPU and peak RSS (os.wait4: this child and the worker process it
    waited for), its --timings steps, and the registry's CPU meanwhile."""
    registry_before = cpu_seconds(registry.process.pid)
    stderr_path = logs / "stderr"
    with open(stderr_path, "wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    text = stderr_path.read_text(errors="replace")
    if process.returncode != 0:
        raise SystemExit(f"build failed ({' '.join(argv)}):\n{text}")
    steps: dict[str, float] = {}
    for line in text.splitlines():
        match = STEP.match(line)
        if match:
            steps[match[1]] = steps.get(match[1], 0.0) + float(match[3])
    lines = text.splitlines()
    summary = lines[:lines.index("steps:")] if "steps:" in lines else lines
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024,
            "registry_cpu": cpu_seconds(registry.process.pid) - registry_before, "steps": steps,
            "summary": summary[-1] if summary else ""}


def medians(runs: list[dict]) -> dict:
    steps = sorted({name for run in runs for name in run["steps"]})
    return {"wall": spread([r["wall"] for r in runs]),
            **{key: statistics.median(r[key] for r in runs) for key in ("cpu", "peak_mib", "registry_cpu")},
            "steps": {name: statistics.median(r["steps"].get(name, 0.0) for r in runs) for name in steps},
            "summary": runs[-1]["summary"]}


def releases_size(out: Path) -> dict:
    files = [p for p in (out / "releases").rglob("*") if p.is_file()]
    gz = [p for p in files if p.suffix == ".gz"]
    contents = [p for p in files if p.name == "contents.json"]
    changes = [p for p in files if p.parent.name == "changes" and p.suffix == ".json"]
    shared = [p for p in files if p.parent.name == "shared" and p.suffix == ".json"]
    # the shared files grow with the (minor, arch) groups (a manifest table each, resources per minor)
    groups = {(".".join(p.parent.parent.name.split(".")[:2]), p.parent.name) for p in contents}
    site = [p for p in out.rglob("*") if p.is_file()]
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files),
            "gz_files": len(gz), "gz_bytes": sum(p.stat().st_size for p in gz),
            "contents_files": len(contents), "contents_bytes": sum(p.stat().st_size for p in contents),
            "changes_files": len(changes), "changes_bytes": sum(p.stat().st_size for p in changes),
            "shared_files": len(shared), "shared_bytes": sum(p.stat().st_size for p in shared),
            "groups": len(groups),
            "site_files": len(site), "site_bytes": sum(p.stat().st_size for p in site)}


# --- the benchmark -----------------------------------------------------------------------------

def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    if REGISTRY is None:
        raise SystemExit("docker-registry is not installed (apt-get install docker-registry)")
    graph_data = args.graph_data.resolve()
    arches = ARCHES if args.full else tuple(a for a in args.arches.split(",") if a)
    versions, all_versions, all_minors = chosen_versions(graph_data, None if args.full else args.versions)
    newest = versions[-1]
    releases = [(str(v), a) for v in versions for a in arches]
    logs = scratch / "logs"
    logs.mkdir()
    certs = make_ca(scratch / "ca")
    registry = Registry(scratch / "registry", scratch / "storage", certs)
    load_before = os.getloadavg()[0]
    try:
        certs_d = cert_dir_for(registry, scratch / "certs.d")
        started = time.perf_counter()
        digests = push_in_process(registry, releases, args.push_workers)
        pushed = time.perf_counter() - started
        documents = scratch / "releases"
        write_documents(documents, versions[:-1], arches, digests)  # the newest comes later

        def argv(out: Path, cache: Path, contents: bool, force: bool = False) -> list[str]:
            return [sys.executable, "-m", "site_gen", "build", "--graph-data", str(graph_data),
                    "--releases", str(documents), "--out", str(out), "--no-html", "--timings",
                    "--cache-dir", str(cache), "--cert-dir", str(certs_d),
                    *(["--release-contents", registry.docker_reference(REPO),
                       "--release-contents-layout", args.release_contents_layout] if contents else []),
                    *(["--force"] if force else [])]

        kinds = {"contents": True, "today": False}
        cold: dict[str, list[dict]] = {k: [] for k in kinds}
        for run in range(args.runs):
            for kind, contents in kinds.items():
                out, cache = scratch / f"out-{kind}", scratch / f"cache-{kind}"
                for old in (out, cache):  # moved aside, not deleted (see bench_json_build.py)
                    if old.exists():
                        old.rename(scratch / f"{old.name}-run{run}")
                cold[kind].append(timed_build(argv(out, cache, contents), logs, registry))
        size = releases_size(scratch / "out-contents")
        noop: dict[str, list[dict]] = {k: [] for k in kinds}
        forced: dict[str, list[dict]] = {k: [] for k in kinds}
        for _ in range(args.runs):
            for kind, contents in kinds.items():
                out, cache = scratch / f"out-{kind}", scratch / f"cache-{kind}"
                noop[kind].append(timed_build(argv(out, cache, contents), logs, registry))
                forced[kind].append(timed_build(argv(out, cache, contents, force=True), logs, registry))
        # one new release: its documents added; each run from a copy of the published site, the
        # spare beside it (the site before, which the build rebuilds in place: publish/staging.py)
        # and the cache, copied as hard links so that which file is which one stays as it was
        write_documents(scratch / "new-documents", versions, arches, digests)
        new: dict[str, list[dict]] = {k: [] for k in kinds}
        for run in range(args.runs):
            for kind, contents in kinds.items():
                for arch in arches:
                    (documents / arch / f"{newest}.json").unlink(missing_ok=True)
                out, cache = scratch / f"new-out-{kind}-{run}", scratch / f"new-cache-{kind}-{run}"
                for source, copy in ((f"out-{kind}", out.name), (f".out-{kind}.spare", f".{out.name}.spare"),
                                     (f"cache-{kind}", cache.name)):
                    if (scratch / source).exists():
                        shutil.copytree(scratch / source, scratch / copy, symlinks=True, copy_function=os.link)
                for arch in arches:
                    shutil.copy(scratch / "new-documents" / arch / f"{newest}.json", documents / arch)
                new[kind].append(timed_build(argv(out, cache, contents), logs, registry))
        size_new = releases_size(scratch / f"new-out-contents-{args.runs - 1}")
    finally:
        registry.stop()
    return {"machine": machine(), "load_average": [load_before, os.getloadavg()[0]],
            "set": {"versions": len(versions), "channel_versions": all_versions, "minors": all_minors,
                    "arches": list(arches),
                    "images": len(releases), "new_release": str(newest), "full": args.full,
                    "layout": args.release_contents_layout,
                    "push_seconds": round(pushed, 1)},
            "cold": {k: medians(v) for k, v in cold.items()},
            "noop": {k: medians(v) for k, v in noop.items()},
            "forced": {k: medians(v) for k, v in forced.items()},
            "new": {k: medians(v) for k, v in new.items()},
            "size": size, "size_after_new": size_new}


# --- the report --------------------------------------------------------------------------------

def full_scale(results: dict) -> dict:
    """The full set's OUT/releases from the measured one: per contents file and per change file
    (a change file per z-stream and per minor hop: about one per contents file)."""
    s, size = results["set"], results["size"]
    full_files = s["channel_versions"] * len(ARCHES)
    per_contents = size["contents_bytes"] / max(1, size["contents_files"])
    per_change = size["changes_bytes"] / max(1, size["changes_files"])
    changes_per_contents = size["changes_files"] / max(1, size["contents_files"])
    gz_ratio = size["gz_bytes"] / max(1, size["bytes"] - size["gz_bytes"])
    full_groups = s["minors"] * len(ARCHES)
    per_group = size.get("shared_bytes", 0) / max(1, size.get("groups", 0))
    plain = full_files * (per_contents + changes_per_contents * per_change) + full_groups * per_group
    return {"contents_files": full_files, "per_contents": per_contents, "per_change": per_change,
            "changes_per_contents": changes_per_contents, "plain_bytes": plain, "gz_ratio": gz_ratio,
            "with_gz_bytes": plain * (1 + gz_ratio), "groups": full_groups, "per_group": per_group}


def print_report(results: dict) -> None:
    m, s = results["machine"], results["set"]
    print(f"machine:  {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python {m['python']} "
          "(cores shared with other work: load below)")
    print("load:     " + ", ".join(f"{x:.1f}" for x in results["load_average"]) + " (1-minute, before and after)")
    print(f"set:      {s['versions']} versions x {len(s['arches'])} arches ({', '.join(s['arches'])}) = "
          f"{s['images']} images{'' if s['full'] else ' (scaled)'}; pushed in {s['push_seconds']} s (not timed); "
          f"--release-contents-layout {s.get('layout', 'self-contained')}")
    cold, today = results["cold"]["contents"], results["cold"]["today"]
    images = s["images"] - len(s["arches"])  # the newest version comes later
    read_step = cold["steps"].get("read release contents", 0.0)
    write_step = cold["steps"].get("write release contents", 0.0)
    per_image_ms = 1000 * (cold["cpu"] - today["cpu"]) / images
    print(f"\ncold ({images} images, empty cache): wall {cold['wall']['median']:.1f} s (today's "
          f"{today['wall']['median']:.1f} s), CPU {cold['cpu']:.1f} s (today's {today['cpu']:.1f} s), "
          f"peak RSS {cold['peak_mib']:.0f} MiB (today's {today['peak_mib']:.0f} MiB); registry CPU "
          f"{cold['registry_cpu']:.1f} s")
    print(f"  steps: read release contents {read_step:.2f} s ({1000 * read_step / images:.0f} ms/image wall), "
          f"write release contents {write_step:.2f} s")
    print(f"  CPU over today's per image: {per_image_ms:.0f} ms; goal <= {TARGETS['cpu_ms_per_image']:g} ms: "
          f"{verdict(per_image_ms <= TARGETS['cpu_ms_per_image'])}")
    for name, title in (("noop", "no-op rebuild (fingerprint)"), ("forced", "no-op rebuild --force"),
                        ("new", f"one new release ({s['new_release']} x {len(s['arches'])} arches)")):
        ours, base = results[name]["contents"], results[name]["today"]
        over = ours["wall"]["median"] - base["wall"]["median"]
        target = TARGETS["new_over" if name == "new" else "noop_over"]
        print(f"{title}: {ours['wall']['median']:.2f} s vs today's {base['wall']['median']:.2f} s: "
              f"{over:+.2f} s over today's (CPU {ours['cpu'] - base['cpu']:+.2f} s); target <= {target:g} s: "
              f"{verdict(over <= target)}; peak {ours['peak_mib']:.0f} MiB")
        steps = {k: v for k, v in ours["steps"].items() if "contents" in k}
        if steps:
            print("  steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()))
    size = results["size"]
    print(f"\nOUT/releases: {size['files']:,} files, {size['bytes'] / MIB:.1f} MiB with the .gz copies; "
          f"{size['files'] - size['gz_files']:,} files, {(size['bytes'] - size['gz_bytes']) / MIB:.1f} MiB without")
    print(f"  {size['contents_files']} contents.json, {size['contents_bytes'] / MIB:.1f} MiB "
          f"({size['contents_bytes'] / max(1, size['contents_files']) / 1024:.0f} KiB each); "
          f"{size['changes_files']} change files, {size['changes_bytes'] / MIB:.2f} MiB; "
          f"{size.get('shared_files', 0)} shared files, {size.get('shared_bytes', 0) / MIB:.2f} MiB for "
          f"{size.get('groups', 0)} (minor, arch) groups; whole site "
          f"{size['site_files']:,} files, {size['site_bytes'] / MIB:.1f} MiB")
    full = full_scale(results)
    # a scaled set (the newest versions) has fewer previous-minor pairs and smaller changes than
    # the whole one: at full scale 1.81 change files a contents file, of ~64 KB (benchmarks/README.md)
    label = "measured" if s["full"] else "extrapolated from this run, a lower bound; --full measures it"
    print(f"full scale ({label}): {full['contents_files']:,} contents files x {full['per_contents'] / 1024:.0f} KiB"
          f" + {full['changes_per_contents']:.2f} change files each x {full['per_change'] / 1024:.1f} KiB"
          f" + {full['groups']:,} (minor, arch) groups x {full['per_group'] / 1024:.0f} KiB shared = "
          f"{full['plain_bytes'] / 2**30:.2f} GiB, {full['with_gz_bytes'] / 2**30:.2f} GiB with the .gz copies; "
          f"GitHub Pages' 1 GB for the whole site: {verdict(full['with_gz_bytes'] < TARGETS['site_bytes'])}")
    print(f"peak RSS at this scale {cold['peak_mib']:.0f} MiB; target <= {TARGETS['peak_mib']:g} MiB at full scale"
          f"{'' if s['full'] else ' (see the README for the slope)'}")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-bench-contents-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
