"""Release signatures for a disconnected mirror (spec §10).

Copied byte for byte from graph-data's ``signatures/<algorithm>/<digest>/signature-N``
to ``signatures/<algorithm>=<digest>/signature-N``, the layout the cluster-version
operator's HTTP signature store reads.
"""

from __future__ import annotations

from ..layout import signature_path
from ..model.graph_data import GraphData
from .staging import StagedSite


def write_signatures(site: StagedSite, data: GraphData) -> None:
    for signature in data.signatures:
        site.copy(signature_path(signature), signature.path)
