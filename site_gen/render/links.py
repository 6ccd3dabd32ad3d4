"""Relative links between the site's pages (where each one lives: :mod:`site_gen.layout`).

Every link is relative, so the site works from any static host and under any
sub-path. File names keep the version or channel as written; hrefs
percent-encode each path segment (a ``+`` in a version becomes ``%2B``, which
object stores would otherwise read as a space).
"""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import quote

_SAFE_URL = re.compile(r"^https?://", re.IGNORECASE)


def promotion_anchor(channel: str) -> str:
    """The id of a channel's entry on the promotion page (internal channel names are
    free text; an id cannot hold whitespace)."""
    return "promotion-" + re.sub(r"[^A-Za-z0-9._-]", "_", channel)


def root_of(page: str) -> str:
    """The relative path from a page back to the site root (``""``, ``../``, ...)."""
    return "../" * page.count("/")


@cache
def _encoded(target: str) -> str:
    # "=" is a plain path character (signature folders are named sha256=<digest>)
    return "/".join(quote(part, safe="=") for part in target.split("/"))


def href(from_page: str, target: str) -> str:
    """A relative, percent-encoded link from one site path to another."""
    return root_of(from_page) + _encoded(target)


def external_url(url: str | None) -> str | None:
    """``url`` if it is safe to link to (http or https), else None.

    Risk and errata links come from input files; anything else (``javascript:``,
    relative paths) is shown as text, never followed."""
    return url if url and _SAFE_URL.match(url) else None
