"""``--release-contents SOURCE``: where release images' contents are read from.

Light on purpose (no HTTP client imported): the build's options hold it whether or not
contents are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .reference import RegistryReference, is_registry_reference, parse_reference


@dataclass(frozen=True)
class ContentsSource:
    text: str                              # as given
    registry: RegistryReference | None = None
    directory: Path | None = None          # an OCI layout or a directory of image trees

    def __str__(self) -> str:
        return self.text


def contents_source(text: str) -> ContentsSource:
    """``docker://HOST[:PORT]/REPO`` or a directory; InputError for anything else."""
    if is_registry_reference(text):
        return ContentsSource(text, registry=parse_reference(text))
    return ContentsSource(text, directory=Path(text))
