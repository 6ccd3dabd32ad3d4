"""Gzip-compressed tar archives whose bytes depend only on the files' names and contents.

Entries are sorted, each directory before what it holds; every entry has the same
time (SOURCE_DATE_EPOCH, or 0), owner 0:0 with no names, and fixed modes; the gzip
header carries the same time and no file name. Two runs over the same files give
the same bytes, so a checksum identifies the content.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..inputs.regular_files import read_regular
from ..model.errors import InputError

FILE_MODE = 0o644
DIRECTORY_MODE = 0o755


def source_date_epoch() -> int:
    """The time to stamp archive entries with: SOURCE_DATE_EPOCH when set, else 0."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return 0
    if not value.isdigit():
        raise InputError(f"SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, got {value!r}")
    return int(value)


def _entry(name: str, mtime: int, directory: bool, size: int = 0) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE if directory else tarfile.REGTYPE
    info.mode = DIRECTORY_MODE if directory else FILE_MODE
    info.size = size
    info.mtime = mtime
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def write_tar_gz(out: BinaryIO, files: Mapping[str, Path | bytes], mtime: int, compresslevel: int = 9) -> None:
    """Archive ``files`` (archive name -> source file or content) with a directory entry for
    every parent."""
    directories = {str(parent) for name in files for parent in PurePosixPath(name).parents} - {"."}
    entries = sorted([(name, True) for name in directories] + [(name, False) for name in files],
                     key=lambda entry: PurePosixPath(entry[0]).parts)
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=mtime, compresslevel=compresslevel) as packed:
        with tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name, directory in entries:
                if directory:
                    tar.addfile(_entry(name, mtime, directory=True))
                    continue
                source = files[name]
                # read once, so size and bytes agree; the largest cap of the graph-data's files
                content = source if isinstance(source, bytes) else read_regular(source, "raw metadata")
                tar.addfile(_entry(name, mtime, directory=False, size=len(content)), io.BytesIO(content))


def tar_gz_bytes(files: Mapping[str, Path | bytes], mtime: int) -> bytes:
    buffer = io.BytesIO()
    write_tar_gz(buffer, files, mtime)
    return buffer.getvalue()
