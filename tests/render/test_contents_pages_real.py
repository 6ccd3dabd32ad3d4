"""The release contents page of records built from the real 4.8 and 4.10 image-references
(../shared/data/release-contents), rendered without a build: every real tag with its commit link,
the RHCOS display name, and what changes from 4.8 to 4.10 as oc counts it."""

from __future__ import annotations

import re

import pytest

from site_gen import layout
from site_gen.js_rules.release_diff import release_changes
from site_gen.render.contents_pages import contents_pages
from site_gen.render.environment import CollectedPages, PageRenderer

from contents_records import IMAGE_REFERENCES, record_from_image_references
from site_helpers import page_section, page_text

pytestmark = [pytest.mark.real_data,
              pytest.mark.skipif(not IMAGE_REFERENCES["4.8"].is_file(),
                                 reason="../shared/data/release-contents is not there")]


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    old = record_from_image_references("4.8", "4.8.0")
    new = record_from_image_references("4.10", "4.10.0")
    records = {("4.8.0", "amd64"): old, ("4.10.0", "amd64"): new}
    changes = {("4.8.0", "4.10.0", "amd64"): release_changes(old, new)}
    sink = CollectedPages()
    renderer = PageRenderer(sink, False)
    for page in contents_pages(records, changes, {"4.8.0", "4.10.0"}):
        renderer.write(layout.release_arch_page(page.version, page.arch), "release_contents.html.j2", c=page)
    return {version: sink.files[layout.release_arch_page(version, "amd64")].decode("utf-8")
            for version in ("4.8.0", "4.10.0")}


def test_every_real_image_is_listed_with_its_github_commit_link(pages):
    new = record_from_image_references("4.10", "4.10.0")
    rows = re.findall(r'<tr><th scope="row">(.*?)</tr>', page_section(pages["4.10.0"], "images-h"), re.S)
    assert len(rows) == len(new["images"]) == 146
    for row, (tag, image) in zip(rows, sorted(new["images"].items())):
        assert page_text(row).startswith(tag)
        assert image["image"].rpartition("@")[2] in row
        repository, commit = image["sourceRepository"], image["commit"]
        if repository and commit and repository.startswith("https://github.com/"):
            assert f'href="{repository}/commit/{commit}"' in row
        else:
            assert "/commit/" not in row


def test_the_components_are_named_as_oc_names_them(pages):
    components = page_text(page_section(pages["4.10.0"], "components-h"))
    assert "Kubernetes 1.22.1" in components
    assert "Red Hat Enterprise Linux CoreOS 410.84.202111112202-0" in components


def test_what_changes_from_48_counts_images_and_commit_ranges_as_oc_does(pages):
    block = page_text(page_section(pages["4.10.0"], "from-4.8.0"))
    assert "(previous minor)" in block
    assert "Images: 132 changed (115 commit ranges), 2 rebuilt, 12 added, 6 removed" in block
    assert "Kubernetes 1.21.0-rc.0 → 1.22.1" in block
    assert "Red Hat Enterprise Linux CoreOS 48.84.202105022103-0 → 410.84.202111112202-0" in block
