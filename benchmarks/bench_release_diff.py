"""The release diff (assets/release-diff.js through site_gen/js_rules) at real scale: one diff of two
contents records of ~150 image tags and ~900 manifests each, and 1,000 diffs in one V8 context (a build
publishes about two change files per release x arch).

The records are made here, deterministic: images from the real 4.8 and 4.10 image-references when
../shared/data/release-contents is there (140 and 146 tags), else 150 synthetic tags; 900 resources and
manifest files per side, of which the second side renames 10 files, deletes 5 objects, drops 5, changes
the bytes of 120 files, stops serving a CRD version and puts a capability on 3 objects.

    .venv/bin/python benchmarks/bench_release_diff.py [--diffs 1000]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import resource
import statistics
import sys
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "support"))

from site_gen.js_rules.release_diff import changes_json, forget_record, keep_record, release_changes  # noqa: E402

RESOURCES = 900
KINDS = [("", "ConfigMap"), ("apps", "Deployment"), ("", "ServiceAccount"), ("rbac.authorization.k8s.io", "Role"),
         ("apiextensions.k8s.io", "CustomResourceDefinition"), ("config.openshift.io", "ClusterOperator")]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _images(side: int) -> dict:
    try:
        from contents_records import IMAGE_REFERENCES, record_from_image_references
        if IMAGE_REFERENCES["4.8"].is_file():
            return record_from_image_references(("4.8", "4.10")[side])["images"]
    except ImportError:
        pass
    found = {}
    for n in range(150):
        commit = _sha(f"{n}:{side if n % 3 else 0}")[:40]
        found[f"component-{n:03}"] = {"image": f"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{_sha(f'{n}{side}')}",
                                      "sourceRepository": f"https://github.com/openshift/repo-{n // 2}",
                                      "commit": commit, "versions": {}}
    return found


def _resources(side: int) -> tuple[list[dict], dict[str, str]]:
    rng = random.Random(7)
    resources, files = [], {}
    for n in range(RESOURCES):
        group, kind = KINDS[n % len(KINDS)]
        run_level = 10 + (n // 20)
        file = f"0000_{run_level:02}_component-{n // 12}_{n:03}_{kind.lower()}.yaml"
        if side and n < 10:
            file = file.replace(".yaml", "-renamed.yaml")
        capabilities = ["Console"] if side and 20 <= n < 23 else []
        entry = {"id": f"{file}#0", "file": file, "group": group, "kind": kind,
                 "namespace": None if kind in ("CustomResourceDefinition", "ClusterOperator") else f"openshift-ns-{n // 30}",
                 "name": f"object-{n}", "runLevel": run_level, "component": f"component-{n // 12}",
                 "profiles": ["self-managed-high-availability", "single-node-developer"],
                 "capabilities": capabilities, "featureSets": None, "delete": bool(side and 30 <= n < 35),
                 "createOnly": False}
        if kind == "CustomResourceDefinition":
            entry["servedVersions"] = ["v1"] if side and n == 4 else ["v1beta1", "v1"]
        salt = rng.random()
        if side and 40 <= n < 45:
            continue  # dropped from the payload
        resources.append(entry)
        files[file] = _sha(f"{file}:{side if n % 7 == 0 else 0}:{salt}")
    return resources, dict(sorted(files.items()))


def contents(version: str, side: int) -> dict:
    resources, files = _resources(side)
    operators = {f"operator-{n}": {"versions": {"operator": version, f"operand-{n}": f"1.{20 + side}.{n}"}}
                 for n in range(33)}
    return {"version": version, "arch": "amd64", "digest": "sha256:" + _sha(version),
            "components": {"kubernetes": {"version": ("1.21.0-rc.0", "1.22.1")[side], "displayName": None}},
            "images": _images(side), "clusterOperators": operators, "manifests": len(files),
            "updateGraph": None, "installGraph": None,
            "adminGates": {"ack-4.8-kube-1.22-api-removals-in-4.9": "see https://access.redhat.com/articles/6329921"},
            "graphError": None, "warnings": [], "componentStreams": {}, "manifestFiles": files, "resources": resources}


def _cpu() -> float:
    """CPU seconds of this process, V8's thread included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--diffs", type=int, default=1000)
    args = parser.parse_args()
    old, new = contents("4.8.0", 0), contents("4.10.0", 1)
    old_bytes, new_bytes = orjson.dumps(old), orjson.dumps(new)

    started = time.perf_counter()
    first = release_changes(orjson.Fragment(old_bytes), orjson.Fragment(new_bytes))
    cold = time.perf_counter() - started

    timings = []
    for _ in range(30):
        started = time.perf_counter()
        release_changes(old, new)
        timings.append(time.perf_counter() - started)
    started, cpu_started = time.perf_counter(), _cpu()
    for _ in range(args.diffs):
        out = changes_json(release_changes(orjson.Fragment(old_bytes), orjson.Fragment(new_bytes)))
    many, many_cpu = time.perf_counter() - started, _cpu() - cpu_started
    # the build's way: each record kept (parsed) once, then diffed against two or three others
    started, cpu_started = time.perf_counter(), _cpu()
    for _ in range(100):
        forget_record(keep_record(orjson.Fragment(old_bytes)))
    keep_cpu = (_cpu() - cpu_started) / 100
    kept = keep_record(orjson.Fragment(old_bytes)), keep_record(orjson.Fragment(new_bytes))
    started, cpu_started = time.perf_counter(), _cpu()
    for _ in range(args.diffs):
        assert changes_json(release_changes(*kept)) == out
    many_kept, many_kept_cpu = time.perf_counter() - started, _cpu() - cpu_started
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    assert out == changes_json(first), "the same records gave other bytes"

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load {os.getloadavg()[0]:.2f}")
    print(f"records: {len(old['images'])} / {len(new['images'])} tags, {len(old['resources'])} / "
          f"{len(new['resources'])} resources, {len(old_bytes):,} / {len(new_bytes):,} bytes of JSON")
    print(f"changes: {len(first['images']['changed'])} images changed in {len(first['commitGroups'])} groups, "
          f"{len(first['manifests']['changed'])} files changed, {len(first['resources']['renamed'])} renamed; "
          f"change file {len(out):,} bytes")
    print(f"first diff (V8 context made, scripts loaded): {cold * 1000:.1f} ms")
    print(f"one diff from Python dicts: median {statistics.median(timings) * 1000:.2f} ms "
          f"(min {min(timings) * 1000:.2f})")
    print(f"{args.diffs} diffs from file bytes, serialised: {many:.2f} s wall, {many_cpu:.2f} s CPU, "
          f"{many_cpu / args.diffs * 1000:.2f} ms of CPU each")
    print(f"keeping (parsing) one record in the context: {keep_cpu * 1000:.2f} ms of CPU")
    print(f"{args.diffs} diffs of two kept records, serialised: {many_kept:.2f} s wall, {many_kept_cpu:.2f} s CPU, "
          f"{many_kept_cpu / args.diffs * 1000:.2f} ms of CPU each")
    print(f"process: CPU {cpu.ru_utime + cpu.ru_stime:.2f} s, peak RSS {cpu.ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
