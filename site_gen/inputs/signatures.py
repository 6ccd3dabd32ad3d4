"""Release signatures in graph-data (schema 1.2.0): ``signatures/<algorithm>/<digest>/signature-N``."""

from __future__ import annotations

import re
from pathlib import Path

from ..model.errors import Warnings
from ..model.graph_data import SignatureFile
from .file_selection import refuse_link_out

_SIGNATURE_NAME = re.compile(r"^signature-[1-9][0-9]*$")
_ALGORITHM = re.compile(r"^[a-z0-9]+$")
_DIGEST = re.compile(r"^[0-9a-f]+$")


def load_signatures(root: Path, warnings: Warnings) -> list[SignatureFile]:
    """``signatures/<algorithm>/<digest>/signature-N`` (schema 1.2.0). Only regular
    files are accepted: a symbolic link that leads out of the graph-data stops the
    build (``signatures/`` itself included); other links below it are skipped."""
    base = root / "signatures"
    if not base.is_dir():
        return []
    refuse_link_out(root, base, "the published signatures")
    found = []
    for path in sorted(base.rglob("*")):
        if path.is_symlink():
            refuse_link_out(root, path, "the published signatures")
        if path.is_dir() and not path.is_symlink():
            continue
        relative = path.relative_to(base)
        parts = relative.parts
        if len(parts) == 1 and not path.is_symlink():
            continue  # keys and READMEs beside the algorithm folders
        if (len(parts) != 3 or path.is_symlink() or not path.is_file()
                or not _ALGORITHM.match(parts[0]) or not _DIGEST.match(parts[1])
                or not _SIGNATURE_NAME.match(parts[2])):
            warnings.add("ignored: signatures must be regular files at "
                         "signatures/<algorithm>/<hex digest>/signature-<n>", path)
            continue
        found.append(SignatureFile(parts[0], parts[1], parts[2], path))
    return found
