"""Where everything lives in a built site, relative to its root.

One module for the paths that publish writes, render links to and the server
(and the generated nginx configuration) serves, so they cannot drift apart.
Changing a path here changes what clients download: graph paths and the empty
graph are the update-service API.
"""

from __future__ import annotations

import json

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


SHARED_DIR = f"{RELEASES_DIR}/shared"  # content-addressed files contents.json refers to (not a version)


def shared_path(sha256_hex: str) -> str:
    """A shared file of release contents, named by the hex SHA-256 of its bytes (publish/shared_parts.py)."""
    return f"{SHARED_DIR}/{sha256_hex}.json"


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


# Operator catalogs: the JSON graphs and their pages (docs/operator-catalogs.md). A name is one
# path segment, percent-encoded by path_component. The pages' scripts build the same paths from
# assets/site-paths.js, which site_paths_script() writes from these templates and that rule.
OLM_DIR = "olm"
CATALOG_LIST = f"{OLM_DIR}/catalogs.json"       # which catalogs, of which family and minor
CATALOGS_INDEX = f"{OLM_DIR}/index.html"        # every catalog, with what opm validate says of it
OPERATOR_CHECKER = f"{OLM_DIR}/checker.html"    # the operator update checker
CATALOG_TEMPLATES = {
    "catalogIndexJson": OLM_DIR + "/{catalog}/index.json",
    "channelJson": OLM_DIR + "/{catalog}/{package}/{channel}.json",
    "catalogPage": OLM_DIR + "/{catalog}/index.html",
    "packagePage": OLM_DIR + "/{catalog}/{package}/index.html",
    "channelPage": OLM_DIR + "/{catalog}/{package}/{channel}.html",
}
_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def path_component(name: str) -> str:
    """``name`` with every byte outside ``A-Za-z0-9._-`` as %XX; ``.`` and ``..`` (and an
    empty name) are encoded too, so no name can step out of its folder."""
    encoded = "".join(chr(byte) if byte in _SAFE else f"%{byte:02X}" for byte in name.encode())
    if encoded in ("", ".", ".."):
        return "".join(f"%{byte:02X}" for byte in name.encode()) or "%00"
    return encoded


def _catalog_path(template: str, **names: str) -> str:
    return CATALOG_TEMPLATES[template].format(**{key: path_component(name) for key, name in names.items()})


def catalog_dir(catalog: str) -> str:
    """``olm/NAME``: where a catalog's JSON and pages are published."""
    return f"{OLM_DIR}/{path_component(catalog)}"


def catalog_index_json(catalog: str) -> str:
    return _catalog_path("catalogIndexJson", catalog=catalog)


def channel_json(catalog: str, package: str, channel: str) -> str:
    return _catalog_path("channelJson", catalog=catalog, package=package, channel=channel)


def catalog_page(catalog: str) -> str:
    return _catalog_path("catalogPage", catalog=catalog)


def package_page(catalog: str, package: str) -> str:
    return _catalog_path("packagePage", catalog=catalog, package=package)


def catalog_channel_page(catalog: str, package: str, channel: str) -> str:
    return _catalog_path("channelPage", catalog=catalog, package=package, channel=channel)


SITE_PATHS_SCRIPT = f"{ASSETS_DIR}/site-paths.js"


def site_paths_script() -> str:
    """assets/site-paths.js: ``SiteGenPaths``, the site paths the pages' scripts build, from
    this module (tests/test_layout.py holds the two to the same answers)."""
    constants = {"olmDir": OLM_DIR, "catalogList": CATALOG_LIST, "catalogsIndex": CATALOGS_INDEX,
                 "operatorChecker": OPERATOR_CHECKER}
    return (_SITE_PATHS_JS.replace("CONSTANTS", json.dumps(constants, sort_keys=True))
            .replace("TEMPLATES", json.dumps(CATALOG_TEMPLATES, sort_keys=True)))


_SITE_PATHS_JS = """\
/* Written by site-gen from site_gen/layout.py: the site paths the pages' scripts build. */
"use strict";

const SiteGenPaths = (() => {
  const SAFE = /[A-Za-z0-9._-]/;
  const hex = (b) => "%" + b.toString(16).toUpperCase().padStart(2, "0");

  /* The UTF-8 bytes of a name (as TextEncoder writes them; a bare V8 has no TextEncoder). */
  function utf8(name) {
    const bytes = [];
    for (const char of name) {
      let c = char.codePointAt(0);
      if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;  // a lone surrogate
      if (c < 0x80) bytes.push(c);
      else if (c < 0x800) bytes.push(0xC0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) bytes.push(0xE0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else bytes.push(0xF0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return bytes;
  }

  /* layout.path_component: every UTF-8 byte outside A-Za-z0-9._- as %XX; ".", ".." and "" whole. */
  function pathComponent(name) {
    const bytes = utf8(name);
    const encoded = Array.from(bytes, (b) => (b < 128 && SAFE.test(String.fromCharCode(b))
      ? String.fromCharCode(b) : hex(b))).join("");
    if (encoded === "" || encoded === "." || encoded === "..") return Array.from(bytes, hex).join("") || "%00";
    return encoded;
  }

  const constants = CONSTANTS;
  const templates = TEMPLATES;
  /* A catalog path: the template's {catalog}, {package}, {channel} filled with the names, encoded. */
  const fill = (template, names) =>
    templates[template].replace(/\\{(\\w+)\\}/g, (_, key) => pathComponent(names[key]));

  return Object.freeze({
    ...constants,
    pathComponent,
    catalogIndexJson: (catalog) => fill("catalogIndexJson", {catalog}),
    channelJson: (catalog, pkg, channel) => fill("channelJson", {catalog, package: pkg, channel}),
    catalogPage: (catalog) => fill("catalogPage", {catalog}),
    packagePage: (catalog, pkg) => fill("packagePage", {catalog, package: pkg}),
    channelPage: (catalog, pkg, channel) => fill("channelPage", {catalog, package: pkg, channel}),
  });
})();
"""


def planner_data(arch: str) -> str:
    return f"{DATA_DIR}/planner-{arch}.json"  # planner.js builds the same name
