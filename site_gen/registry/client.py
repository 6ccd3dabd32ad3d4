"""The registry HTTP API (distribution v2) for reading: one client per scrape.

httpx does the HTTP: connection pooling shared by the worker threads, a timeout on
every phase of every request, TLS from :mod:`.tls`. On top of it this module adds what
the reference scraper lacks (spec §1.5, §2): retries with exponential backoff on
transport errors and 429/5xx, Basic and Bearer auth negotiated from the registry's
own challenge, a token refreshed when the registry answers 401, and errors that say
what to do. Credentials never turn an anonymous registry into a failure.
"""

from __future__ import annotations

import base64
import hashlib
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

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
MAX_MANIFEST_BYTES = 4 << 20  # manifests and configs are kilobytes; refuse to buffer more
_CHALLENGE_PARAM = re.compile(r'([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?next"?')
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


class RegistryError(InputError):
    """The scrape cannot go on (nothing is published); the location is the registry."""

    def __init__(self, reference: RegistryReference, message: str):
        super().__init__(message, str(reference))


class ImageProblem(Exception):
    """One image is unreadable (a malformed manifest or config): its tags are skipped."""


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


def parse_challenge(header: str) -> tuple[str, dict[str, str]]:
    scheme, _, rest = header.strip().partition(" ")
    params = {m[1].lower(): (m[2] if m[2] is not None else m[3]) for m in _CHALLENGE_PARAM.finditer(rest)}
    return scheme.lower(), params


def _json_body(response: httpx.Response) -> object:
    """The response's JSON, or None when its body is not JSON."""
    try:
        return response.json()
    except ValueError:
        return None


def _tls_message(text: str) -> str | None:
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return ("TLS certificate not trusted (" + text.split("certificate verify failed:")[-1].strip(" )]")
                + "): put the registry's CA certificate in --cert-dir DIR (as DIR/ca.crt or "
                "DIR/HOST:PORT/ca.crt), or pass --tls-verify=false to skip verification")
    if "WRONG_VERSION_NUMBER" in text or "RECORD_LAYER_FAILURE" in text or "packet length" in text:
        return "the registry does not answer TLS; pass --plain-http if it serves plain HTTP"
    if "SSL" in text or "TLS" in text:
        return f"TLS handshake failed ({text}); check --cert-dir and the registry's certificate"
    return None


class _Authorization:
    """The Authorization header all threads send, and how to renew it on a 401."""

    def __init__(self, client: RegistryClient, credentials: Credentials | None):
        self._client = client
        self.credentials = credentials
        self._lock = threading.Lock()
        self.header: str | None = None
        self.generation = 0
        self.scheme: str | None = None

    def basic(self) -> str | None:
        if self.credentials is None:
            return None
        pair = f"{self.credentials.username}:{self.credentials.password}".encode()
        return "Basic " + base64.b64encode(pair).decode()

    def answer(self, challenge_header: str | None, generation: int) -> None:
        """Set the header for this challenge; raise when it cannot be answered."""
        reference = self._client.reference
        with self._lock:
            if generation != self.generation:
                return  # another thread already renewed it
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
                self.header = "Bearer " + self._client.fetch_token(params, self.credentials)
            else:
                raise RegistryError(reference, "the registry asks for authentication it does not "
                                               f"describe (WWW-Authenticate: {challenge_header!r})")
            self.scheme = scheme
            self.generation += 1


class RegistryClient:
    def __init__(self, reference: RegistryReference, options: ConnectionOptions, warnings: Warnings):
        self.reference = reference
        self.options = options
        scheme = "http" if options.plain_http else "https"
        self.base = f"{scheme}://{reference.host_port}"
        if not options.tls_verify and not options.plain_http:
            warnings.add("--tls-verify=false: the registry's certificate is NOT checked; anyone on "
                         "the network path can feed this build fake releases", str(reference))
        verify = ssl_context(reference, options.cert_dir, options.tls_verify)
        limits = httpx.Limits(max_connections=options.concurrency,
                              max_keepalive_connections=options.concurrency)
        self._http = httpx.Client(verify=verify, timeout=httpx.Timeout(options.timeout), limits=limits,
                                  follow_redirects=True, headers={"User-Agent": f"site-gen/{__version__}"})
        self._auth = _Authorization(self, find_credentials(reference, options.authfile, warnings))
        self.requests = 0  # sent so far, retries included
        self._counting = threading.Lock()

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RegistryClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- transport -------------------------------------------------------------------------------

    def _fail(self, message: str) -> RegistryError:
        return RegistryError(self.reference, message)

    def _send(self, url: str, headers: dict, stream: bool, auth: str | None) -> httpx.Response:
        """One GET with retries on transport errors and 429/5xx."""
        delay = self.options.backoff
        for attempt in range(1, self.options.attempts + 1):
            if auth:
                headers = {**headers, "Authorization": auth}
            try:
                with self._counting:
                    self.requests += 1
                response = self._http.send(self._http.build_request("GET", url, headers=headers),
                                           stream=stream)
            except httpx.TimeoutException:
                problem = (f"no answer from {self.reference.host_port} within {self.options.timeout:g} s "
                           "(is the registry up? --timeout changes the limit)")
            except httpx.TransportError as exc:
                text = str(exc) or type(exc).__name__
                tls = _tls_message(text)
                if tls:
                    raise self._fail(tls) from None
                problem = f"cannot reach {self.reference.host_port}: {text}"
            else:
                if response.status_code not in RETRY_STATUSES or attempt == self.options.attempts:
                    return response
                problem = f"HTTP {response.status_code}"
                response.close()
            if attempt == self.options.attempts:
                raise self._fail(f"{problem} (GET {url}, {attempt} attempts)")
            time.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    def get(self, path: str, headers: dict | None = None, stream: bool = False) -> httpx.Response:
        """GET ``path`` (below the registry's base URL) with auth, renewed once on a 401."""
        url = path if "://" in path else self.base + path
        for renewed in (False, True):
            generation, auth = self._auth.generation, self._auth.header
            response = self._send(url, headers or {}, stream, auth)
            if response.status_code != 401 or renewed:
                if response.status_code == 401:
                    response.close()
                    raise self._fail("authentication failed: the registry still answers 401 "
                                     f"after a fresh {self._auth.scheme or 'anonymous'} login ({url})")
                return response
            response.close()
            self._auth.answer(response.headers.get("WWW-Authenticate"), generation)
        raise AssertionError("unreachable")

    def fetch_token(self, params: dict[str, str], credentials: Credentials | None) -> str:
        query = {"scope": params.get("scope") or f"repository:{self.reference.repository}:pull"}
        if params.get("service"):
            query["service"] = params["service"]
        url = httpx.URL(params["realm"]).copy_merge_params(query)
        headers = {}
        if credentials is not None:
            pair = f"{credentials.username}:{credentials.password}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        response = self._send(str(url), headers, False, None)
        who = f"the credentials from {credentials.source}" if credentials else "an anonymous token"
        if response.status_code in (401, 403):
            hint = "" if credentials else " (log in with `podman login` or pass --authfile FILE)"
            raise self._fail(f"authentication failed: the token server {params['realm']} refused {who}{hint}")
        if response.status_code != 200:
            raise self._fail(f"the token server {params['realm']} answered HTTP {response.status_code}")
        data = _json_body(response)
        token = data.get("token") or data.get("access_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise self._fail(f"the token server {params['realm']} sent no token")
        return token

    # --- the API ---------------------------------------------------------------------------------

    def connect(self) -> None:
        """GET /v2/: is this a registry, and which authentication does it want?"""
        response = self._send(self.base + "/v2/", {}, False, None)
        if response.status_code == 401:
            self._auth.answer(response.headers.get("WWW-Authenticate"), self._auth.generation)
            response = self.get("/v2/")
        if response.status_code != 200:
            raise self._fail(f"{self.reference.host_port} does not answer the registry API "
                             f"(GET /v2/ returned HTTP {response.status_code})")

    def tags(self) -> list[str]:
        """Every tag of the repository, following ``Link: <...>; rel="next"`` pages."""
        tags: list[str] = []
        path: str | None = f"/v2/{self.reference.repository}/tags/list?n=1000"
        while path:
            response = self.get(path, {"Accept": "application/json"})
            if response.status_code == 404:
                raise self._fail(f"repository {self.reference.repository!r} not found on "
                                 f"{self.reference.host_port} (HTTP 404 for its tag list)")
            if response.status_code != 200:
                raise self._fail(f"listing tags failed: HTTP {response.status_code}")
            page = _json_body(response)
            if not isinstance(page, dict) or not isinstance(page.get("tags", []), (list, type(None))):
                raise self._fail("the tag list is not {\"name\": ..., \"tags\": [...]}")
            tags += [t for t in page.get("tags") or [] if isinstance(t, str)]
            link = _NEXT_LINK.search(response.headers.get("Link", ""))
            path = str(httpx.URL(self.base + "/").join(link[1])) if link else None
        return sorted(set(tags))

    def manifest(self, reference: str) -> Fetched:
        """The manifest of a tag or digest; an unreadable one is an :class:`ImageProblem`."""
        response = self.get(f"/v2/{self.reference.repository}/manifests/{reference}",
                            {"Accept": MANIFEST_ACCEPT})
        if response.status_code != 200:
            raise ImageProblem(f"manifest request answered HTTP {response.status_code}")
        body = response.content
        if len(body) > MAX_MANIFEST_BYTES:
            raise ImageProblem(f"manifest of {len(body):,} bytes is too large")
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        stated = response.headers.get("Docker-Content-Digest", digest)
        for expected in (reference, stated):
            if DIGEST.fullmatch(expected) and expected != digest:
                raise ImageProblem(f"manifest content does not match its digest {expected}")
        media_type = response.headers.get("Content-Type", "").split(";")[0].strip()
        return Fetched(digest, media_type, body)

    def blob(self, digest: str, what: str) -> bytes:
        """A small blob (an image config), checked against its digest."""
        with self.stream_blob(digest, what) as chunks:
            data = bytearray()
            for chunk in chunks:
                data += chunk
                if len(data) > MAX_MANIFEST_BYTES:
                    raise ImageProblem(f"{what} {digest} is larger than {MAX_MANIFEST_BYTES:,} bytes")
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            raise ImageProblem(f"{what} {digest} does not match its digest")
        return bytes(data)

    @contextmanager
    def stream_blob(self, digest: str, what: str) -> Iterator[Iterator[bytes]]:
        response = self.get(f"/v2/{self.reference.repository}/blobs/{digest}", stream=True)
        try:
            if response.status_code != 200:
                raise ImageProblem(f"{what} {digest} answered HTTP {response.status_code}")
            yield self._chunks(response, digest)
        finally:
            response.close()

    def _chunks(self, response: httpx.Response, digest: str) -> Iterator[bytes]:
        try:
            yield from response.iter_bytes(1 << 16)
        except httpx.TimeoutException:
            raise self._fail(f"blob {digest}: the registry stopped sending within "
                             f"{self.options.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise self._fail(f"blob {digest}: download broke off ({exc})") from None
