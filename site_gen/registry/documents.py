"""Scraped releases as release documents: what ``--releases DIR`` reads, one per image."""

from __future__ import annotations

from pathlib import Path

import orjson
import yaml

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


def _yaml(release: ScrapedRelease, reference: str) -> str:
    header = f"# {reference} tag {', '.join(release.tags)}\n"
    return header + yaml.safe_dump(release_document(release), sort_keys=False, default_flow_style=False,
                                   allow_unicode=True, width=100)


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
