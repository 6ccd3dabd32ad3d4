"""What docs/static-hosts.md says an S3 upload stores as each file's Content-Type.

`aws s3 sync` / `aws s3 cp` take the type from the file name with
``mimetypes.guess_type(name)[0]`` (awscli, customizations/s3/utils.py), so running that guess
over every file of a built site shows what S3 would store and send.
"""

from __future__ import annotations

import mimetypes
from pathlib import PurePosixPath

import pytest

from site_helpers import build_site

# Files the build writes without an extension: S3 stores its default, binary/octet-stream.
NO_EXTENSION = ("api/upgrades_info/graph-data", ".site-gen", "signatures/")
EXPECTED = {".json": "application/json", ".html": "text/html", ".svg": "image/svg+xml",
            ".css": "text/css", ".js": "text/javascript", ".atom": "application/atom+xml", ".conf": None}


@pytest.fixture(scope="module")
def site_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("static-hosts")
    build_site(root / "site", root / "cache")
    return sorted(path.relative_to(root / "site").as_posix() for path in (root / "site").rglob("*")
                  if path.is_file())


@pytest.mark.heavy
def test_every_file_gets_the_type_the_docs_name(site_files):
    seen = set()
    for name in site_files:
        suffix = PurePosixPath(name).suffix
        guessed = mimetypes.guess_type(name)[0]
        if not suffix:
            assert name.startswith(NO_EXTENSION), name
            assert guessed is None, name
            continue
        if suffix == ".gz":  # the precompressed graphs and pages, which the documented upload leaves out
            assert mimetypes.guess_type(name) == (mimetypes.guess_type(name[:-len(".gz")])[0], "gzip"), name
            seen.add(suffix)
            continue
        assert suffix in EXPECTED, f"{name}: docs/static-hosts.md does not say what S3 stores for {suffix}"
        # Python before 3.12 may read application/javascript from the system's mime.types
        assert guessed == EXPECTED[suffix] or (suffix == ".js" and guessed == "application/javascript"), name
        seen.add(suffix)
    assert {".json", ".html", ".svg", ".css", ".js", ".atom", ".gz"} <= seen
    assert any(name.startswith("api/upgrades_info/v1/graph/") and name.endswith(".json") for name in site_files)


@pytest.mark.parametrize("suffix, encoding", [(".gz", "gzip"), (".br", "br")])
def test_precompressed_graphs_would_be_stored_as_plain_json(suffix, encoding):
    """The reason the docs exclude them from `aws s3 sync`: the encoding is dropped."""
    assert mimetypes.guess_type(f"api/upgrades_info/v1/graph/stable-4.16/amd64.json{suffix}") == \
        ("application/json", encoding)
