"""Where everything lives in a built site, relative to its root.

One module for the paths that publish writes, render links to and the server
(and the generated nginx configuration) serves, so they cannot drift apart.
Changing a path here changes what clients download: graph paths and the empty
graph are the update-service API.
"""

from __future__ import annotations

from .model.graph_data import SignatureFile

# The update-service API: what clusters download, byte for byte.
GRAPH_API_DIR = "api/upgrades_info/v1/graph"
GRAPH_INDEX = f"{GRAPH_API_DIR}/index.json"
# What the policy engine answers for a channel or arch it does not know.
EMPTY_GRAPH = {"version": 1, "nodes": [], "edges": [], "conditionalEdges": []}


def graph_path(channel: str, arch: str) -> str:
    """The graph file of one channel × arch."""
    return f"{GRAPH_API_DIR}/{channel}/{arch}.json"


# Beside each graph (and the index): the same bytes gzip-compressed, which servers send to
# clients that accept gzip (nginx's gzip_static looks for exactly this name).
PRECOMPRESSED_SUFFIX = ".gz"


# Files for disconnected mirrors.
GRAPH_DATA_TARBALL = "api/upgrades_info/graph-data"  # the path api.openshift.com serves it at
SIGNATURES_DIR = "signatures"


def signature_path(signature: SignatureFile) -> str:
    """The cluster-version operator's signature-store layout."""
    return f"{SIGNATURES_DIR}/{signature.algorithm}={signature.digest}/{signature.name}"


NGINX_DIR = "deploy/nginx"
MARKER = ".site-gen"  # marks a directory as a site-gen build and holds its fingerprint

# Pages, and the data behind them.
HOME = "index.html"
PLANNER = "planner.html"
RELEASES_INDEX = "releases/index.html"
RISKS_INDEX = "risks/index.html"
PROMOTION = "promotion.html"
CHANGES = "changes.html"
ASSETS_DIR = "assets"
DATA_DIR = "data"
OLM_DIR = "olm"  # operator catalogs: the JSON graphs and their pages
PROMOTION_DATA = f"{DATA_DIR}/promotion.json"


def channel_page(channel: str, arch: str) -> str:
    return f"channels/{channel}/{arch}.html"


def feed_path(channel: str, arch: str) -> str:
    """The Atom feed of a channel × architecture (site_gen/render/feeds.py)."""
    return f"feeds/{channel}/{arch}.atom"


def kind_feed_path(kind: str, arch: str) -> str:
    """The Atom feed of every channel of a kind on an architecture."""
    return f"feeds/kind-{kind}/{arch}.atom"


def release_page(version: str) -> str:
    return f"releases/{version}.html"


RELEASES_DIR = "releases"


def release_dir(version: str) -> str:
    """A release's folder: one subfolder per architecture the site has it for."""
    return f"{RELEASES_DIR}/{version}"


def contents_path(version: str, arch: str) -> str:
    """What a release image holds (docs/release-contents.md), or why it could not be read."""
    return f"{RELEASES_DIR}/{version}/{arch}/contents.json"


def release_arch_page(version: str, arch: str) -> str:
    """The page of what one release × arch holds (beside its contents.json folder)."""
    return f"{RELEASES_DIR}/{version}/{arch}.html"


RELEASE_COMPARE = f"{RELEASES_DIR}/compare.html"  # any two releases with contents, compared in the browser
# The one index of release contents: per arch, the versions with readable contents and those without,
# and where their files are. The compare page and the planner's hops (planner-hops.js, hop_changes)
# both read it; planner-hops.js names the same path.
RELEASE_CONTENTS_INDEX = f"{DATA_DIR}/release-contents.json"


def changes_path(from_version: str, arch: str, to_version: str) -> str:
    """What an update from one release to another changes (docs/release-diff.md)."""
    return f"{RELEASES_DIR}/{from_version}/{arch}/changes/{to_version}.json"


def risk_page(slug: str) -> str:
    return f"risks/{slug}.html"


PAYLOADS_DATA = f"{DATA_DIR}/payloads.json"  # payload digest -> architecture and version


def planner_data(arch: str) -> str:
    return f"{DATA_DIR}/planner-{arch}.json"  # planner.js builds the same name
