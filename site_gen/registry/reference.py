"""``docker://HOST[:PORT]/REPOSITORY``: which registry and repository to scrape."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..model.errors import InputError

PREFIX = "docker://"
# distribution's reference grammar: lower-case path components separated by / (no tag here)
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REPOSITORY = re.compile(rf"{_COMPONENT}(?:/{_COMPONENT})*")
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
                   r"|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


@dataclass(frozen=True)
class RegistryReference:
    host_port: str     # "mirror.example.com:5000", exactly as given (payloads repeat it)
    repository: str    # "openshift/release-images"

    def __str__(self) -> str:
        return f"{PREFIX}{self.host_port}/{self.repository}"

    @property
    def payload_prefix(self) -> str:
        """``host[:port]/repository``: the pull spec a payload ``@digest`` is appended to."""
        return f"{self.host_port}/{self.repository}"

    @property
    def file_name(self) -> str:
        """A file name for what is kept about this repository: readable, and unique
        (the hash) even where the readable part of two references is the same."""
        key = hashlib.sha256(str(self).encode()).hexdigest()[:16]
        readable = f"{self.host_port}-{self.repository}".replace("/", "_").replace(":", "_")
        return f"{readable}-{key}.json"


def is_registry_reference(text: str) -> bool:
    return text.startswith(PREFIX)


def parse_reference(text: str) -> RegistryReference:
    """Parse ``docker://HOST[:PORT]/REPOSITORY``; a tag or digest is refused (every tag is read)."""
    if not is_registry_reference(text):
        raise InputError(f"not a registry reference: {text!r} (expected {PREFIX}HOST[:PORT]/REPOSITORY)")
    rest = text[len(PREFIX):]
    host_port, slash, repository = rest.partition("/")
    if not slash or not repository:
        raise InputError(f"{text}: name the repository too, as in "
                         f"{PREFIX}mirror.example.com:5000/openshift/release-images")
    if "@" in repository or ":" in repository:
        raise InputError(f"{text}: give the repository without a tag or digest; every tag in it is read")
    if not _HOST.fullmatch(host_port):
        raise InputError(f"{text}: {host_port!r} is not a registry host[:port]")
    repository = repository.rstrip("/")
    if not _REPOSITORY.fullmatch(repository):
        raise InputError(f"{text}: {repository!r} is not a repository name (lower-case "
                         "components such as openshift/release-images)")
    return RegistryReference(host_port, repository)
