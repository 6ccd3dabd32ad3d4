"""The TLS trust for one registry: the system store plus podman's ``certs.d`` files.

Like podman and skopeo, a directory of certificates is read for the registry:
``*.crt`` files are trusted CAs, a ``*.cert`` with the ``*.key`` of the same name is a
client certificate. Without ``--cert-dir`` the directories are
``/etc/containers/certs.d/HOST:PORT`` and ``/etc/docker/certs.d/HOST:PORT``; with it,
DIR itself and ``DIR/HOST:PORT``.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from ..model.errors import InputError
from .reference import RegistryReference

SYSTEM_CERT_DIRS = (Path("/etc/containers/certs.d"), Path("/etc/docker/certs.d"))


def certificate_dirs(reference: RegistryReference, cert_dir: Path | None) -> list[Path]:
    if cert_dir is not None:
        if not cert_dir.is_dir():
            raise InputError("--cert-dir is not a directory", cert_dir)
        return [cert_dir, cert_dir / reference.host_port]
    return [root / reference.host_port for root in SYSTEM_CERT_DIRS]


def ssl_context(reference: RegistryReference, cert_dir: Path | None, verify: bool) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    for directory in certificate_dirs(reference, cert_dir):
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.crt")):
            try:
                context.load_verify_locations(cafile=str(path))
            except (ssl.SSLError, OSError) as exc:
                raise InputError(f"not a PEM CA certificate: {exc}", path) from None
        for cert in sorted(directory.glob("*.cert")):
            key = cert.with_suffix(".key")
            if not key.is_file():
                raise InputError(f"client certificate without its key {key.name}", cert)
            try:
                context.load_cert_chain(str(cert), str(key))
            except (ssl.SSLError, OSError) as exc:
                raise InputError(f"cannot load the client certificate: {exc}", cert) from None
    return context
