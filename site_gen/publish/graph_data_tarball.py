"""The graph-data tarball a disconnected mirror serves (spec §10).

``api/upgrades_info/graph-data``: the gzip tarball the graph-builder publishes at that
path, holding exactly the graph-data files the reference service keeps (``LICENSE``,
``version``, the ``channels/`` and ``blocked-edges/`` files it reads, ``raw/metadata.json``),
so an update-service graph-data image can be built from the mirror (oc-mirror cannot use
it: it hard-codes api.openshift.com; see docs/serving.md). A
channel whose versions the build changed (``--promote-until``) is written as built,
so the tarball always describes the graphs the site serves.
"""

from __future__ import annotations

from pathlib import Path

from ..inputs.file_selection import qualifying_files, refuse_link_out
from ..inputs.graph_data_files import channel_as_built
from ..layout import GRAPH_DATA_TARBALL
from ..model.errors import Warnings
from ..model.graph_data import Channel, GraphData
from .reproducible_tar import source_date_epoch, tar_gz_bytes
from .staging import StagedSite

_TOP_LEVEL_FILES = ("LICENSE", "version")
_READ_DIRECTORIES = ("channels", "blocked-edges")
_RAW_METADATA = "raw/metadata.json"
_PROJECTED_NOTE = b"# versions as projected by site-gen --promote-until; the source file differs\n"


def _as_built(channel: Channel) -> bytes | None:
    """The channel file's content with the versions the build used, when they differ from it."""
    content = channel_as_built(channel)
    return None if content is None else _PROJECTED_NOTE + content


def tarball_files(data: GraphData) -> dict[str, Path | bytes]:
    """Archive name -> file (or content) for the graph-data tarball, by the reference
    service's own file rules, so a tarball consumer reads exactly what this build read."""
    root = data.root
    files: dict[str, Path | bytes] = {name: root / name for name in _TOP_LEVEL_FILES if (root / name).is_file()}
    already_reported = Warnings()  # loading the graph-data warned about skipped files once
    for directory in _READ_DIRECTORIES:
        for path in qualifying_files(root / directory, already_reported):
            files[f"{directory}/{path.name}"] = path
    files[_RAW_METADATA] = root / _RAW_METADATA
    for name in files:
        refuse_link_out(root, root / name, "the published graph-data tarball")
    for channel in data.channels:
        content = _as_built(channel)
        if content is not None:
            files[f"channels/{channel.path.name}"] = content
    return files


def graph_data_tarball(data: GraphData) -> bytes:
    """The tarball's bytes: reproducible, dated by SOURCE_DATE_EPOCH."""
    return tar_gz_bytes(tarball_files(data), source_date_epoch())


def write_graph_data_tarball(site: StagedSite, tarball: bytes) -> None:
    """The tarball made by :func:`graph_data_tarball`."""
    site.write(GRAPH_DATA_TARBALL, tarball)
