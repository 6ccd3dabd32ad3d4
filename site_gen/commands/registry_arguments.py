"""The registry options of build, check, diff and scrape (``--releases docker://…``,
``--catalog NAME=docker://…``), turned into the typed options the registry readers take."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..cache_dir import default_cache_dir
from ..model.errors import InputError, Warnings
from ..olm.sources import CatalogSource, CatalogSourceError, parse_catalog_source
from ..registry.reference import RegistryReference, is_registry_reference, parse_reference
from ..registry.source import scrape_and_report, scraped_releases

if TYPE_CHECKING:  # the scraper and its HTTP client are imported only when a registry is read
    from ..registry.scraper import ScrapeOptions

REGISTRY_HELP = ("or a registry repository of release images, docker://HOST[:PORT]/REPO, "
                 "scraped as the update service does")


def release_source(text: str) -> Path | RegistryReference:
    """argparse type for --releases: a path, or a docker:// reference."""
    if is_registry_reference(text):
        try:
            return parse_reference(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.message) from None
    return Path(text)


def catalog_source(text: str) -> CatalogSource:
    """argparse type for ``--catalog NAME[@4.N]=SOURCE``."""
    try:
        return parse_catalog_source(text)
    except CatalogSourceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value
    return parse


def add_registry_arguments(parser: argparse.ArgumentParser, cache_dir: bool = True) -> None:
    """Options for reading a registry; ``cache_dir=False`` for a command that has its own."""
    group = parser.add_argument_group("registry options (with docker://)")
    group.add_argument("--authfile", type=Path, metavar="FILE",
                       help="credentials file (podman's auth.json or docker's config.json; default: "
                            "$REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json, "
                            "~/.docker/config.json)")
    group.add_argument("--cert-dir", type=Path, metavar="DIR",
                       help="trust the CA certificates DIR/*.crt and DIR/HOST:PORT/*.crt besides the "
                            "system's (default: /etc/containers/certs.d/HOST:PORT)")
    group.add_argument("--tls-verify", type=_boolean, default=True, metavar="BOOL",
                       help="check the registry's TLS certificate (default: true; false is unsafe)")
    group.add_argument("--plain-http", action="store_true",
                       help="talk plain HTTP to the registry (no TLS at all)")
    group.add_argument("--timeout", type=_positive(float), default=30.0, metavar="SECONDS",
                       help="give up on a request that gets no answer for this long (default: 30); "
                            "each is tried 3 times")
    group.add_argument("--concurrency", type=_positive(int), default=16, metavar="N",
                       help="registry requests in flight (default: 16, as the update service)")
    group.add_argument("--skip-faulty-tags", action="store_true",
                       help="when the registry fails a tag (HTTP 5xx or 429 after the retries, no answer, "
                            "bytes that do not match their digest, a manifest over 4 MiB), leave that "
                            "release out with a warning and publish the rest, instead of failing and "
                            "keeping what was published; the summary counts the tags skipped")
    if cache_dir:
        group.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                           help="what each image digest holds and each tag's digest are cached here, so a "
                                "rescrape reads only new images (default: $XDG_CACHE_HOME/site-gen or "
                                "~/.cache/site-gen)")


def scrape_options(args: argparse.Namespace) -> ScrapeOptions:
    from ..registry.client import ConnectionOptions
    from ..registry.scraper import ScrapeOptions
    connection = ConnectionOptions(authfile=args.authfile, cert_dir=args.cert_dir,
                                   tls_verify=args.tls_verify, plain_http=args.plain_http,
                                   timeout=args.timeout, concurrency=args.concurrency)
    return ScrapeOptions(connection, args.cache_dir or default_cache_dir(),
                         skip_faulty_tags=args.skip_faulty_tags)


def resolve_releases(args: argparse.Namespace, warnings: Warnings) -> Path | None:
    """``args.releases`` as a path: a registry is scraped into a raw graph file first."""
    source = args.releases
    if not isinstance(source, RegistryReference):
        return source
    return scraped_releases(source, scrape_options(args), getattr(args, "quiet", False), warnings)


def scrape(reference: RegistryReference, args: argparse.Namespace, warnings: Warnings):
    """``site-gen scrape``: the registry read with the command's options."""
    return scrape_and_report(reference, scrape_options(args), getattr(args, "quiet", False), warnings)
