"""What the Cincinnati policy engine answers for a request (spec §7.3), as pure functions.

``site-gen serve`` and the tests share this module, and the nginx configuration in
``deploy/`` is generated from its constants, so both servers give the same answers.
For ``<site>/api/upgrades_info/v1/graph`` (and ``.../graph``), in the engine's order:

1. ``Accept`` is compared as one whole string (without the whitespace around it): no
   lists, no parameters, else 406;
2. ``channel`` must be present (a key without a value counts), else 400 missing_params;
3. ``channel``, then ``arch`` (default amd64) must match the engine's patterns, else
   400 invalid_params;
4. a valid channel × arch that was never published gets the empty graph, not a 404.

Values are validated before they come anywhere near a file name, with two rules on
top of the engine's so a value can only ever name a published graph: at most 255
characters (no file name is longer, so nothing publishable is refused) and not dots
only (``..`` matches the channel pattern but is a path step).

What the engine does not define (methods, request paths) follows nginx, so the
generated nginx configuration and ``site-gen serve`` agree there too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote_to_bytes, urlsplit

import orjson

from ..inputs.graph_data_files import CHANNEL_NAME
from ..inputs.releases import ARCH_NAME
from ..layout import EMPTY_GRAPH, graph_path
from .conditional import Conditions

JSON = "application/json"
VND_JSON = "application/vnd.redhat.cincinnati.v1+json"
# Accept header value -> response media type; no Accept header at all -> VND_JSON.
ACCEPTED = {"*": JSON, "*/*": JSON, "application/*": JSON, JSON: JSON, VND_JSON: VND_JSON}

DEFAULT_ARCH = "amd64"
MAX_VALUE_LENGTH = 255

API_DIR = ("api", "upgrades_info")
GRAPH_ENDPOINTS = ((*API_DIR, "graph"), (*API_DIR, "v1", "graph"))
EMPTY_GRAPH_BODY = orjson.dumps(EMPTY_GRAPH)
ENDPOINT_METHODS = "GET, HEAD, OPTIONS"
CORS_METHODS = "GET, HEAD"
PREFLIGHT_MAX_AGE = "86400"
# The body's media type follows Accept, CORS follows Origin, and graphs go out gzipped
# (precompressed) to clients that accept it.
ENDPOINT_VARY = "Accept, Origin, Accept-Encoding"
API_FILE_VARY = "Origin, Accept-Encoding"
# Clusters poll every few minutes and a graph changes only when the site is rebuilt: a
# shared cache (a proxy in front of many clusters, a CDN) may reuse an answer for 5
# minutes, which delays a new graph by at most that; clients then revalidate (ETag -> 304).
CACHE_CONTROL = "public, max-age=300"

# The engine's rules, which the build also applies to the names it publishes.
PATTERNS = {"channel": CHANNEL_NAME, "arch": ARCH_NAME}

MISSING_CHANNEL = "mandatory client parameters missing: channel"
INVALID_ACCEPT = "invalid Content-Type requested"

TEXT = "text/plain; charset=utf-8"
FILE_METHODS = "GET, HEAD"
NOT_ALLOWED_BODY = b"method not allowed\n"
OWS = " \t"  # the optional whitespace around a header value, which is not part of it (RFC 9110 5.5)
# nginx's request-line parser accepts only these characters in a method and answers 400
# to any other (`get` included) before reading its configuration; so does site-gen serve.
_METHOD = re.compile(r"[A-Z_-]+")

_TEXT = (("Content-Type", TEXT),)

Headers = tuple[tuple[str, str], ...]


def mismatch_message(name: str, value: str) -> str:
    return f"invalid client parameters: {name} '{value}' does not match regex '{PATTERNS[name].pattern}'"


def too_long_message(name: str) -> str:
    return f"invalid client parameters: {name} is longer than {MAX_VALUE_LENGTH} characters"


def dots_message(name: str, value: str) -> str:
    return f"invalid client parameters: {name} '{value}' is only dots, a path step and not a name"


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Headers = ()
    body: bytes = b""


@dataclass(frozen=True)
class GraphFile:
    """Answer with the published graph of channel × arch, or the empty graph if there is none."""

    channel: str
    arch: str
    headers: Headers  # the negotiated Content-Type and CORS
    conditions: Conditions = Conditions()

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(graph_path(self.channel, self.arch).split("/"))


@dataclass(frozen=True)
class SiteFile:
    """Answer with a plain file of the site; the server checks it exists inside the site."""

    segments: tuple[str, ...]
    directory: bool  # the URL ends with '/': the directory's index.html
    query: str
    headers: Headers = ()  # CORS for files under api/
    conditions: Conditions = Conditions()
    api: bool = False  # under api/: precompressed copies and Cache-Control, as the graphs

    def redirect_to_directory(self) -> Reply:
        """``dir`` -> ``dir/``, so the relative links of its index.html resolve."""
        location = "/" + "".join(quote(segment, errors="surrogateescape") + "/" for segment in self.segments)
        if self.query:
            location += "?" + self.query
        return Reply(301, (("Location", location), *self.headers))


def plan(method: str, target: str, headers: Mapping[str, str]) -> Reply | GraphFile | SiteFile:
    """What to answer to ``method target`` with these request headers."""
    if not _METHOD.fullmatch(method):
        return Reply(400, _TEXT, b"bad request method\n")
    parsed = _split_target(target)
    if parsed is None:
        return Reply(400, _TEXT, b"bad request target\n")
    segments, directory, query = parsed
    origin = headers.get("Origin")
    if segments in GRAPH_ENDPOINTS and not directory:
        return _graph_request(method, query, headers, _cors(origin, ENDPOINT_VARY))
    api = segments[:2] == API_DIR
    cors = _cors(origin, API_FILE_VARY) if api else ()
    if method not in ("GET", "HEAD"):
        return _not_allowed(FILE_METHODS, cors)
    return SiteFile(segments, directory, query, cors, Conditions.of(headers), api)


def not_found(headers: Headers = ()) -> Reply:
    return Reply(404, (*_TEXT, *headers), b"not found\n")


def empty_graph_reply(request: GraphFile) -> Reply:
    """The engine's answer for a channel or arch that was never published."""
    return Reply(200, (*request.headers, ("Cache-Control", CACHE_CONTROL)), EMPTY_GRAPH_BODY)


def _split_target(target: str) -> tuple[tuple[str, ...], bool, str] | None:
    """(path segments, ends with '/', raw query), or None for a target that cannot name a
    file of the site. The path is normalized as nginx does it: percent-decoded (``%2F`` is
    a '/' too), empty and '.' segments dropped, '..' taking back the segment before it;
    a '..' above the top, a NUL byte or a target that is not a path is refused. Bytes that
    are not UTF-8 are kept (as surrogates), so they simply name no file."""
    target = target.partition("#")[0]  # a fragment is never the server's, as in nginx
    if not target.startswith("/"):
        absolute = urlsplit(target)  # absolute-form, as sent to proxies
        if absolute.scheme not in ("http", "https"):
            return None
        target = (absolute.path or "/") + (f"?{absolute.query}" if absolute.query else "")
    path, _, query = target.partition("?")
    decoded = unquote_to_bytes(path).decode("utf-8", "surrogateescape")
    if "\0" in decoded:
        return None
    pieces = decoded.split("/")
    segments: list[str] = []
    for piece in pieces:
        if piece == "..":
            if not segments:
                return None
            segments.pop()
        elif piece not in ("", "."):
            segments.append(piece)
    return tuple(segments), pieces[-1] in ("", ".", ".."), query


def _cors(origin: str | None, vary: str) -> Headers:
    """Browsers on any origin may read the answers, as from the policy engine."""
    if origin is None:
        return (("Vary", vary),)
    return (("Vary", vary), ("Access-Control-Allow-Origin", origin))


def _graph_request(method: str, query: str, headers: Mapping[str, str], cors: Headers) -> Reply | GraphFile:
    if method == "OPTIONS":  # CORS preflight
        return Reply(204, (("Allow", ENDPOINT_METHODS), ("Access-Control-Allow-Methods", CORS_METHODS),
                           ("Access-Control-Max-Age", PREFLIGHT_MAX_AGE), *cors))
    if method not in ("GET", "HEAD"):
        return _not_allowed(ENDPOINT_METHODS, cors)
    accept = headers.get("Accept")
    media = VND_JSON if accept is None else ACCEPTED.get(accept.strip(OWS))
    if media is None:
        return _error(406, "invalid_content_type", INVALID_ACCEPT, cors)
    # The engine collects the query into a map: keys and values percent-decoded, the last
    # of repeated keys wins, undecodable bytes become U+FFFD.
    params = dict(parse_qsl(query, keep_blank_values=True, errors="replace"))
    if "channel" not in params:
        return _error(400, "missing_params", MISSING_CHANNEL, cors)
    channel, arch = params["channel"], params.get("arch", DEFAULT_ARCH)
    problem = _invalid("channel", channel) or _invalid("arch", arch)
    if problem:
        return _error(400, "invalid_params", problem, cors)
    return GraphFile(channel, arch, (("Content-Type", media), *cors), Conditions.of(headers))


def _invalid(name: str, value: str) -> str | None:
    if len(value) > MAX_VALUE_LENGTH:
        return too_long_message(name)
    if not PATTERNS[name].fullmatch(value):  # fullmatch: '$' would accept a trailing newline
        return mismatch_message(name, value)
    if set(value) == {"."}:
        return dots_message(name, value)
    return None


def _not_allowed(allow: str, cors: Headers) -> Reply:
    return Reply(405, (("Allow", allow), *_TEXT, *cors), NOT_ALLOWED_BODY)


def _error(status: int, kind: str, value: str, cors: Headers) -> Reply:
    return Reply(status, (("Content-Type", JSON), *cors), orjson.dumps({"kind": kind, "value": value}))
