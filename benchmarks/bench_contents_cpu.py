"""Release contents: CPU per release image, from a payload tree to the contents record.

Synthetic payloads of real size (tests/support/release_payloads.py: 150 image tags, ~900 manifest
files, ~5 MB each) for the z-streams of one or more minors on five architectures, read in
the order a build meets them, with one manifest memo (what --cache-dir would keep). The tree
is made before the clock starts: only ``release_contents`` and the JSON bytes are timed
(process CPU time). Reports the first image (nothing remembered), the others, the mean over
the whole set, and the memo's size.

    python benchmarks/bench_contents_cpu.py [--minors 4.15,4.16] [--zstreams 8] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

from site_gen.contents.manifest_files import ManifestMemo  # noqa: E402
from site_gen.contents.release_contents import contents_json, release_contents  # noqa: E402

from release_payloads import payload_tree  # noqa: E402

ARCHES = ("amd64", "arm64", "ppc64le", "s390x", "multi")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minors", default="4.15,4.16", help="comma-separated (default: %(default)s)")
    parser.add_argument("--zstreams", type=int, default=8, help="z-streams per minor (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    args = parser.parse_args(argv)
    memo = ManifestMemo()
    times: list[float] = []
    sizes: list[int] = []
    for minor in args.minors.split(","):
        for z in range(args.zstreams):
            for arch in ARCHES:
                tree = payload_tree(f"{minor}.{z}", arch)
                start = time.process_time()
                data = contents_json(release_contents(tree, memo=memo))
                times.append(time.process_time() - start)
                sizes.append(len(data))
    cold = times[0]
    warm = times[1:]
    fresh = []
    for arch in ARCHES[:3]:   # no memo at all: every file parsed
        tree = payload_tree("4.15.0", arch)
        start = time.process_time()
        contents_json(release_contents(tree))
        fresh.append(time.process_time() - start)
    memo_bytes = len(orjson.dumps(memo.entries))
    result = {
        "images": len(times), "firstImageMs": round(cold * 1000, 1),
        "otherImagesMedianMs": round(statistics.median(warm) * 1000, 1),
        "otherImagesMaxMs": round(max(warm) * 1000, 1),
        "meanPerImageMs": round(statistics.mean(times) * 1000, 1),
        "noMemoMedianMs": round(statistics.median(fresh) * 1000, 1),
        "memoEntries": len(memo.entries), "memoJsonBytes": memo_bytes, "memoHits": memo.hits,
        "memoMisses": memo.misses, "contentsJsonBytesMedian": int(statistics.median(sizes)),
    }
    print(f"{result['images']} images ({args.minors}, {args.zstreams} z-streams x {len(ARCHES)} arches)")
    print(f"  first image (empty memo): {result['firstImageMs']} ms CPU; without any memo: "
          f"{result['noMemoMedianMs']} ms")
    print(f"  every other image: median {result['otherImagesMedianMs']} ms, max {result['otherImagesMaxMs']} ms")
    print(f"  mean over the set: {result['meanPerImageMs']} ms per image")
    print(f"  memo: {result['memoEntries']:,} entries, {memo_bytes / 1e6:.1f} MB as JSON; "
          f"{memo.hits:,} hits, {memo.misses:,} misses")
    print(f"  contents.json: {result['contentsJsonBytesMedian'] / 1e3:.0f} KB per image (median)")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
