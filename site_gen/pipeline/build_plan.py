"""What one build makes: a plan of optional parts, each present or absent.

Every build runs the same steps (:func:`.site_build.plan_steps`); a part that is absent
leaves its steps out. An operators-only site is the plan without the cluster part;
``--no-html`` is the plan without pages; ``--changes-since`` is a field of the cluster
part, as it compares update graphs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..olm.sources import CatalogSource
from ..promotion.resolve import PromotionOptions
from ..registry.contents_source import ContentsSource

if TYPE_CHECKING:
    from ..registry.client import ConnectionOptions


@dataclass(frozen=True, kw_only=True)
class ClusterPart:
    """The OpenShift update graphs: the JSON clusters read, signatures, the graph-data tarball,
    promotion, and (with pages) the channel, release and risk pages, planner and feeds."""
    graph_data: Path
    releases: Path
    promotion: PromotionOptions = field(default_factory=PromotionOptions)
    changes_since: str | None = None  # --changes-since REV: also changes.html (needs pages)


@dataclass(frozen=True, kw_only=True)
class ContentsPart:
    """What each served release image holds (--release-contents); read for the cluster part's releases."""
    source: ContentsSource
    connection: ConnectionOptions | None = None  # how to reach a docker:// source
    layout: str = "self-contained"  # --release-contents-layout (publish/shared_parts.py)


@dataclass(frozen=True, kw_only=True)
class BuildPlan:
    cluster: ClusterPart | None = None  # None: an operators-only site
    catalogs: tuple[CatalogSource, ...] = ()  # the operator catalogs (olm/catalogs.json lists even none)
    contents: ContentsPart | None = None  # only with the cluster part
    pages: bool = True  # False: --no-html, the JSON alone

    def inputs(self) -> list[Path]:
        """Every file or folder the build reads, which it must never write into."""
        found: list[Path] = []
        if self.cluster is not None:
            found += [self.cluster.graph_data, self.cluster.releases, *self.cluster.promotion.files().values()]
        found += [catalog.source for catalog in self.catalogs]
        if self.contents is not None and self.contents.source.directory is not None:
            found.append(self.contents.source.directory)
        return found
