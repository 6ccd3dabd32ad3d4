"""The offline bundle: a whole built site as one archive plus its checksum, to carry
across an air gap.

``ARCHIVE`` is a reproducible ``.tar.gz`` whose entries all sit under ``site/``, and
``ARCHIVE.sha256`` is one ``sha256sum`` line, so the receiving side checks it with
``sha256sum -c ARCHIVE.sha256`` and unpacks it with ``tar -xzf ARCHIVE``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ..atomic_files import replace_atomically
from ..layout import MARKER
from ..model.errors import InputError
from .reproducible_tar import source_date_epoch, write_tar_gz

TOP_DIRECTORY = "site"


@dataclass
class Bundle:
    archive: Path
    checksum_file: Path
    sha256: str
    files: int


def site_files(site: Path) -> dict[str, Path]:
    """Archive name -> file for every file of the site; symbolic links are refused so the
    archive holds the site's own bytes and nothing from elsewhere."""
    if not (site / MARKER).is_file():
        raise InputError(f"not a built site (no {MARKER} marker): build it with site-gen build first", site)
    files = {}
    for folder, subfolders, names in os.walk(site):
        subfolders.sort()
        for name in [*subfolders, *names]:
            path = Path(folder) / name
            if path.is_symlink():
                raise InputError("the site contains a symbolic link; a bundle carries only the "
                                 "site's own files", path)
        for name in names:
            path = Path(folder) / name
            if not path.is_file():  # reading a FIFO would wait forever
                raise InputError("the site contains a special file (FIFO, socket or device); a bundle "
                                 "carries only regular files", path)
            files[f"{TOP_DIRECTORY}/{path.relative_to(site).as_posix()}"] = path
    return files


def write_bundle(site: Path, archive: Path) -> Bundle:
    site, archive = site.resolve(), archive.absolute()
    if not site.is_dir():
        raise InputError("no site here: build one first (site-gen build --out DIR)", site)
    destination = archive.resolve()
    if destination == site or site in destination.parents:
        raise InputError("the bundle cannot be written inside the site it carries; choose --out "
                         "outside it", archive)
    if not archive.parent.is_dir():
        raise InputError("there is no directory here to write the bundle into", archive.parent)
    if archive.is_dir():
        raise InputError("this is a directory: --out names the archive file to write, such as "
                         f"{archive / 'updates.tar.gz'}", archive)
    checksum_file = archive.with_name(archive.name + ".sha256")
    if checksum_file.is_dir():
        raise InputError("this is a directory, so the bundle's checksum file cannot be written here",
                         checksum_file)
    files = site_files(site)
    mtime = source_date_epoch()
    try:
        replace_atomically(archive, lambda out: write_tar_gz(out, files, mtime, compresslevel=6), 0o644)
        with open(archive, "rb") as packed:
            digest = hashlib.file_digest(packed, "sha256").hexdigest()
        line = f"{digest}  {archive.name}\n".encode()
        replace_atomically(checksum_file, lambda out: out.write(line), 0o644)
    except OSError as exc:  # unreadable site files, a read-only or full disk, ...
        raise InputError(f"cannot make the bundle: {exc.strerror or exc}", exc.filename or archive) from None
    return Bundle(archive, checksum_file, digest, len(files))
