"""The registry HTTP API (distribution v2) for reading: one client per scrape, on one event loop.

aiohttp does the HTTP on the scrape's event loop (uvloop): one connection pool of
``--concurrency`` connections, a timeout on connecting (TLS handshake included) and on
each read, TLS from :mod:`.tls`, redirects to blob storage followed without the
``Authorization`` header when they leave the registry's origin. One loop instead of a
thread per request: the client's CPU per manifest fell about 4x against httpx on 16
threads, which fought over the GIL (README, registry figures). On top of it this module
adds what the reference scraper lacks (spec §1.5, §2): retries with exponential backoff
on transport errors and 429/5xx, Basic and Bearer auth negotiated from the registry's
own challenge, a token refreshed when the registry answers 401, and errors that say what
to do. Credentials never turn an anonymous registry into a failure.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import ssl
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import aiohttp
import orjson
from yarl import URL

from .. import __version__
from ..model.errors import InputError, Warnings
from .credentials import Credentials, find_credentials
from .reference import RegistryReference
from .tls import ssl_context

DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_V1_SIGNED = "application/vnd.docker.distribution.manifest.v1+prettyjws"
MANIFEST_ACCEPT = ", ".join((DOCKER_MANIFEST, DOCKER_LIST, OCI_MANIFEST, OCI_INDEX))
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_MANIFEST_BYTES = 4 << 20  # manifests, configs, tag lists, tokens are kilobytes; refuse to buffer more
CHUNK_BYTES = 1 << 16         # a streamed layer is handed over this much at a time
_CHALLENGE_PARAM = re.compile(r'([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?next"?')
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_SSL_SOURCE_LINE = re.compile(r"\s*\(_ssl\.c:\d+\)")  # where in CPython's ssl module: noise to a user
T = TypeVar("T")


class RegistryError(InputError):
    """The scrape cannot go on (nothing is published); the location is the registry."""

    def __init__(self, reference: RegistryReference, message: str):
        super().__init__(message, str(reference))


class ImageProblem(Exception):
    """An authentic image that is no release image (a malformed manifest or config, no
    architecture): its tags are skipped with a warning, as the reference does."""


class RegistryFault(Exception):
    """The registry did not give an image's bytes, or gave wrong ones: 5xx/429 after the
    retries, no answer, a digest mismatch, a body over the cap. Never a reason to publish
    without the image: the scrape fails naming the tag (unless --skip-faulty-tags)."""


class Missing(RegistryFault):
    """A manifest the registry does not have (404): a fault for a tag it just listed, but
    what a sparse mirror's manifest list looks like for a child it did not copy."""


@dataclass
class ConnectionOptions:
    authfile: Path | None = None
    cert_dir: Path | None = None
    tls_verify: bool = True
    plain_http: bool = False
    timeout: float = 30.0     # seconds, for connecting and for each read
    attempts: int = 3         # per request, with backoff between them
    backoff: float = 0.5      # seconds before the 2nd attempt, doubled after each
    concurrency: int = 16     # requests in flight (the reference's default)


@dataclass
class Fetched:
    digest: str
    media_type: str
    body: bytes


@dataclass
class Answer:
    """A response: its body read (at most MAX_MANIFEST_BYTES of it: ``too_large`` when there
    was more, and then the body is empty), or still ``streaming`` (a 200 asked for with
    ``stream=True``: the caller releases it)."""
    status: int
    headers: Mapping[str, str]
    body: bytes = b""
    streaming: aiohttp.ClientResponse | None = None
    too_large: bool = False

    def json(self) -> object:
        """The body as JSON, or None when it is not JSON."""
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None


def parse_challenge(header: str) -> tuple[str, dict[str, str]]:
    scheme, _, rest = header.strip().partition(" ")
    params = {m[1].lower(): (m[2] if m[2] is not None else m[3]) for m in _CHALLENGE_PARAM.finditer(rest)}
    return scheme.lower(), params


def _tls_message(text: str) -> str | None:
    text = _SSL_SOURCE_LINE.sub("", text)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return ("TLS certificate not trusted (" + text.split("certificate verify failed:")[-1].strip(" )]")
                + "): put the registry's CA certificate in --cert-dir DIR (as DIR/ca.crt or "
                "DIR/HOST:PORT/ca.crt), or pass --tls-verify=false to skip verification")
    if "WRONG_VERSION_NUMBER" in text or "RECORD_LAYER_FAILURE" in text or "packet length" in text:
        return "the registry does not answer TLS; pass --plain-http if it serves plain HTTP"
    if "SSL" in text or "TLS" in text:
        return f"TLS handshake failed ({text}); check --cert-dir and the registry's certificate"
    return None


def _transport_text(exc: aiohttp.ClientError) -> str:
    """What went wrong underneath aiohttp's wrapper (its own text repeats the connection key)."""
    cause = getattr(exc, "certificate_error", None) or getattr(exc, "os_error", None) or exc.__cause__
    return str(cause or exc) or type(exc).__name__


async def _read_limited(response: aiohttp.ClientResponse) -> bytes | None:
    """The body, or None when it is over MAX_MANIFEST_BYTES: known from Content-Length
    before reading any of it, else counted while it streams in."""
    if response.content_length is not None and response.content_length > MAX_MANIFEST_BYTES:
        return None
    body = bytearray()
    while len(body) <= MAX_MANIFEST_BYTES:
        chunk = await response.content.read(MAX_MANIFEST_BYTES + 1 - len(body))
        if not chunk:
            return bytes(body)
        body += chunk
    return None


def _hang_up(response: aiohttp.ClientResponse) -> None:
    """Drop the connection of a body we will not read. Not a polite close: closing TLS
    gracefully waits for the peer's close_notify and reads (and throws away) everything
    it still sends meanwhile, which for a runaway body is hundreds of megabytes."""
    transport = response.connection.transport if response.connection else None
    if transport is not None:
        transport.abort()
    response.close()


class _Authorization:
    """The Authorization header every request sends, and how to renew it on a 401."""

    def __init__(self, client: RegistryClient, credentials: Credentials | None):
        self._client = client
        self.credentials = credentials
        self._lock = asyncio.Lock()
        self.header: str | None = None
        self.generation = 0
        self.scheme: str | None = None

    def basic(self) -> str | None:
        if self.credentials is None:
            return None
        pair = f"{self.credentials.username}:{self.credentials.password}".encode()
        return "Basic " + base64.b64encode(pair).decode()

    async def answer(self, challenge_header: str | None, generation: int) -> None:
        """Set the header for this challenge; raise when it cannot be answered."""
        reference = self._client.reference
        async with self._lock:
            if generation != self.generation:
                return  # another request already renewed it
            scheme, params = parse_challenge(challenge_header or "")
            if scheme == "basic":
                if self.credentials is None:
                    raise RegistryError(reference, "the registry needs credentials: log in with "
                                                   "`podman login` or pass --authfile FILE")
                if self.scheme == "basic":
                    raise RegistryError(reference, f"authentication failed: the registry refused "
                                                   f"the credentials from {self.credentials.source}")
                self.header = self.basic()
            elif scheme == "bearer" and params.get("realm"):
                self.header = "Bearer " + await self._client.fetch_token(params, self.credentials)
            else:
                raise RegistryError(reference, "the registry asks for authentication it does not "
                                               f"describe (WWW-Authenticate: {challenge_header!r})")
            self.scheme = scheme
            self.generation += 1


class RegistryClient:
    """Use as ``async with RegistryClient(...) as client`` inside the scrape's event loop."""

    def __init__(self, reference: RegistryReference, options: ConnectionOptions, warnings: Warnings):
        self.reference = reference
        self.options = options
        scheme = "http" if options.plain_http else "https"
        self.base = f"{scheme}://{reference.host_port}"
        if not options.tls_verify and not options.plain_http:
            warnings.add("--tls-verify=false: the registry's certificate is NOT checked; anyone on "
                         "the network path can feed this build fake releases", str(reference))
        self._tls: ssl.SSLContext = ssl_context(reference, options.cert_dir, options.tls_verify)
        self._auth = _Authorization(self, find_credentials(reference, options.authfile, warnings))
        self._session: aiohttp.ClientSession | None = None
        self.requests = 0  # sent so far, retries included

    async def __aenter__(self) -> RegistryClient:
        connector = aiohttp.TCPConnector(ssl=self._tls, limit=self.options.concurrency, limit_per_host=0)
        # sock_connect covers the TCP connect and the TLS handshake; sock_read each read.
        # No total: a layer may take long, as long as bytes keep coming.
        timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=self.options.timeout,
                                        sock_read=self.options.timeout)
        self._session = aiohttp.ClientSession(connector=connector, timeout=timeout,
                                              headers={"User-Agent": f"site-gen/{__version__}"})
        return self

    async def __aexit__(self, *exc) -> None:
        if self._session is not None:
            await self._session.close()

    # --- transport -------------------------------------------------------------------------------

    def _fail(self, message: str) -> RegistryError:
        return RegistryError(self.reference, message)

    async def _send(self, url: str, headers: dict, auth: str | None, stream: bool = False) -> Answer:
        """One GET with retries on transport errors and 429/5xx; the body is read within the
        attempt, so a connection that breaks off mid-body is retried too."""
        assert self._session is not None, "use the client as an async context manager"
        if auth:
            headers = {**headers, "Authorization": auth}
        delay = self.options.backoff
        for attempt in range(1, self.options.attempts + 1):
            self.requests += 1
            try:
                response = await self._session.get(url, headers=headers)
                if stream and response.status == 200:
                    return Answer(response.status, response.headers, streaming=response)
                body: bytes | None = b""
                try:
                    body = await _read_limited(response)
                finally:
                    if body is None:
                        _hang_up(response)
                    else:
                        response.release()
                answer = Answer(response.status, response.headers, body or b"", too_large=body is None)
            except TimeoutError:  # aiohttp's connect and read timeouts are TimeoutErrors
                problem = (f"no answer from {self.reference.host_port} within {self.options.timeout:g} s "
                           "(is the registry up? --timeout changes the limit)")
            except aiohttp.ClientError as exc:
                text = _transport_text(exc)
                tls = _tls_message(text)
                if tls:
                    raise self._fail(tls) from None
                problem = f"cannot reach {self.reference.host_port}: {text}"
            else:
                if answer.status not in RETRY_STATUSES or attempt == self.options.attempts:
                    return answer
                problem = f"HTTP {answer.status}"
            if attempt == self.options.attempts:
                raise RegistryFault(f"{problem} (GET {url}, {attempt} attempts)")
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    async def get(self, path: str, headers: dict | None = None, stream: bool = False) -> Answer:
        """GET ``path`` (below the registry's base URL) with auth, renewed once on a 401."""
        url = path if "://" in path else self.base + path
        for renewed in (False, True):
            generation, auth = self._auth.generation, self._auth.header
            answer = await self._send(url, headers or {}, auth, stream)
            if answer.status != 401 or renewed:
                if answer.status == 401:
                    raise self._fail("authentication failed: the registry still answers 401 "
                                     f"after a fresh {self._auth.scheme or 'anonymous'} login ({url})")
                return answer
            await self._auth.answer(answer.headers.get("WWW-Authenticate"), generation)
        raise AssertionError("unreachable")

    async def fetch_token(self, params: dict[str, str], credentials: Credentials | None) -> str:
        query = {"scope": params.get("scope") or f"repository:{self.reference.repository}:pull"}
        if params.get("service"):
            query["service"] = params["service"]
        try:
            url = URL(params["realm"]).update_query(query)
        except ValueError:
            url = None
        if url is None or url.scheme not in ("http", "https") or not url.host:
            raise self._fail(f"the registry names a token server that is not an http(s) URL: {params['realm']!r}")
        headers = {}
        if credentials is not None:
            pair = f"{credentials.username}:{credentials.password}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        try:
            answer = await self._send(str(url), headers, None)
        except RegistryFault as exc:
            raise self._fail(f"the token server: {exc}") from None
        who = f"the credentials from {credentials.source}" if credentials else "an anonymous token"
        if answer.status in (401, 403):
            hint = "" if credentials else " (log in with `podman login` or pass --authfile FILE)"
            raise self._fail(f"authentication failed: the token server {params['realm']} refused {who}{hint}")
        if answer.status != 200:
            raise self._fail(f"the token server {params['realm']} answered HTTP {answer.status}")
        data = answer.json()
        token = data.get("token") or data.get("access_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise self._fail(f"the token server {params['realm']} sent no token")
        return token

    # --- the API ---------------------------------------------------------------------------------

    async def connect(self) -> None:
        """GET /v2/: is this a registry, and which authentication does it want?"""
        try:
            await self._connect()
        except RegistryFault as exc:
            raise self._fail(str(exc)) from None

    async def _connect(self) -> None:
        answer = await self._send(self.base + "/v2/", {}, None)
        if answer.status == 401:
            await self._auth.answer(answer.headers.get("WWW-Authenticate"), self._auth.generation)
            answer = await self.get("/v2/")
        if answer.status != 200:
            raise self._fail(f"{self.reference.host_port} does not answer the registry API "
                             f"(GET /v2/ returned HTTP {answer.status})")

    async def tags(self) -> list[str]:
        """Every tag of the repository, following ``Link: <...>; rel="next"`` pages."""
        try:
            return await self._tags()
        except RegistryFault as exc:
            raise self._fail(str(exc)) from None

    async def _tags(self) -> list[str]:
        tags: list[str] = []
        path: str | None = f"/v2/{self.reference.repository}/tags/list?n=1000"
        while path:
            answer = await self.get(path, {"Accept": "application/json"})
            if answer.status == 404:
                raise self._fail(f"repository {self.reference.repository!r} not found on "
                                 f"{self.reference.host_port} (HTTP 404 for its tag list)")
            if answer.status != 200:
                raise self._fail(f"listing tags failed: HTTP {answer.status}")
            if answer.too_large:
                raise self._fail(f"a tag list page is larger than {MAX_MANIFEST_BYTES:,} bytes")
            page = answer.json()
            if not isinstance(page, dict) or not isinstance(page.get("tags", []), (list, type(None))):
                raise self._fail("the tag list is not {\"name\": ..., \"tags\": [...]}")
            tags += [t for t in page.get("tags") or [] if isinstance(t, str)]
            link = _NEXT_LINK.search(answer.headers.get("Link", ""))
            path = str(URL(self.base + "/").join(URL(link[1]))) if link else None
        return sorted(set(tags))

    async def manifest(self, reference: str, unless_digest: str | None = None) -> Fetched | None:
        """The manifest of a tag or digest, checked against the digest it is asked by and
        the one the registry states; anything else is a :class:`RegistryFault`.

        With ``unless_digest``, None when the registry answers 304: the tag still names
        that digest (``If-None-Match``; distribution checks it before reading the manifest).
        A registry that ignores the header answers 200, and that is read as usual."""
        headers = {"Accept": MANIFEST_ACCEPT}
        if unless_digest:
            headers["If-None-Match"] = f'"{unless_digest}"'
        answer = await self.get(f"/v2/{self.reference.repository}/manifests/{reference}", headers)
        if answer.status == 304 and unless_digest:
            stated = answer.headers.get("Docker-Content-Digest", unless_digest)
            if stated == unless_digest:
                return None
            return await self.manifest(reference)  # a 304 that names another digest: read it
        if answer.status == 404:
            raise Missing("manifest request answered HTTP 404 (manifest unknown)")
        self._check(answer, "manifest request")
        body = answer.body
        if answer.too_large:
            raise RegistryFault(f"manifest of more than {MAX_MANIFEST_BYTES:,} bytes is too large")
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        stated = answer.headers.get("Docker-Content-Digest", digest)
        for expected in (reference, stated):
            if DIGEST.fullmatch(expected) and expected != digest:
                raise RegistryFault(f"manifest content does not match its digest {expected}")
        media_type = answer.headers.get("Content-Type", "").split(";")[0].strip()
        return Fetched(digest, media_type, body)

    async def blob(self, digest: str, what: str) -> bytes:
        """A small blob (an image config), checked against its digest."""
        answer = await self.get(f"/v2/{self.reference.repository}/blobs/{digest}")
        self._check(answer, f"{what} {digest}")
        if answer.too_large:
            raise RegistryFault(f"{what} {digest} is larger than {MAX_MANIFEST_BYTES:,} bytes")
        if "sha256:" + hashlib.sha256(answer.body).hexdigest() != digest:
            raise RegistryFault(f"{what} {digest} does not match its digest")
        return answer.body

    async def read_blob(self, digest: str, what: str, decode: Callable[[Iterator[bytes]], T]) -> T:
        """Stream a blob into ``decode``, which runs in a worker thread (it is synchronous:
        gunzip and tar) and pulls one chunk at a time from this loop, so memory stays at a
        chunk or two whatever the blob's size. ``decode`` may stop early; the rest is not read."""
        answer = await self.get(f"/v2/{self.reference.repository}/blobs/{digest}", stream=True)
        response = answer.streaming
        if response is None:
            self._check(answer, f"{what} {digest}")
            raise AssertionError("a 200 is always streamed")
        loop = asyncio.get_running_loop()

        def chunks() -> Iterator[bytes]:
            while chunk := asyncio.run_coroutine_threadsafe(self._next_chunk(response, digest), loop).result():
                yield chunk

        try:
            return await loop.run_in_executor(None, decode, chunks())
        finally:
            response.release()

    def _check(self, answer: Answer, what: str) -> None:
        """A fault unless the answer is a 200 (after the retries, for 429 and 5xx)."""
        if answer.status in RETRY_STATUSES:
            raise RegistryFault(f"{what} answered HTTP {answer.status} ({self.options.attempts} attempts)")
        if answer.status != 200:
            raise RegistryFault(f"{what} answered HTTP {answer.status}")

    async def _next_chunk(self, response: aiohttp.ClientResponse, digest: str) -> bytes:
        try:
            return await response.content.read(CHUNK_BYTES)
        except TimeoutError:
            raise RegistryFault(f"blob {digest}: the registry stopped sending within "
                                f"{self.options.timeout:g} s") from None
        except aiohttp.ClientError as exc:
            raise RegistryFault(f"blob {digest}: download broke off ({_transport_text(exc)})") from None
