"""Generated graph-data for property tests: releases of three arches with random previous versions,
three channels, blocks and risks of several patterns (hypothesis draws them)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from site_gen.model.versions import sort_key

ARCHES = ["amd64", "arm64", "multi"]
VERSIONS = sorted([f"4.14.{p}" for p in range(5)] + ["4.15.0-rc.0", "4.15.0-rc.1"]
                  + [f"4.15.{p}" for p in range(4)], key=sort_key)
PATTERNS = [".*", r"4\.14\..*", r"^4\.15\.[0-2][+].*$", r"[+]arm64", r"4\.1", r"rc"]
RISKS = ["AlphaRisk", "BetaRisk", "GammaRisk"]


@st.composite
def inputs(draw):
    releases = []
    for arch in ARCHES:
        present = [v for v in VERSIONS if draw(st.booleans())]
        for i, version in enumerate(present):
            earlier = present[:i]
            previous = [v for v in earlier if draw(st.integers(0, 3)) > 0]
            releases.append((version, arch, previous))
    channels = []
    for name in ("candidate-4.15", "fast-4.15", "stable-4.15"):
        entries = []
        for version in VERSIONS:
            choice = draw(st.integers(0, 4))
            if choice >= 2:
                entries.append(version)
            elif choice == 1:
                entries.append(f"{version}+{draw(st.sampled_from(ARCHES))}")
        channels.append((name, entries))
    blocks = []
    for index in range(draw(st.integers(0, 6))):
        to = draw(st.sampled_from(VERSIONS))
        pattern = draw(st.sampled_from(PATTERNS))
        risk = draw(st.one_of(st.none(), st.sampled_from(RISKS)))
        blocks.append((f"{index:02d}-{to}.yaml", to, pattern, risk))
    seed = draw(st.integers(0, 2**32 - 1))
    return releases, channels, blocks, seed


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
