"""Scraped releases as release documents: what ``--releases DIR`` reads, one per image."""

from __future__ import annotations

from pathlib import Path

import orjson

from ..engine.scrape import graph_from_releases
from ..errors import InputError
from ..inputs.documents import Document
from ..inputs.releases import KIND, Release, parse_release
from ..publish.staging import StagedSite
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


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar: JSON's string syntax is a subset of it."""
    return orjson.dumps(text).decode()


def _yaml(release: ScrapedRelease, reference: str) -> str:
    """The document as YAML, written directly: PyYAML's representer took longer than the
    whole rescrape of a thousand images. Every scalar is quoted, so none can change type."""
    lines = [f"# {reference} tag {', '.join(release.tags)}", f"kind: {KIND}"]
    for key in ("version", "architecture", "payload"):
        lines.append(f"{key}: {_quoted(getattr(release, key))}")
    for key, listed in (("previous", release.previous), ("next", release.next)):
        lines.append(f"{key}: [{', '.join(_quoted(v) for v in listed)}]")
    lines.append("metadata:" + ("" if release.metadata else " {}"))
    lines += [f"  {_quoted(k)}: {_quoted(v)}" for k, v in release.metadata.items()]
    return "\n".join(lines) + "\n"


def release_records(result: ScrapeResult) -> list[Release]:
    """The scrape as the records ``--releases DIR`` gives, checked as a build checks
    them (metadata the edge rules read, cycles); errors name the registry and tag."""
    records = []
    for scraped in result.releases:
        where = f"{result.reference} tag {scraped.tags[0]}"
        records.append(parse_release(Document(where, release_document(scraped))))  # type: ignore[arg-type]
    graph_from_releases(records)
    return records


def write_release_documents(result: ScrapeResult, out: Path, format: str = "yaml") -> Path:
    """Write ``OUT/<arch>/<version>.yaml`` (or ``.json``), replacing OUT as a whole."""
    release_records(result)
    if not result.releases:
        raise InputError(f"no release images among {result.stats.tags:,} tags; nothing written",
                         str(result.reference))
    with StagedSite(out, []) as site:
        for release in result.releases:
            name = f"{release.architecture}/{release.version}.{format}"
            if format == "json":
                site.write(name, orjson.dumps(release_document(release), option=orjson.OPT_INDENT_2))
            else:
                site.write(name, _yaml(release, str(result.reference)))
    return site.out
