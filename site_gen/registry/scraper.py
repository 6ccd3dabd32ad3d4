"""A registry repository -> release records: the reference scrape (spec §3-§5), done right.

Every tag's manifest is read (tags are not parsed; cosign signature tags are skipped).
Tags that share a digest are resolved once; each digest is resolved once per run (a
single flight shared by the worker threads) and once ever with the persistent cache.
An image gives its architecture from its config and its release-metadata from the
first layer, top down, that has the entry. A list gives ``multi`` (or its only
child's architecture) and the metadata of its last child.

Deliberately not copied from the reference: the ``0.0.0`` placeholder node, a crash on
an empty list, a failed scrape when a sparse mirror lacks the last child (an earlier
child is used, with a warning), OCI manifests skipped, node order left to chance.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..inputs.releases import MULTI_KEY
from ..model import versions
from ..model.errors import Warnings
from ..progress import Progress
from .cache import DigestCache, Resolution
from .client import (
    ConnectionOptions,
    Fetched,
    ImageProblem,
    RegistryClient,
    RegistryError,
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
    skipped: int = 0             # tags skipped with a warning (unreadable manifest or config)
    without_metadata: int = 0    # images with no release-metadata
    shards: int = 0              # per-architecture members of multi releases, dropped
    oci: int = 0                 # releases from OCI manifests or indexes (the reference skips them)
    releases: int = 0
    multi: int = 0
    requests: int = 0

    def summary(self) -> str:
        return (f"{self.tags:,} tags: {self.releases:,} releases ({self.multi:,} multi, "
                f"{self.oci:,} from OCI manifests); {self.images:,} images, {self.cached:,} from the "
                f"cache, {self.fetched:,} fetched; skipped {self.signature_tags:,} signature tags, "
                f"{self.skipped:,} unreadable, {self.without_metadata:,} without release-metadata, "
                f"{self.shards:,} multi shards; {self.requests:,} requests")


@dataclass
class ScrapeResult:
    reference: RegistryReference
    releases: list[ScrapedRelease]   # in architecture, then SemVer order
    stats: ScrapeStats


class _Scrape:
    def __init__(self, client: RegistryClient, options: ScrapeOptions, warnings: Warnings):
        self.client = client
        self.options = options
        self.warnings = warnings
        self.cache = DigestCache(options.cache_dir)
        self.stats = ScrapeStats()
        self._lock = threading.Lock()
        self._flights: dict[str, Future[Resolution]] = {}

    def warn(self, message: str) -> None:
        with self._lock:
            self.warnings.add(message, str(self.client.reference))

    def once(self, digest: str, resolve: Callable[[], Resolution]) -> Resolution:
        """Resolve each digest once, even when threads ask for it at the same time."""
        with self._lock:
            known = self._flights.get(digest)
            flight = self._flights[digest] = known or Future()
        if known is not None:
            return known.result()
        try:
            result = resolve()
        except BaseException as exc:
            flight.set_exception(exc)
            raise
        flight.set_result(result)
        return result

    def resolution(self, digest: str, fetched: Fetched | None, tag: str) -> Resolution:
        """What a tagged image (``fetched``: its manifest) or a list child holds."""
        def resolve() -> Resolution:
            cached = self.cache.get(digest)
            if cached is not None:
                with self._lock:
                    self.stats.cached += fetched is not None
                return cached
            manifest = parse_manifest(fetched or self.client.manifest(digest))
            if isinstance(manifest, ImageList):
                found = self.from_list(manifest, tag)
            else:
                found = self.from_image(manifest, tag)
            with self._lock:
                self.stats.fetched += fetched is not None
            self.cache.put(digest, found)
            return found
        return self.once(digest, resolve)

    def from_list(self, manifest: ImageList, tag: str) -> Resolution:
        children = manifest.children
        if not children:
            raise ImageProblem("empty manifest list")
        arch = children[0].architecture if len(children) == 1 else "multi"
        for position, child in enumerate(reversed(children)):
            try:
                found = self.resolution(child.digest, None, tag)
            except ImageProblem as exc:
                self.warn(f"tag {tag}: list child {child.digest} ({child.architecture}) is unreadable "
                          f"({exc}); trying the one before it")
                continue
            if position:
                self.warn(f"tag {tag}: release-metadata taken from list child {child.digest} "
                          f"({child.architecture}), not the last one (a sparse mirror?)")
            return Resolution(arch, found.release, found.note)
        raise ImageProblem("no child of the manifest list is readable")

    def from_image(self, manifest: Image, tag: str) -> Resolution:
        config = self.client.blob(manifest.config, "config")
        try:
            arch = orjson.loads(config).get("architecture")
        except (ValueError, AttributeError):
            arch = None
        if not isinstance(arch, str) or not arch:
            raise ImageProblem(f"config {manifest.config} has no 'architecture'")
        notes = []
        for layer in reversed(manifest.layers):  # top layer first, as the reference searches
            if layer.size > self.options.limits.compressed:
                raise RegistryError(self.client.reference, f"tag {tag}: layer {layer.digest} is "
                                    f"{layer.size:,} bytes, over the {self.options.limits.compressed:,} limit")
            try:
                with self.client.stream_blob(layer.digest, "layer") as chunks:
                    raw = find_release_metadata(chunks, layer.digest, self.options.limits)
            except ImageProblem as exc:
                raise RegistryError(self.client.reference, f"tag {tag}: {exc}") from None
            except CorruptLayer as exc:
                raise RegistryError(self.client.reference,
                                    f"tag {tag}: layer {layer.digest} is corrupt: {exc}") from None
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
    """Read every tag of ``reference`` into release records, or raise a RegistryError."""
    progress = progress or Progress(quiet=True)
    with RegistryClient(reference, options.connection, warnings) as client:
        client.connect()
        run = _Scrape(client, options, warnings)
        stats = run.stats
        tags = client.tags()
        stats.tags = len(tags)
        readable = [tag for tag in tags if not SIGNATURE_TAG.fullmatch(tag)]
        stats.signature_tags = len(tags) - len(readable)
        manifests: dict[str, Fetched] = {}
        by_digest: dict[str, list[str]] = {}
        with ThreadPoolExecutor(options.connection.concurrency, thread_name_prefix="scrape") as pool, \
                progress.stage("reading manifests", len(readable), "tag") as bar:
            futures = {pool.submit(client.manifest, tag): tag for tag in readable}
            try:
                for future in as_completed(futures):
                    tag = futures[future]
                    bar.update(1)
                    try:
                        fetched = future.result()
                    except ImageProblem as exc:
                        run.warn(f"tag {tag}: {exc}; skipped")
                        stats.skipped += 1
                        continue
                    manifests.setdefault(fetched.digest, fetched)
                    by_digest.setdefault(fetched.digest, []).append(tag)
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
        stats.images = len(by_digest)
        resolved: dict[str, Resolution] = {}
        with ThreadPoolExecutor(options.connection.concurrency, thread_name_prefix="scrape") as pool, \
                progress.stage("reading images", len(by_digest), "image") as bar:
            images: dict[Future[Resolution], str] = {
                pool.submit(run.resolution, digest, manifests[digest], min(tags_of)): digest
                for digest, tags_of in sorted(by_digest.items())}
            try:
                for done in as_completed(images):
                    digest = images[done]
                    bar.update(1)
                    bar.set_postfix(cached=stats.cached, fetched=stats.fetched, skipped=stats.skipped,
                                    refresh=False)
                    try:
                        resolved[digest] = done.result()
                    except ImageProblem as exc:
                        tags_of = by_digest[digest]
                        run.warn(f"tag {', '.join(sorted(tags_of))}: {exc}; skipped")
                        stats.skipped += len(tags_of)
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
        stats.requests = client.requests
    releases = _releases(reference, manifests, by_digest, resolved, run)
    return ScrapeResult(reference, releases, stats)


def _releases(reference: RegistryReference, manifests: dict[str, Fetched], by_digest: dict[str, list[str]],
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
        stats.oci += manifests[digest].media_type in OCI_TYPES
        stats.multi += release.architecture == "multi"
    stats.releases = len(by_node)
    return sorted(by_node.values(), key=lambda r: (r.architecture, versions.sort_key(r.version)))
