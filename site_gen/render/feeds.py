"""Atom feeds, so admins subscribe instead of polling pages: one per channel × architecture
(``feeds/<channel>/<arch>.atom``) and one per channel kind × architecture
(``feeds/kind-<kind>/<arch>.atom``).

Entries: the newest releases of the channel, every risk on its updates (a risk whose text,
rules or updates change gets a new entry id, so readers show it again), and, with
``--changes-since``, the updates and releases that change removed. Ids are ``urn:uuid``s
derived from the content, links are relative to the feed, times come from git (see
feed_times): the same input gives byte-identical feeds.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .. import layout
from ..inputs.blame_store import ChannelBlames
from ..model import versions
from ..model.graph_data import Channel, GraphData
from ..model.times import parse_time
from ..promotion.model_shape import PromotionJson
from ..publish.precompressed import MIN_LENGTH, write_with_gzip
from ..publish.staging import StagedSite
from . import links
from .changes_page import ChangesJson
from .channel_names import kind_of
from .feed_times import FeedTimes
from .risk_catalog import RiskInfo
from .served_views import ServedView

NEWEST_RELEASES = 20  # release entries per channel
ENTRIES = 50          # entries per feed
_NAMESPACE = uuid.UUID("6d3f9a8e-52b1-4c1e-9a52-3f1f0c6b2a10")  # this generator's ids


@dataclass(frozen=True)
class Entry:
    key: str          # what the id is derived from: changes whenever the entry's content does
    title: str
    updated: datetime
    link: str         # a site path
    summary: str


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _release_entries(channel: Channel, arch: str, view: ServedView, times: FeedTimes) -> list[Entry]:
    names = view.versions
    into: dict[str, int] = {}
    for b, count in Counter(map(itemgetter(1), view.edges)).items():  # counted in C: 1.2M edges
        into[names[b]] = into.get(names[b], 0) + count
    entries = []
    for version in sorted(names, key=versions.sort_key)[-NEWEST_RELEASES:]:
        entries.append(Entry(
            f"release {channel.name} {arch} {version}", f"{version} in {channel.name} ({arch})",
            times.entered(channel, version), layout.release_page(version),
            f"{version} is served in {channel.name} on {arch}; {into.get(version, 0)} recommended "
            f"updates lead to it."))
    return entries


def _risk_entries(channel: str, arch: str, view: ServedView, times: FeedTimes,
                  risk_files: dict[str, list[Path]]) -> list[Entry]:
    # sort_key is a total order (it ends with the text): ranks compare the same, and faster;
    # each update is (rank of its target, rank of its source), sorted as plain int pairs
    names = view.versions
    ordered = sorted(set(names), key=versions.sort_key)
    rank = {v: i for i, v in enumerate(ordered)}
    covered: dict[str, list[tuple[int, int]]] = {}
    risks: dict[str, RiskInfo] = {}
    for group_risks, edges in view.conditional:
        updates = [(rank[names[b]], rank[names[a]]) for a, b in edges]
        for risk in group_risks:
            risks[risk.name] = risk
            covered.setdefault(risk.name, []).extend(updates)
    entries = []
    for name, risk in sorted(risks.items()):
        updates = sorted(covered[name])
        rules = ", ".join(risk.rule_types)
        listed = ", ".join([f"{ordered[b]} → {ordered[a]}" for a, b in updates])
        moments = [times.changed(path) for path in risk_files.get(name, [])]
        entries.append(Entry(
            f"risk {channel} {arch} {name} {risk.url} {risk.message} {rules} {listed}",
            f"Risk {name} on {len(updates)} update{'s' if len(updates) != 1 else ''} in {channel} ({arch})",
            max(moments) if moments else times.fallback, layout.risk_page(risk.slug),
            f"{risk.message} Rules: {rules}. Updates: {listed}."))
    return entries


def _removal_entries(channel: str, arch: str, change: dict[str, Any] | None, since: str,
                     times: FeedTimes) -> list[Entry]:
    """``change``: this graph's entry of the --changes-since model (diffing's JSON)."""
    if not change:
        return []
    removed = [f"{e['from']} → {e['to']}" for e in change["updates"]["removed"]]
    removed += [f"{e['from']} → {e['to']} (conditional)" for e in change["conditionalUpdates"]["removed"]]
    nodes = change["nodes"]["removed"]
    if not removed and not nodes:
        return []
    parts = []
    if removed:
        parts.append(f"Updates removed: {', '.join(removed)}.")
    if nodes:
        parts.append(f"Releases removed: {', '.join(nodes)}.")
    text = " ".join(parts)
    return [Entry(f"removed {channel} {arch} {since} {text}",
                  f"{len(removed)} update{'s' if len(removed) != 1 else ''} and {len(nodes)} "
                  f"release{'s' if len(nodes) != 1 else ''} removed from {channel} ({arch}) since {since}",
                  times.revision_time(), layout.channel_page(channel, arch), text)]


def _newest(entries: list[Entry]) -> list[Entry]:
    """The ENTRIES a feed shows, newest first (a stable sort: taking the newest of a list
    that grows, again and again, gives what one sort of the whole list would)."""
    return sorted(entries, key=lambda e: (e.updated, e.title, e.key), reverse=True)[:ENTRIES]


def _atom(path: str, title: str, alternate: str, entries: list[Entry], fallback: datetime) -> bytes:
    entries = _newest(entries)
    updated = max((e.updated for e in entries), default=fallback)
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<feed xmlns="http://www.w3.org/2005/Atom">',
           f"<id>urn:uuid:{uuid.uuid5(_NAMESPACE, 'feed ' + path)}</id>",
           f"<title>{escape(title)}</title>",
           f"<updated>{_when(updated)}</updated>",
           "<author><name>site-gen</name></author>",
           f"<link rel=\"self\" href={quoteattr(links.href(path, path))}/>",
           f"<link rel=\"alternate\" type=\"text/html\" href={quoteattr(links.href(path, alternate))}/>"]
    for entry in entries:
        out += ["<entry>",
                f"<id>urn:uuid:{uuid.uuid5(_NAMESPACE, entry.key)}</id>",
                f"<title>{escape(entry.title)}</title>",
                f"<updated>{_when(entry.updated)}</updated>",
                f"<link rel=\"alternate\" type=\"text/html\" href={quoteattr(links.href(path, entry.link))}/>",
                f"<summary>{escape(entry.summary)}</summary>",
                "</entry>"]
    out.append("</feed>")
    return ("\n".join(out) + "\n").encode("utf-8")


def feed_kinds(page_arches: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """The kind feeds there are: each channel kind with the architectures that have a page of it."""
    kinds: dict[str, set[str]] = {}
    for channel, arches in page_arches.items():
        kinds.setdefault(kind_of(channel), set()).update(arches)
    return [(kind, sorted(arches)) for kind, arches in sorted(kinds.items()) if arches]


def projected_times(promotion: PromotionJson | None) -> dict[tuple[str, str], datetime]:
    """(channel, version) -> when --promote-until's projection promotes it there: its projected
    time, else (unknown) the projection's horizon."""
    if not promotion or not promotion["promotedUntil"]:
        return {}
    until = parse_time(promotion["promotedUntil"])
    return {(channel["name"], item["version"]): parse_time(item["promoted"]) if item["promoted"] else until
            for channel in promotion["channels"] for item in channel["promoted"]}


def write_feeds(site: StagedSite, data: GraphData, views: Mapping[tuple[str, str], ServedView],
                changes: ChangesJson | None, since: str | None, blames: ChannelBlames | None = None,
                promotion: PromotionJson | None = None) -> int:
    """``views``: (channel, arch) -> served graph with a release, its risks with their page
    slugs; ``changes``: the --changes-since model (diffing's JSON) or None; ``blames``: the
    build's git blame of the channel files (shared with promotion). Returns the number of feeds."""
    times = FeedTimes(data, blames, projected_times(promotion))
    served = {name for name, _ in views}
    times.prefetch([channel for channel in data.channels if channel.name in served])
    risk_files: dict[str, list[Path]] = {}
    for edge in data.blocked_edges:
        if edge.risk is not None:
            risk_files.setdefault(edge.risk.name, []).append(edge.path)
    changed = {(g["channel"], g["arch"]): g for g in (changes or {}).get("graphs", [])}
    by_kind: dict[tuple[str, str], list[Entry]] = {}
    written = 0
    for channel in data.channels:
        for (name, arch), view in views.items():
            if name != channel.name:
                continue
            entries = (_release_entries(channel, arch, view, times)
                       + _risk_entries(name, arch, view, times, risk_files)
                       + _removal_entries(name, arch, changed.get((name, arch)), since or "", times))
            path = layout.feed_path(name, arch)
            feed = _atom(path, f"{name} ({arch}): releases, risks and removed updates",
                         layout.channel_page(name, arch), entries, times.fallback)
            # with its .gz at once, both kept from the published site when unchanged (as pages are)
            write_with_gzip(site, path, feed, MIN_LENGTH)
            # keeping only what a kind feed can show: all entries were 30 MiB at full scale
            kind_feed = (kind_of(name), arch)
            by_kind[kind_feed] = _newest(by_kind.get(kind_feed, []) + entries)
            written += 1
    for (kind, arch), entries in sorted(by_kind.items()):
        path = layout.kind_feed_path(kind, arch)
        feed = _atom(path, f"Every {kind} channel ({arch}): releases, risks and removed updates",
                     layout.HOME, entries, times.fallback)
        write_with_gzip(site, path, feed, MIN_LENGTH)
        written += 1
    return written
