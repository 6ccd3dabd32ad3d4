"""Layer apply: CPU to apply one release image's two content layers (issue 28, point 6).

One synthetic payload of real size (tests/support/release_payloads.py: ~890 manifest files,
5.3 MB of tar) as two gzip'd layers, the cluster-version operator's manifests/ and the
release-manifests/, applied to a MemoryTarget in 64 KiB pieces as a download hands them over.
The layers are made before the clock starts; each apply is timed in process CPU time, and so
is, between applies, the floor no Python change moves: zlib's inflate and SHA-256 of the same
blobs alone (what is above it is the Python per tar entry). With ``--against OLD.py`` (a copy of site_gen/registry/layer_apply.py from another commit, e.g.
``git show BASE:site_gen/registry/layer_apply.py > /tmp/old_apply.py``) the two are run
alternately, apply for apply, checked to give the same files, and both reported.

    python benchmarks/bench_layer_apply.py [--runs 25] [--against OLD.py] [--profile] [--json]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib.util
import json
import os
import pstats
import statistics
import sys
import time
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

from site_gen.registry import layer_apply  # noqa: E402

from registry_images import gzip_bytes, tar_bytes  # noqa: E402
from release_payloads import payload_tree  # noqa: E402

PIECE = 64 << 10


def release_layers(version: str = "4.16.3", arch: str = "amd64") -> tuple[list[bytes], int]:
    """The two content layers of one synthetic release image, and their entries."""
    tree = payload_tree(version, arch)
    layers = [gzip_bytes(tar_bytes({f"manifests/{k}": v for k, v in tree.cvo_manifests.items()})),
              gzip_bytes(tar_bytes({f"release-manifests/{k}": v for k, v in tree.release_manifests.items()}))]
    return layers, len(tree.cvo_manifests) + len(tree.release_manifests)


def apply_image(module: ModuleType, layers: list[bytes], digests: list[str]) -> dict[str, bytes]:
    tree = module.ImageTree([("release-manifests",), ("manifests",)], module.MemoryTarget(), module.TreeLimits())
    tree.check_layer_count(len(layers))
    for layer, digest in zip(layers, digests):
        tree.apply_layer(iter([layer[i:i + PIECE] for i in range(0, len(layer), PIECE)]), digest, len(layer))
    return tree.target.files


def cpu_ms(call) -> float:
    start = time.process_time()
    call()
    return (time.process_time() - start) * 1000


def load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("layer_apply_against", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def figures(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=25, help="applies of each version (default: %(default)s)")
    parser.add_argument("--against", type=Path, help="another layer_apply.py, run alternately with this one")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions of 5 applies")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    layers, entries = release_layers()
    digests = ["sha256:" + hashlib.sha256(layer).hexdigest() for layer in layers]
    versions = {"this": layer_apply}
    if args.against:
        versions = {"against": load_module(args.against), "this": layer_apply}
        files = [apply_image(module, layers, digests) for module in versions.values()]
        if files[0] != files[1]:
            print("the two versions give different files", file=sys.stderr)
            return 1
    times: dict[str, list[float]] = {name: [] for name in versions}
    floor: list[float] = []
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, module in versions.items():
            times[name].append(cpu_ms(lambda module=module: apply_image(module, layers, digests)))
        floor.append(cpu_ms(lambda: [(zlib.decompressobj(31).decompress(layer), hashlib.sha256(layer).digest())
                                     for layer in layers]))
    results: dict[str, Any] = {
        "entries": entries, "tar_bytes": sum(len(zlib.decompress(layer, 31)) for layer in layers),
        "load_average": [load, os.getloadavg()[0]], "inflate_and_sha256": figures(floor),
        **{name: figures(values) for name, values in times.items()}}
    print(f"{entries} entries, {results['tar_bytes']:,} tar bytes; load {load:.2f} to {os.getloadavg()[0]:.2f}")
    for name, shown in [("inflate + SHA-256", results["inflate_and_sha256"]),
                        *((name, results[name]) for name in versions)]:
        above = f", {shown['median'] - results['inflate_and_sha256']['median']:.1f} above the floor" \
            if name in versions else ""
        print(f"{name}: CPU ms an image, median {shown['median']:.1f} (min {shown['min']:.1f}, "
              f"max {shown['max']:.1f}) over {args.runs}{above}")
    if args.json:
        print(json.dumps(results, indent=2))
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [apply_image(layer_apply, layers, digests) for _ in range(5)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
