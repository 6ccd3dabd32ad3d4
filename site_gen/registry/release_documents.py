"""A scrape written out: release documents for people, a raw graph for builds.

``site-gen scrape --out DIR`` writes one release document per image, the format
``--releases DIR`` reads, to keep, review, diff and carry. A build from ``docker://``
writes the scrape as one graph-builder raw graph instead (the very thing the reference
graph-builder produces from a registry): one file to write, read and fingerprint
rather than thousands.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..atomic_files import write_atomically
from ..engine.release_nodes import graph_from_releases
from ..inputs.releases import KIND, parse_release
from ..model.document import Document
from ..model.errors import InputError
from ..model.graph import Graph
from ..model.release import Release
from ..publish.staging import StagedSite, published_marker

if TYPE_CHECKING:  # not at run time: the scraper loads aiohttp, which writing documents does not need
    from .scraper import ScrapedRelease, ScrapeResult


def release_document(release: ScrapedRelease) -> dict:
    return {
        "kind": KIND,
        "version": release.version,
        "architecture": release.architecture,
        "payload": release.payload,
        "previous": release.previous,
        "next": release.next,
        "metadata": release.metadata,
    }


def _json(value) -> str:
    """JSON is valid YAML: a quoted scalar or a flow sequence that cannot change type."""
    return orjson.dumps(value).decode()


def _yaml(release: ScrapedRelease, reference: str) -> str:
    """The document as YAML, written directly: PyYAML's representer took longer than the
    whole rescrape of a thousand images."""
    lines = [f"# {reference} tag {', '.join(release.tags)}", f"kind: {KIND}"]
    lines += [f"{key}: {_json(getattr(release, key))}"
              for key in ("version", "architecture", "payload", "previous", "next")]
    lines.append("metadata:" + ("" if release.metadata else " {}"))
    lines += [f"  {_json(k)}: {_json(v)}" for k, v in release.metadata.items()]
    return "\n".join(lines) + "\n"


def release_records(result: ScrapeResult) -> list[Release]:
    """The scrape as the records ``--releases DIR`` gives, checked as a build checks
    them (metadata the edge rules read); errors name the registry and tag."""
    records = []
    for scraped in result.releases:
        where = f"{result.reference} tag {scraped.tags[0]}"
        records.append(parse_release(Document(where, release_document(scraped))))  # type: ignore[arg-type]
    return records


def release_graph(result: ScrapeResult) -> Graph:
    """The graph-builder's graph of the scrape (a cycle is an error naming a tag)."""
    if not result.releases:
        raise InputError(f"no release images among {result.stats.tags:,} tags", str(result.reference))
    return graph_from_releases(release_records(result))


def write_release_documents(result: ScrapeResult, out: Path) -> tuple[Path, bool]:
    """Write ``OUT/<arch>/<version>.yaml``, replacing OUT as a whole; (OUT, whether it changed).
    OUT's marker records a digest of the documents, so an unchanged scrape leaves OUT alone
    (and is not checked again: the same documents passed the check before they were written)."""
    files = [(f"{r.architecture}/{r.version}.yaml", _yaml(r, str(result.reference)).encode())
             for r in result.releases]
    digest = hashlib.sha256()
    for name, content in files:
        digest.update(b"\0%s\0%d\0" % (name.encode(), len(content)) + content)
    marker = {"release-documents": digest.hexdigest()}
    if published_marker(out.absolute()).get("release-documents") == marker["release-documents"]:
        return out.absolute(), False
    release_graph(result)
    with StagedSite(out, [], marker) as site:
        for name, content in files:
            site.write(name, content)
    return site.out, True


def raw_graph_json(graph: Graph) -> bytes:
    """The graph as graph-builder JSON: concrete and abstract nodes, index-pair edges."""
    nodes = [{"version": version} if payload is None else
             {"version": version, "payload": payload, "metadata": graph.metadata[index]}
             for index, (version, payload) in enumerate(zip(graph.versions, graph.payloads))]
    edges = [[source, target] for source in range(len(graph.versions))
             for target in sorted(graph.children[source])]
    return orjson.dumps({"nodes": nodes, "edges": edges, "conditionalEdges": []})


def write_raw_graph(result: ScrapeResult, path: Path) -> Path:
    """Write the scrape's raw graph to ``path`` atomically (unchanged bytes are not rewritten,
    so the file and a build's fingerprint of it stay as they were)."""
    data = raw_graph_json(release_graph(result))
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise InputError(f"cannot write the scrape: {exc.strerror or exc}", path) from None
    return path
