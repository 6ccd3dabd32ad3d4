"""Registry credentials from the auth files podman, skopeo and docker write.

Files, first match wins: ``--authfile``, else ``$REGISTRY_AUTH_FILE``,
``$XDG_RUNTIME_DIR/containers/auth.json`` and ``~/.docker/config.json``. In a file,
``auths`` keys are tried as the graph-builder does (spec §1.3): ``host[:port]/repo``,
then with its last path segment removed, repeatedly, then ``host[:port]``; a key
written with a scheme (docker's ``https://host``) is matched too. Unlike the
reference, an entry without ``auth`` (a credential helper's) is only skipped.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..model.errors import InputError, Warnings
from .reference import RegistryReference


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    source: str  # "FILE (key KEY)", for messages

    def __repr__(self) -> str:  # never print the password
        return f"Credentials({self.username!r}, from {self.source})"


def default_auth_files() -> list[Path]:
    files = []
    if os.environ.get("REGISTRY_AUTH_FILE"):
        files.append(Path(os.environ["REGISTRY_AUTH_FILE"]))
    if os.environ.get("XDG_RUNTIME_DIR"):
        files.append(Path(os.environ["XDG_RUNTIME_DIR"]) / "containers" / "auth.json")
    files.append(Path.home() / ".docker" / "config.json")
    return files


def lookup_keys(reference: RegistryReference) -> list[str]:
    keys = []
    name = reference.payload_prefix
    while "/" in name:
        keys.append(name)
        name = name.rsplit("/", 1)[0]
    keys.append(reference.host_port)
    return keys


def _normalised(key: str) -> str:
    return key.removeprefix("https://").removeprefix("http://").rstrip("/")


def _read_auths(path: Path) -> dict:
    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read the auth file: {exc.strerror}", path) from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"the auth file is not valid JSON: {exc}", path) from None
    auths = data.get("auths") if isinstance(data, dict) else None
    return auths if isinstance(auths, dict) else {}


def _decode(entry: object, path: Path, key: str) -> Credentials | None:
    encoded = entry.get("auth") if isinstance(entry, dict) else None
    if not isinstance(encoded, str) or not encoded:
        return None
    try:
        user, colon, password = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")
    except ValueError:  # binascii.Error, UnicodeDecodeError, and non-ASCII text
        raise InputError(f"auths[{key!r}].auth is not base64 of user:password", path) from None
    if not colon or not user or not password:
        raise InputError(f"auths[{key!r}].auth must encode user:password", path)
    return Credentials(user, password, f"{path} (key {key})")


def find_credentials(reference: RegistryReference, authfile: Path | None,
                     warnings: Warnings) -> Credentials | None:
    """The credentials for ``reference``, or None to go anonymous. An explicit
    ``--authfile`` must be readable; the default files may be missing."""
    files = [authfile] if authfile is not None else [p for p in default_auth_files() if p.is_file()]
    wanted = lookup_keys(reference)
    for path in files:
        auths = {_normalised(key): (key, entry) for key, entry in _read_auths(path).items()}
        for key in wanted:
            if key not in auths:
                continue
            original, entry = auths[key]
            found = _decode(entry, path, original)
            if found is not None:
                return found
            warnings.add(f"auths[{original!r}] has no 'auth' field (a credential helper's "
                         "entry?); not used", path)
    return None
