"""A real distribution registry (Debian's docker-registry) on loopback, for the scrape tests.

``make_ca`` writes a CA and a server certificate for 127.0.0.1 with openssl; a
``Registry`` runs ``docker-registry serve`` on a free port with TLS from that CA,
anonymous, with htpasswd Basic auth, or with Bearer tokens from ``TokenServer`` (a small
token service signing RS256 JWTs with openssl, the way distribution's token auth
expects). Several registries can serve one storage directory: images are pushed once.
"""

from __future__ import annotations

import base64
import http.server
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import httpx

REGISTRY = shutil.which("docker-registry")
HTPASSWD = shutil.which("htpasswd")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


@dataclass
class Certificates:
    ca: Path        # the CA certificate clients trust
    cert: Path      # server certificate for 127.0.0.1 / localhost
    key: Path


def make_ca(directory: Path, name: str = "site-gen test CA") -> Certificates:
    directory.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (directory / n for n in ("ca.key", "ca.crt", "server.key", "server.csr",
                                                           "server.crt"))
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", str(ca_key), "-out", str(ca), "-days", "2", "-subj", f"/CN={name}")
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1")
    extensions = directory / "san.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
             "-out", str(cert), "-days", "2", "-extfile", str(extensions))
    return Certificates(ca, cert, key)


def htpasswd_file(path: Path, user: str, password: str) -> Path:
    subprocess.run([HTPASSWD, "-Bbc", str(path), user, password], check=True, capture_output=True)
    return path


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TokenServer:
    """GET /token?service=S&scope=repository:NAME:ACTIONS with Basic auth -> {"token": JWT}.

    ``expired_first``: the first token it issues is already expired, so a client only
    succeeds if it asks again when the registry answers 401."""

    def __init__(self, directory: Path, certs: Certificates, user: str, password: str,
                 expired_first: bool = False):
        self.key = directory / "token.key"
        self.cert = directory / "token.crt"
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(self.key), "-out",
                 str(self.cert), "-days", "2", "-subj", "/CN=site-gen test token issuer")
        der = subprocess.run(["openssl", "x509", "-in", str(self.cert), "-outform", "DER"],
                             check=True, capture_output=True).stdout
        self.x5c = base64.b64encode(der).decode()
        self.user, self.password = user, password
        self.expired_first = expired_first
        self.issued = 0
        self.port = free_port()
        self.realm = f"https://127.0.0.1:{self.port}/token"
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                expected = "Basic " + base64.b64encode(f"{server.user}:{server.password}".encode()).decode()
                if url.path != "/token" or self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.end_headers()
                    return
                body = json.dumps({"token": server.sign(query.get("service", [""])[0],
                                                        query.get("scope", []))}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(certs.cert), str(certs.key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def sign(self, service: str, scopes: list[str]) -> str:
        access = []
        for scope in scopes:
            kind, name, actions = scope.split(":")
            access.append({"type": kind, "name": name, "actions": actions.split(",")})
        now = int(time.time())
        self.issued += 1
        expires = now - 3600 if self.expired_first and self.issued == 1 else now + 600
        claims = {"iss": "site-gen-test-issuer", "sub": self.user, "aud": service, "exp": expires,
                  "nbf": now - 7200, "iat": now - 7200, "jti": f"token-{self.issued}", "access": access}
        header = {"typ": "JWT", "alg": "RS256", "x5c": [self.x5c]}
        signing_input = f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(claims).encode())}"
        signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", str(self.key)],
                                   input=signing_input.encode(), check=True, capture_output=True).stdout
        return f"{signing_input}.{_b64url(signature)}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Registry:
    """``docker-registry serve`` on 127.0.0.1:<free port> with TLS; stop() ends it."""

    def __init__(self, directory: Path, storage: Path, certs: Certificates, auth: str = "",
                 tls: bool = True):
        self.port = free_port()
        self.host_port = f"127.0.0.1:{self.port}"
        self.certs = certs
        directory.mkdir(parents=True, exist_ok=True)
        config = directory / f"config-{self.port}.yml"
        tls_config = (f"  tls:\n    certificate: {certs.cert}\n    key: {certs.key}\n" if tls else "")
        config.write_text(
            "version: 0.1\n"
            "log:\n  level: error\n  accesslog:\n    disabled: true\n"
            f"storage:\n  filesystem:\n    rootdirectory: {storage}\n  delete:\n    enabled: true\n"
            f"http:\n  addr: {self.host_port}\n{tls_config}" + auth)
        self.log = directory / f"registry-{self.port}.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([REGISTRY, "serve", str(config)], stdout=log, stderr=log)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://{self.host_port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(self.url + "/v2/", verify=ssl.create_default_context(cafile=str(certs.ca)), timeout=1)
                return
            except httpx.TransportError as exc:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"docker-registry did not start: {self.log.read_text()}") from exc
                time.sleep(0.1)

    def docker_reference(self, repository: str) -> str:
        return f"docker://{self.host_port}/{repository}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def htpasswd_auth(path: Path) -> str:
    return f"auth:\n  htpasswd:\n    realm: site-gen-test\n    path: {path}\n"


def token_auth(tokens: TokenServer) -> str:
    return (f"auth:\n  token:\n    realm: {tokens.realm}\n    service: site-gen-test-registry\n"
            f"    issuer: site-gen-test-issuer\n    rootcertbundle: {tokens.cert}\n")


def cert_dir_for(registry: Registry, root: Path) -> Path:
    """podman's layout: ROOT/HOST:PORT/ca.crt."""
    directory = root / registry.host_port
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(registry.certs.ca, directory / "ca.crt")
    return root
