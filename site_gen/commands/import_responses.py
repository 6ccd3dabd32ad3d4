"""``site-gen import``: update-service responses -> release documents.

A disconnected site has no registry to scrape, but it can carry graph JSON
downloaded from an update service (one per channel × arch). Each served node
gives a release's payload and metadata; every update into it, recommended or
conditional, gives an entry of its ``previous``. Keys the graph-builder adds
(``io.openshift.upgrades.graph.*``) are dropped: the next build derives them
again from graph-data.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..inputs.releases import ARCH_NAME, DIGEST_PULLSPEC, KIND
from ..inputs.structured_files import load_json
from ..model import versions
from ..model.errors import InputError, Warnings
from ..model.metadata_keys import PREFIX
from ..publish.output_lock import OutputLock
from ..publish.staging import RELEASES, StagedSite, check_destination
from .arguments import add_quiet_argument

KNOWN_ARCHES = ("amd64", "arm64", "ppc64le", "s390x", "multi", "riscv64", "386", "arm", "mips64le")
_ARCH_IN_NAME = re.compile(r"(?:^|[-_=])(" + "|".join(KNOWN_ARCHES) + r")$")


@dataclass
class ImportedRelease:
    version: str
    arch: str
    payload: str
    metadata: dict[str, str]
    source: Path
    previous: set[str] = field(default_factory=set)


@dataclass
class ImportResult:
    files: int
    releases: int
    out: Path


def _input_files(inputs: list[Path]) -> list[Path]:
    files = []
    for path in inputs:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*.json") if p.name != "index.json")
        elif path.is_file():
            files.append(path)
        else:
            raise InputError("input not found", path)
    if not files:
        raise InputError("no graph JSON files found in the inputs")
    return files


def architecture_of(path: Path, override: str | None) -> str:
    if override:
        if not ARCH_NAME.fullmatch(override):
            raise InputError(f"--arch {override!r} must match ^[0-9a-z]+$ (e.g. amd64, multi)")
        return override
    match = _ARCH_IN_NAME.search(path.stem)
    if match:
        return match.group(1)
    raise InputError("cannot tell which architecture this graph is for; name the file "
                     "<arch>.json or pass --arch", path)


def _graph_document(path: Path) -> dict:
    data = load_json(path, "graph response").data
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) \
            or not isinstance(data.get("edges"), list):
        raise InputError("not an update-service graph: expected an object with 'nodes' "
                         "and 'edges'", path)
    return data


def _read_graph(path: Path, arch: str, releases: dict, warnings: Warnings) -> None:
    data = _graph_document(path)
    names = []
    for index, node in enumerate(data["nodes"]):
        if not isinstance(node, dict) or not isinstance(node.get("payload"), str) \
                or not isinstance(node.get("metadata", {}), dict):
            raise InputError(f"nodes[{index}] needs 'version', 'payload' and 'metadata'", path)
        version = versions.canonical(versions.parse(node.get("version"), f"nodes[{index}].version", path))
        if not DIGEST_PULLSPEC.match(node["payload"]):
            raise InputError(f"nodes[{index}] ({version}): payload {node['payload']!r} is not "
                             "a pull spec by digest", path)
        metadata = {k: v for k, v in node.get("metadata", {}).items()
                    if isinstance(v, str) and not k.startswith(f"{PREFIX}.")}
        known = releases.get((version, arch))
        if known is None:
            releases[version, arch] = ImportedRelease(version, arch, node["payload"], metadata, path)
        elif known.payload != node["payload"]:
            raise InputError(f"release {version} ({arch}) has payload {node['payload']} here but "
                             f"{known.payload} in {known.source}", path)
        elif known.metadata != metadata:
            warnings.add(f"release {version} ({arch}) has different metadata in {known.source}; "
                         "keeping the first", path)
        names.append(version)

    def add_update(source: str, target: str) -> None:
        releases[target, arch].previous.add(source)

    for index, edge in enumerate(data["edges"]):
        if not (isinstance(edge, list) and len(edge) == 2 and all(
                isinstance(i, int) and 0 <= i < len(names) for i in edge)):
            raise InputError(f"edges[{index}] must be a pair of node indices", path)
        add_update(names[edge[0]], names[edge[1]])
    known_names = set(names)
    for source, target in _conditional_edges(data, path):
        if source in known_names and target in known_names:
            add_update(source, target)


def _conditional_edges(data: dict, path: Path) -> list[tuple[str, str]]:
    """Every ``{from, to}`` of ``conditionalEdges``, checked to be the response's shape."""
    groups = data.get("conditionalEdges") or []
    if not isinstance(groups, list):
        raise InputError(f"'conditionalEdges' must be a list, got {type(groups).__name__}", path)
    found = []
    for index, group in enumerate(groups):
        where = f"conditionalEdges[{index}]"
        if not isinstance(group, dict) or not isinstance(group.get("edges", []), list):
            raise InputError(f"{where} must be an object with an 'edges' list", path)
        for number, edge in enumerate(group.get("edges", [])):
            if not (isinstance(edge, dict) and isinstance(edge.get("from"), str)
                    and isinstance(edge.get("to"), str)):
                raise InputError(f"{where}.edges[{number}] must be an object with string 'from' and 'to'",
                                 path)
            found.append((edge["from"], edge["to"]))
    return found


def _document(release: ImportedRelease) -> str:
    doc = {
        "kind": KIND,
        "version": release.version,
        "architecture": release.arch,
        "payload": release.payload,
        "previous": sorted(release.previous, key=versions.sort_key),
        "next": [],
        "metadata": {key: release.metadata[key] for key in sorted(release.metadata)},
    }
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)


def import_responses(inputs: list[Path], out: Path, arch: str | None, warnings: Warnings) -> ImportResult:
    files = _input_files(inputs)
    releases: dict[tuple[str, str], ImportedRelease] = {}
    for path in files:
        _read_graph(path, architecture_of(path, arch), releases, warnings)
    out = check_destination(out, list(inputs), RELEASES)
    with OutputLock(out), StagedSite(out, list(inputs), kind=RELEASES) as site:
        for (version, release_arch), release in sorted(releases.items()):
            site.write(f"{release_arch}/{version}.yaml", _document(release))
    return ImportResult(len(files), len(releases), site.out)


EPILOG = """\
Each input is a graph JSON as an update service answers
GET /api/upgrades_info/v1/graph?channel=C&arch=A. The architecture of each file is
taken from --arch, else from a file named <arch>.json (the layout this tool publishes,
<channel>/<arch>.json), else from a name ending in -<arch>.json.

Writes OUT/<arch>/<version>.yaml release documents: payload and metadata from the
nodes, `previous` from every update (recommended or conditional) into the release
in any of the inputs. Silently blocked updates are not in the responses, so they are
absent from `previous`; that changes nothing as long as the graph-data still blocks them.
"""


def add_parser(sub) -> None:
    imp = sub.add_parser("import", help="graph JSON from an update service -> release documents",
                         epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Turn downloaded update-service responses into release "
                                     "documents, so a disconnected site can be rebuilt.")
    imp.add_argument("inputs", nargs="+", type=Path, metavar="FILE_OR_DIR",
                     help="graph JSON files, or directories searched for *.json")
    imp.add_argument("--out", type=Path, required=True, metavar="DIR",
                     help="directory for the release documents (replaced as a whole)")
    imp.add_argument("--arch", metavar="ARCH", help="architecture of every input file")
    add_quiet_argument(imp, "no summary or warnings")


def run(args, warnings: Warnings) -> int:
    result = import_responses(args.inputs, args.out, args.arch, warnings)
    if not args.quiet:
        print(summary_line(result), file=sys.stderr)
    return 0


def summary_line(result: ImportResult) -> str:
    return f"imported {result.releases:,} releases from {result.files:,} graph files -> {result.out}"
