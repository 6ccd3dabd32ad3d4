"""Builds run with the cyclic garbage collector paused, and rendering a page with a macro leaves
its context in a reference cycle, holding the page's model: the renderer must let those go as it
goes, or ~1,900 pages' worth stays in memory until the end of the build (20 MiB at full scale)."""

from __future__ import annotations

import gc

import pytest

from site_gen.render.environment import COLLECT_EVERY, PageRenderer
from site_gen.render.release_pages import ArchRelease, ReleasePage, UpdateRow

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


class _Site:
    def __init__(self):
        self.written: list[str] = []

    def write(self, path: str, data: bytes) -> None:
        self.written.append(path)


def _release(number: int) -> ReleasePage:
    arch = ArchRelease("amd64", "quay.io/openshift-release-dev/ocp-release@sha256:00", "https://example.com/errata",
                       ["stable-4.16"], {"url": "https://example.com/errata"})
    return ReleasePage(f"4.16.{number}", [arch], [UpdateRow("4.16.99", (), [("stable-4.16", "amd64")])], [])


def test_pages_rendered_with_the_collector_paused_leave_few_cycles_behind():
    pages = PageRenderer(_Site(), has_changes_page=False)
    count = 4 * COLLECT_EVERY + 3
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for number in range(count):
            pages.write(f"releases/4.16.{number}.html", "release.html.j2", release=_release(number))
        gc.set_debug(gc.DEBUG_SAVEALL)  # keep what is collected, to count the page contexts in it
        gc.collect()
        contexts = sum(type(found).__name__ == "Context" for found in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert pages.pages == count
    assert contexts < COLLECT_EVERY  # the pages since the last collection at most, not all of them
