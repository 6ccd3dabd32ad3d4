"""``--releases docker://HOST[:PORT]/REPO`` for build, check and diff.

The registry is scraped into a graph-builder raw graph first (kept under the cache
directory, replaced only by a scrape that succeeded), and the command then reads it like
any ``--releases FILE``. So everything downstream (the up-to-date check,
``--changes-since``, ``check``, ``diff``) works unchanged, and a rebuild whose scrape
found nothing new is recognised as up to date.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.errors import Warnings
from ..progress import Progress
from .reference import RegistryReference

if TYPE_CHECKING:  # the scraper and its HTTP client are imported only when a registry is read
    from .scraper import ScrapeOptions, ScrapeResult

def scrape_and_report(reference: RegistryReference, options: ScrapeOptions, quiet: bool,
                      warnings: Warnings) -> ScrapeResult:
    """The registry read, with a progress bar and a summary line unless ``quiet``."""
    from .scraper import scrape_registry
    result = scrape_registry(reference, options, warnings, Progress(quiet))
    if not quiet:
        print(f"scraped {reference}: {result.stats.summary()}", file=sys.stderr)
    return result


def scrapes_dir(cache_dir: Path) -> Path:
    """Where a build keeps the raw graphs of its registry scrapes: the cache's own files,
    read as the build's release source."""
    return cache_dir / "registry-v1" / "scrapes"


def scrape_file(reference: RegistryReference, cache_dir: Path) -> Path:
    """Where a build keeps the raw graph of its last scrape of ``reference``."""
    return scrapes_dir(cache_dir) / reference.file_name


def scraped_releases(reference: RegistryReference, options: ScrapeOptions, quiet: bool, warnings: Warnings) -> Path:
    """The registry scraped into a raw graph file, which the command then reads like any
    ``--releases FILE``."""
    from .release_documents import write_raw_graph
    result = scrape_and_report(reference, options, quiet, warnings)
    assert options.cache_dir is not None  # the commands give --cache-dir or the default
    return write_raw_graph(result, scrape_file(reference, options.cache_dir))
