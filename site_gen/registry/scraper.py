"""A registry repository -> release records: the reference scrape (spec §3-§5), done right.

Every tag's manifest is read (tags are not parsed; cosign signature tags are skipped),
or, for a tag the last scrape saw, confirmed unchanged with a 304 (``cache.TagIndex``).
Tags that share a digest are resolved once; each digest is resolved once per run (a
single flight shared by the workers) and once ever with the persistent cache. It all
runs on one event loop: ``--concurrency`` workers share the client's connection pool.
An image gives its architecture from its config and its release-metadata from the
first layer, top down, that has the entry. A list gives ``multi`` (or its only
child's architecture) and the metadata of its last child.

Deliberately not copied from the reference: the ``0.0.0`` placeholder node, a crash on
an empty list, a failed scrape when a sparse mirror lacks the last child (an earlier
child is used, with a warning), OCI manifests skipped, node order left to chance, and a
tag skipped when the registry fails it: a registry fault (``RegistryFault``: 5xx or 429
after the retries, no answer, bytes that do not match their digest, a manifest over the
cap) fails the scrape naming the tag, so a hiccup never publishes a graph without a
release; ``skip_faulty_tags`` skips such tags instead, each with a warning. Only what was
read and verified is cached, so a fault is never remembered.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import orjson

from ..event_loop import each, loop_factory
from ..inputs.releases import MULTI_KEY
from ..model import versions
from ..model.errors import Warnings
from ..progress import Progress
from .cache import DigestCache, Resolution, Tagged, TagIndex
from .client import (
    ConnectionOptions,
    Fetched,
    ImageProblem,
    Missing,
    RegistryClient,
    RegistryError,
    RegistryFault,
)
from .layers import CorruptLayer, LayerLimits, NotAnArchive, find_release_metadata
from .manifests import OCI_TYPES, Image, ImageList, parse_manifest
from .metadata import parse_release_metadata
from .reference import RegistryReference

# cosign's tag-based signatures, attestations and SBOMs: sha256-<hex>.sig (spec §9.1)
SIGNATURE_TAG = re.compile(r"sha256-[0-9a-f]{64}\.(?:sig|att|sbom)")


@dataclass
class ScrapeOptions:
    connection: ConnectionOptions = field(default_factory=ConnectionOptions)
    cache_dir: Path | None = None   # None: no persistent cache
    limits: LayerLimits = field(default_factory=LayerLimits)
    skip_faulty_tags: bool = False  # a registry fault skips the tag (with a warning) instead of failing


@dataclass
class ScrapedRelease:
    version: str                 # without build metadata
    architecture: str
    payload: str                 # host[:port]/repository@digest
    digest: str
    tags: list[str]
    previous: list[str]
    next: list[str]
    metadata: dict[str, str]

    @property
    def node_version(self) -> str:
        return f"{self.version}+{self.architecture}"


@dataclass
class ScrapeStats:
    tags: int = 0
    signature_tags: int = 0      # cosign .sig/.att/.sbom tags, not read
    images: int = 0              # distinct manifest digests read from tags
    cached: int = 0              # digests answered by the persistent cache
    fetched: int = 0             # digests whose config and layers were read
    skipped: int = 0             # tags skipped with a warning (an authentic image that is no release image)
    faulty: int = 0              # tags skipped for a registry fault (only with skip_faulty_tags)
    without_metadata: int = 0    # images with no release-metadata
    shards: int = 0              # per-architecture members of multi releases, dropped
    oci: int = 0                 # releases from OCI manifests or indexes (the reference skips them)
    releases: int = 0
    multi: int = 0
    requests: int = 0
    unchanged: int = 0           # tags whose manifest request answered 304: same digest as last time

    def summary(self) -> str:
        return (f"{self.tags:,} tags: {self.releases:,} releases ({self.multi:,} multi, "
                f"{self.oci:,} from OCI manifests); {self.images:,} images, {self.cached:,} from the "
                f"cache, {self.fetched:,} fetched; skipped {self.signature_tags:,} signature tags, "
                f"{self.skipped:,} unreadable, {self.without_metadata:,} without release-metadata, "
                f"{self.shards:,} multi shards; {self.requests:,} requests, {self.unchanged:,} of them "
                "answered 304 (tag unchanged)"
                + (f"; {self.faulty:,} FAULTY tags skipped (--skip-faulty-tags)" if self.faulty else ""))


@dataclass
class ScrapeResult:
    reference: RegistryReference
    releases: list[ScrapedRelease]   # in architecture, then SemVer order
    stats: ScrapeStats


class _Scrape:
    def __init__(self, client: RegistryClient, options: ScrapeOptions, warnings: Warnings, index: TagIndex):
        self.client = client
        self.options = options
        self.warnings = warnings
        self.cache = DigestCache(options.cache_dir)
        self.index = index
        self.stats = ScrapeStats()
        self._flights: dict[str, asyncio.Future[Resolution]] = {}
        self.faults: list[str] = []  # skipped with --skip-faulty-tags

    def warn(self, message: str) -> None:
        self.warnings.add(message, str(self.client.reference))

    def fault(self, tags: list[str], exc: RegistryFault) -> None:
        """A registry fault on ``tags``: the scrape fails, or, if asked, the tags are skipped."""
        message = f"tag {', '.join(sorted(tags))}: {exc}"
        if not self.options.skip_faulty_tags:
            raise RegistryError(self.client.reference, message)
        self.warn(f"{message}; skipped (--skip-faulty-tags)")
        self.stats.faulty += len(tags)
        self.faults.append(message)

    async def once(self, digest: str, resolve: Callable[[], Awaitable[Resolution]]) -> Resolution:
        """Resolve each digest once, even when workers ask for it at the same time."""
        known = self._flights.get(digest)
        if known is not None:
            return await asyncio.shield(known)
        flight = self._flights[digest] = asyncio.get_running_loop().create_future()
        try:
            result = await resolve()
        except asyncio.CancelledError:
            flight.cancel()
            raise
        except BaseException as exc:
            flight.set_exception(exc)
            flight.exception()  # retrieved: no "never retrieved" warning when no one else waits
            raise
        flight.set_result(result)
        return result

    async def resolution(self, digest: str, fetched: Fetched | None, tag: str, tagged: bool = True) -> Resolution:
        """What a tagged image (``fetched``: its manifest, None after a 304) or a list child holds."""
        async def resolve() -> Resolution:
            cached = self.index.resolutions.get(digest) or self.cache.get(digest)
            if cached is not None:
                self.stats.cached += tagged
                return cached
            manifest = parse_manifest(fetched or await self.read_manifest(digest))
            if isinstance(manifest, ImageList):
                found = await self.from_list(manifest, tag)
            else:
                found = await self.from_image(manifest, tag)
            self.stats.fetched += tagged
            self.cache.put(digest, found)
            return found
        return await self.once(digest, resolve)

    async def read_manifest(self, digest: str) -> Fetched:
        fetched = await self.client.manifest(digest)
        assert fetched is not None  # asked without If-None-Match: never a 304
        return fetched

    async def from_list(self, manifest: ImageList, tag: str) -> Resolution:
        children = manifest.children
        if not children:
            raise ImageProblem("empty manifest list")
        arch = children[0].architecture if len(children) == 1 else "multi"
        for position, child in enumerate(reversed(children)):
            try:
                found = await self.resolution(child.digest, None, tag, tagged=False)
            except (ImageProblem, Missing) as exc:  # Missing: not copied to a sparse mirror
                self.warn(f"tag {tag}: list child {child.digest} ({child.architecture}) is unreadable "
                          f"({exc}); trying the one before it")
                continue
            except RegistryFault as exc:  # not a reason to take another child's metadata
                raise RegistryFault(f"list child {child.digest} ({child.architecture}): {exc}") from None
            if position:
                self.warn(f"tag {tag}: release-metadata taken from list child {child.digest} "
                          f"({child.architecture}), not the last one (a sparse mirror?)")
            return Resolution(arch, found.release, found.note)
        raise ImageProblem("no child of the manifest list is readable")

    async def from_image(self, manifest: Image, tag: str) -> Resolution:
        config = await self.client.blob(manifest.config, "config")
        try:
            arch = orjson.loads(config).get("architecture")
        except (ValueError, AttributeError):
            arch = None
        if not isinstance(arch, str) or not arch:
            raise ImageProblem(f"config {manifest.config} has no 'architecture'")
        notes = []
        limits = self.options.limits
        for layer in reversed(manifest.layers):  # top layer first, as the reference searches
            if layer.size > limits.compressed:
                raise RegistryFault(f"layer {layer.digest} is {layer.size:,} bytes, over the "
                                    f"{limits.compressed:,} limit")
            try:
                raw = await self.client.read_blob(
                    layer.digest, "layer", partial(find_release_metadata, digest=layer.digest, limits=limits))
            except CorruptLayer as exc:
                raise RegistryFault(f"layer {layer.digest} {exc}") from None
            except NotAnArchive:
                continue
            if raw is None:
                continue
            try:
                return Resolution(arch, parse_release_metadata(raw))
            except ValueError as exc:  # the reference falls back to lower layers silently
                notes.append(f"layer {layer.digest}: release-metadata {exc}")
        return Resolution(arch, None, "; ".join(notes))


def scrape_registry(reference: RegistryReference, options: ScrapeOptions, warnings: Warnings,
                    progress: Progress | None = None) -> ScrapeResult:
    """Read every tag of ``reference`` into release records, or raise a RegistryError.
    Runs its own event loop; layers are decoded on ``concurrency`` worker threads."""
    results: list[ScrapeResult] = []

    async def scrape() -> None:
        # The result leaves the loop through a list, not as the task's result: the Runner's
        # SIGINT handler holds the task, and restoring the handler formats its repr (in
        # signal's enum lookup), which would repr every release (0.3 s for 6,845).
        results.append(await _scrape(reference, options, warnings, progress or Progress(quiet=True)))

    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.get_loop().set_default_executor(
            ThreadPoolExecutor(options.connection.concurrency, thread_name_prefix="layers"))
        runner.run(scrape())
    return results[0]


async def _scrape(reference: RegistryReference, options: ScrapeOptions, warnings: Warnings,
                  progress: Progress) -> ScrapeResult:
    index = TagIndex.load(options.cache_dir, reference)
    workers = options.connection.concurrency
    async with RegistryClient(reference, options.connection, warnings) as client:
        await client.connect()
        run = _Scrape(client, options, warnings, index)
        stats = run.stats
        tags = await client.tags()
        stats.tags = len(tags)
        readable = [tag for tag in tags if not SIGNATURE_TAG.fullmatch(tag)]
        stats.signature_tags = len(tags) - len(readable)
        tagged: dict[str, Tagged] = {}           # what each readable tag names
        fetched: dict[str, Fetched] = {}         # manifests read in full (not after a 304)
        by_digest: dict[str, list[str]] = {}

        with progress.stage("reading manifests", len(readable), "tag") as bar:
            async def read_tag(tag: str) -> None:
                known = index.tags.get(tag)
                try:
                    manifest = await client.manifest(tag, known.digest if known else None)
                except RegistryFault as exc:
                    run.fault([tag], exc)
                    return
                finally:
                    bar.update(1)
                if manifest is None:
                    assert known is not None
                    stats.unchanged += 1
                    tagged[tag] = known
                else:
                    tagged[tag] = Tagged(manifest.digest, manifest.media_type)
                    fetched.setdefault(manifest.digest, manifest)
                by_digest.setdefault(tagged[tag].digest, []).append(tag)
            await each(readable, read_tag, workers)
        stats.images = len(by_digest)

        resolved: dict[str, Resolution] = {}
        with progress.stage("reading images", len(by_digest), "image") as bar:
            async def read_image(digest: str) -> None:
                tags_of = by_digest[digest]
                try:
                    resolved[digest] = await run.resolution(digest, fetched.get(digest), min(tags_of))
                except ImageProblem as exc:
                    run.warn(f"tag {', '.join(sorted(tags_of))}: {exc}; skipped")
                    stats.skipped += len(tags_of)
                except RegistryFault as exc:
                    run.fault(tags_of, exc)
                bar.update(1)
                bar.set_postfix(cached=stats.cached, fetched=stats.fetched, skipped=stats.skipped, refresh=False)
            await each(sorted(by_digest), read_image, workers)
        stats.requests = client.requests
    media_types = {t.digest: t.media_type for t in tagged.values()}
    releases = _releases(reference, media_types, by_digest, resolved, run)
    if run.faults and not releases:  # an empty graph is never what skipping meant
        raise RegistryError(reference, f"no release is readable, {stats.faulty:,} faulty tags: nothing to "
                                       f"publish, even with --skip-faulty-tags (the first: {min(run.faults)})")
    index.save(reference, {tag: t for tag, t in tagged.items() if t.digest in resolved}, resolved)
    return ScrapeResult(reference, releases, stats)


def _releases(reference: RegistryReference, media_types: dict[str, str], by_digest: dict[str, list[str]],
              resolved: dict[str, Resolution], run: _Scrape) -> list[ScrapedRelease]:
    stats = run.stats
    by_node: dict[str, ScrapedRelease] = {}
    for digest in sorted(resolved):
        found, tags = resolved[digest], sorted(by_digest[digest])
        if found.release is None:
            stats.without_metadata += 1
            why = f" ({found.note})" if found.note else ""
            run.warn(f"tag {', '.join(tags)}: no release-metadata in any layer{why}; not a release image")
            continue
        meta = found.release
        if meta.metadata.get(MULTI_KEY) == "multi" and found.architecture != "multi":
            stats.shards += 1  # a per-architecture member of a multi release (spec §4.8)
            continue
        release = ScrapedRelease(meta.version, found.architecture, f"{reference.payload_prefix}@{digest}",
                                 digest, tags, meta.previous, meta.next, meta.metadata)
        earlier = by_node.get(release.node_version)
        if earlier is not None:
            raise RegistryError(reference, f"release {release.version} ({release.architecture}) is in two "
                                f"images: tag {earlier.tags[0]} ({earlier.digest}) and tag {tags[0]} "
                                f"({digest}); remove or retag one of them")
        by_node[release.node_version] = release
        stats.oci += media_types[digest] in OCI_TYPES
        stats.multi += release.architecture == "multi"
    stats.releases = len(by_node)
    return sorted(by_node.values(), key=lambda r: (r.architecture, versions.sort_key(r.version)))
