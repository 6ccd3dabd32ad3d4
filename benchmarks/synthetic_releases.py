"""Generate a full-scale synthetic release set from a graph-data checkout.

Real graph-data has no release payloads: Cincinnati scrapes `release-metadata`
from release images. To benchmark and test site-gen at production scale we
fabricate one release document per (version, architecture) for every version
that the channels list, with `previous` lists shaped like the real ones (all
earlier releases of the same minor plus the recent GA releases of the previous
minor).

Output layout: ``OUT/<arch>/<version>.json`` (or ``.yaml``). Generation is
deterministic: same graph-data and options give byte-identical files.

Usable as a module (`write_synthetic_releases`) and as a CLI::

    python benchmarks/synthetic_releases.py --graph-data DIR --out DIR \
        [--arches amd64,arm64,ppc64le,s390x,multi] [--format json|yaml] \
        [--previous-minor-count 15]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import yaml

ARCHES = ("amd64", "arm64", "ppc64le", "s390x", "multi")
FORMATS = ("json", "yaml")
PAYLOAD_REPO = "quay.io/openshift-release-dev/ocp-release"
ERRATA_URL = "https://access.redhat.com/errata/RHBA-2099:{:04d}"
# Channel directories whose YAML files list versions. internal-channels/ is
# not read by Cincinnati, but its versions are real releases too.
CHANNEL_DIRS = ("channels", "internal-channels")

# SemVer 2.0 grammar (https://semver.org), written out so that we depend on
# nothing beyond the standard library: no leading zeros in numeric parts.
_NUM = r"0|[1-9]\d*"
_PRE_ID = r"0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*"
_SEMVER = re.compile(
    rf"(?P<major>{_NUM})\.(?P<minor>{_NUM})\.(?P<patch>{_NUM})"
    rf"(?:-(?P<pre>(?:{_PRE_ID})(?:\.(?:{_PRE_ID}))*))?"
    r"(?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?",
    re.ASCII,
)


@dataclass(frozen=True)
class Version:
    """A SemVer 2.0 version without build metadata (channels' `+build` is dropped)."""

    major: int
    minor: int
    patch: int
    pre: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Version:
        """Parse `text`; raise ValueError if it is not SemVer 2.0."""
        match = _SEMVER.fullmatch(text)
        if match is None:
            raise ValueError(f"not SemVer 2.0: {text!r}")
        pre = match["pre"]
        return cls(
            int(match["major"]),
            int(match["minor"]),
            int(match["patch"]),
            tuple(pre.split(".")) if pre else (),
        )

    def __str__(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return f"{core}-{'.'.join(self.pre)}" if self.pre else core

    @property
    def precedence(self) -> tuple:
        """Sort key implementing SemVer 2.0 precedence (§11 of the spec).

        A release ranks above all of its prereleases. Numeric identifiers compare
        numerically and rank below alphanumeric ones, which compare in ASCII
        order; Python's tuple comparison makes a shorter identifier list rank
        lower when it is a prefix of a longer one, exactly as SemVer requires.
        """
        if not self.pre:
            return (self.major, self.minor, self.patch, 1, ())
        ids = tuple((0, int(i), "") if i.isdigit() else (1, 0, i) for i in self.pre)
        return (self.major, self.minor, self.patch, 0, ids)

    @property
    def is_ga(self) -> bool:
        return not self.pre

    @property
    def gets_previous_minor(self) -> bool:
        """GA and release candidates are upgrade targets from the previous minor.

        Engineering/feature candidates and hotfix builds are only reachable from
        their own minor, as in the real graph.
        """
        return self.is_ga or self.pre[0] == "rc"


def channel_versions(graph_data: Path) -> tuple[list[Version], list[str]]:
    """Collect the distinct versions listed by the channel files of `graph_data`.

    Returns the versions in ascending precedence and notes about skipped entries.
    """
    versions: set[Version] = set()
    notes: list[str] = []
    for dirname in CHANNEL_DIRS:
        for path in sorted((graph_data / dirname).glob("*.yaml")):
            document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for entry in document.get("versions") or ():
                try:
                    versions.add(Version.parse(str(entry)))
                except ValueError as error:
                    notes.append(f"{path.relative_to(graph_data)}: skipped {error}")
    return sorted(versions, key=lambda v: v.precedence), notes


def previous_lists(versions: list[Version], previous_minor_count: int) -> dict[Version, list[Version]]:
    """Compute each version's `previous` list, in ascending precedence.

    `versions` must be sorted by precedence, so every earlier entry of the same
    minor is strictly lower.
    """
    by_minor: dict[tuple[int, int], list[Version]] = {}
    for version in versions:
        by_minor.setdefault((version.major, version.minor), []).append(version)

    previous: dict[Version, list[Version]] = {}
    for (major, minor), members in by_minor.items():
        older_ga = [v for v in by_minor.get((major, minor - 1), ()) if v.is_ga]
        recent_older = older_ga[-previous_minor_count:] if previous_minor_count > 0 else []
        for index, version in enumerate(members):
            from_older = recent_older if version.gets_previous_minor else []
            previous[version] = from_older + members[:index]
    return previous


def assert_acyclic(previous: dict[Version, list[Version]]) -> None:
    """Every edge goes strictly upwards in precedence, so no cycle can exist.

    Cincinnati aborts the whole build on a cycle; this guards the construction.
    """
    for version, sources in previous.items():
        for source in sources:
            assert source.precedence < version.precedence, f"{source} -> {version} is not upwards"


def release_document(version: Version, arch: str, previous: list[Version], errata: int) -> dict:
    """Build one release-metadata document in the key order of real payloads."""
    digest = hashlib.sha256(f"synthetic:{version}:{arch}".encode()).hexdigest()
    metadata = {"url": ERRATA_URL.format(errata), "description": ""}
    if arch == "multi":
        metadata["release.openshift.io/architecture"] = "multi"
    return {
        "kind": "cincinnati-metadata-v0",
        "version": str(version),
        "architecture": arch,
        "payload": f"{PAYLOAD_REPO}@sha256:{digest}",
        "previous": [str(p) for p in previous],
        "next": [],
        "metadata": metadata,
    }


def serialize(document: dict, fmt: str) -> bytes:
    """Serialize keeping the document's key order (stable bytes across runs)."""
    if fmt == "json":
        return orjson.dumps(document, option=orjson.OPT_APPEND_NEWLINE)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml is ~10x faster
    return yaml.dump(document, Dumper=dumper, sort_keys=False, allow_unicode=True).encode()


def check_no_stale_documents(directory: Path, expected: set[str]) -> None:
    """Refuse to mix with documents of an earlier, different run.

    A build would read them as releases, so the set on disk would no longer be
    the generated one. Rewriting the same set in place is fine.
    """
    if not directory.is_dir():
        return
    stale = sorted(p.name for p in directory.iterdir() if p.suffix in {".json", ".yaml"} and p.name not in expected)
    if stale:
        raise FileExistsError(f"{directory} holds {len(stale)} other release documents (e.g. {stale[0]}); use an empty --out")


def write_synthetic_releases(
    graph_data: Path,
    out: Path,
    arches: tuple[str, ...] | list[str] = ARCHES,
    fmt: str = "json",
    previous_minor_count: int = 15,
) -> dict:
    """Write `out/<arch>/<version>.<fmt>` for every channel version and arch.

    Returns stats: documents, versions, edges (sum of `previous` lengths over
    all documents), arches, and `skipped` notes for non-SemVer channel entries.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    versions, notes = channel_versions(Path(graph_data))
    previous = previous_lists(versions, previous_minor_count)
    assert_acyclic(previous)
    file_names = {f"{v}.{fmt}" for v in versions}

    edges = 0
    for arch in arches:
        directory = Path(out) / arch
        check_no_stale_documents(directory, file_names)
        directory.mkdir(parents=True, exist_ok=True)
        # The errata number is per version, shared by all arches as in reality.
        for errata, version in enumerate(versions, start=1):
            document = release_document(version, arch, previous[version], errata)
            (directory / f"{version}.{fmt}").write_bytes(serialize(document, fmt))
            edges += len(previous[version])
    return {
        "documents": len(versions) * len(arches),
        "versions": len(versions),
        "edges": edges,
        "arches": list(arches),
        "skipped": notes,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph-data", type=Path, required=True, help="graph-data checkout (reads channels/*.yaml)")
    parser.add_argument("--out", type=Path, required=True, help="output directory (gets one subdirectory per arch)")
    parser.add_argument("--arches", default=",".join(ARCHES), help="comma-separated architectures (default: %(default)s)")
    parser.add_argument("--format", choices=FORMATS, default="json", help="document format (default: %(default)s)")
    parser.add_argument(
        "--previous-minor-count",
        type=int,
        default=15,
        help="GA releases of the previous minor in each GA/rc release's previous list (default: %(default)s)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    arches = [a for a in args.arches.split(",") if a]
    if not arches:
        sys.exit("error: --arches is empty")
    started = time.perf_counter()
    try:
        stats = write_synthetic_releases(args.graph_data, args.out, arches, args.format, args.previous_minor_count)
    except (OSError, ValueError, yaml.YAMLError) as error:
        sys.exit(f"error: {error}")
    for note in stats["skipped"]:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"wrote {stats['documents']} release documents ({stats['versions']} versions x {len(arches)} arches, "
        f"{stats['edges']} edges, {len(stats['skipped'])} entries skipped) to {args.out} "
        f"in {time.perf_counter() - started:.2f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
