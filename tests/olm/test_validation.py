"""What `opm validate` rejects (spec §1.4, §2.4), per catalog, package and channel."""

from __future__ import annotations

import pytest

from site_gen.olm.loading import load_catalog
from site_gen.olm.validation import validate

from olm_catalogs import bundle, chain, channel, entry, package, write_yaml


def check(tmp_path, blobs):
    catalog = load_catalog(write_yaml(tmp_path / "catalog.yaml", blobs))
    return validate(catalog)


def test_a_plain_chain_is_valid(tmp_path):
    result = check(tmp_path, chain("a", "stable", ["1.0.0", "1.1.0", "1.2.0"]))
    assert result.valid and result.package_valid("a") and result.catalog_error() is None


def channel_case(entries, versions=None):
    names = [item["name"] for item in entries]
    versions = versions or [f"1.{i}.0" for i in range(len(names))]
    return [package("a"), channel("a", "stable", entries),
            *(bundle("a", name, version) for name, version in zip(names, versions))]


@pytest.mark.parametrize("entries, message", [
    ([entry("a.1"), entry("a.2")], "multiple channel heads found in graph: a.1, a.2"),
    ([entry("a.1", "a.2"), entry("a.2", "a.1")], "no channel head found in graph"),
    ([entry("a.1", "a.2"), entry("a.2", "a.3"), entry("a.3", "a.2"), entry("a.4", "a.1")],
     "detected cycle in replaces chain of upgrade graph: a.2 -> a.3 -> a.2"),
    ([entry("a.1"), entry("a.2"), entry("a.3", "a.1", skip_range=">=1.0.0 <1.2.0"),
      entry("a.4", "a.3", skips=["a.2x"])],
     "multiple channel heads found in graph: a.2, a.4"),
    ([entry("a.1"), entry("a.2", "a.1"), entry("a.3", skips=["a.2"])],
     "channel contains one or more stranded bundles: a.1"),
    ([entry("a.1"), entry("a.2", "a.1", skip_range=">=4.7 <4.8")], "invalid skipRange '>=4.7 <4.8'"),
    ([entry("a.1"), entry("a.2", "a.1", skips=[""])], "skip[0] is empty"),
])
def test_invalid_channels(tmp_path, entries, message):
    result = check(tmp_path, channel_case(entries))
    assert not result.valid and not result.package_valid("a")
    assert message in (result.channel_error("a", "stable") or "")


def test_dangling_replaces_and_skips_are_legal(tmp_path):
    entries = [entry("a.1", "a.0"), entry("a.2", "a.1", skips=["gone", "a.1"])]
    assert check(tmp_path, channel_case(entries)).valid


def test_chain_stops_at_a_skipped_link(tmp_path):
    # spec §3.3 C: accepted by opm, everything off the chain is skipped
    entries = [entry("c.1"), entry("c.2"), entry("c.3", "c.1", skips=["c.1", "c.2"]),
               entry("c.4", "c.3", skips=["c.3"])]
    assert check(tmp_path, channel_case(entries)).valid


@pytest.mark.heavy
def test_a_2000_entry_skips_list(tmp_path):
    names = [f"a.v0.{i}.0" for i in range(2000)]
    entries = [entry(name) for name in names] + [entry("a.v1.0.0", skips=names)]
    blobs = [package("a"), channel("a", "stable", entries),
             *(bundle("a", name, f"0.{i}.0") for i, name in enumerate(names)), bundle("a", "a.v1.0.0", "1.0.0")]
    assert check(tmp_path, blobs).valid


def test_bundle_in_two_channels_with_different_replaces(tmp_path):
    blobs = [package("a"), channel("a", "stable", [entry("a.1"), entry("a.3", "a.1")]),
             channel("a", "fast", [entry("a.1"), entry("a.2", "a.1"), entry("a.3", "a.2")]),
             bundle("a", "a.1", "1.0.0"), bundle("a", "a.2", "2.0.0"), bundle("a", "a.3", "3.0.0")]
    assert check(tmp_path, blobs).valid


@pytest.mark.parametrize("blobs, message", [
    ([package("a"), channel("a", "stable", []), bundle("a", "a.1", "1.0.0")], "channel must contain at least one"),
    (chain("a", "stable", ["1.0.0"], default="missing"), "'missing': the default channel has no olm.channel"),
    ([package("a", None), channel("a", "s", [entry("a.1")]), bundle("a", "a.1", "1.0.0")],
     "default channel must be set"),
    ([package("a"), channel("a", "stable", [entry("a.1"), entry("a.2", "a.1")]), bundle("a", "a.1", "1.0.0"),
      bundle("a", "a.2", "1.0.0")], "duplicate versions found in bundles: 1.0.0: [a.1 a.2]"),
    ([*chain("a", "stable", ["1.0.0"]), bundle("a", "a.v1.0.0", "1.0.0")], "has duplicate bundle 'a.v1.0.0'"),
    ([*chain("a", "stable", ["1.0.0"]), channel("a", "stable", [])], "has duplicate channel 'stable'"),
    ([package("a"), channel("a", "stable", [entry("a.1"), entry("a.1")]), bundle("a", "a.1", "1.0.0")],
     "has duplicate entry 'a.1'"),
    ([package("a"), channel("a", "stable", [entry("a.1")]), bundle("a", "a.1", "1.0")],
     "error parsing bundle 'a.1' version '1.0'"),
    ([package("a"), channel("a", "stable", [entry("a.1")]), bundle("a", "a.1", "v1.0.0")],
     "error parsing bundle 'a.1' version 'v1.0.0'"),
    ([package("a"), channel("a", "stable", [entry("a.1")]), bundle("a", "a.1", "1.0.0", image="Not A Ref")],
     "invalid image pull spec"),
    ([package("a"), channel("a", "stable", [entry("a.1")]), bundle("a", "a.1", "1.0.0", image="")],
     "bundle image must be set"),
    ([package("a"), channel("a", "stable", [entry("a.1"), entry("a.2", "a.1")]), bundle("a", "a.1", "1.0.0")],
     "no olm.bundle blobs found in package 'a' for olm.channel entries [a.2]"),
    ([*chain("a", "stable", ["1.0.0"]), bundle("a", "a.extra", "2.0.0")],
     "bundle 'a.extra' not found in any channel entries"),
    ([*chain("a", "stable", ["1.0.0"]), {**bundle("a", "a.v1.0.0", "1.0.0"), "name": "a.v2",
                                         "properties": []}], "must have exactly 1 \"olm.package\" property"),
    ([package("a"), channel("a", "stable", [entry("a.1")]),
      {**bundle("a", "a.1", "1.0.0"), "properties": [{"type": "olm.package",
                                                      "value": {"packageName": "b", "version": "1.0.0"}}]}],
     "does not match \"olm.package\" property 'b'"),
    ([*chain("A_b", "stable", ["1.0.0"])], "invalid package name 'A_b'"),
    ([*chain("a", "stable", ["1.0.0"]), package("a")], "duplicate package 'a'"),
])
def test_invalid_packages(tmp_path, blobs, message):
    result = check(tmp_path, blobs)
    name = next(blob["name"] for blob in blobs if blob["schema"] == "olm.package")
    assert not result.valid and not result.package_valid(name)
    assert message in (result.package_error(name) or "")


@pytest.mark.parametrize("blob, message", [
    (channel("nope", "stable", [entry("x")]), "unknown package 'nope' for channel 'stable'"),
    (bundle("nope", "x", "1.0.0"), "unknown package 'nope' for bundle 'x'"),
    ({"schema": "olm.package"}, "config contains package with no name"),
    ({"schema": "olm.deprecations", "package": "nope", "entries": []}, "unknown package 'nope'"),
])
def test_catalog_level_problems_keep_other_packages_valid(tmp_path, blob, message):
    result = check(tmp_path, [*chain("a", "stable", ["1.0.0"]), blob])
    assert not result.valid and result.package_valid("a")
    assert message in (result.catalog_error() or "")


def deprecation(*entries):
    return {"schema": "olm.deprecations", "package": "a", "entries": list(entries)}


def ref(schema, name=None, message="gone"):
    reference = {"schema": schema} if schema is not None else {}
    if name is not None:
        reference["name"] = name
    return {"reference": reference, "message": message}


@pytest.mark.parametrize("blobs, message", [
    ([deprecation(ref("olm.package", "a"))], "package name must be empty"),
    ([deprecation(ref("olm.channel", "nope"))], "cannot deprecate channel 'nope'"),
    ([deprecation(ref("olm.bundle", "nope"))], "cannot deprecate bundle 'nope'"),
    ([deprecation(ref("olm.thing", "x"))], "cannot deprecate object with schema 'olm.thing'"),
    ([deprecation(ref(None, "x"))], "schema must be set"),
    ([deprecation(ref("olm.package", message=""))], "message must be set"),
    ([deprecation(ref("olm.package"), ref("olm.package"))], "duplicate deprecation entry"),
    ([deprecation(ref("olm.package")), deprecation()], "a maximum of one deprecation per package"),
])
def test_invalid_deprecations(tmp_path, blobs, message):
    result = check(tmp_path, [*chain("a", "stable", ["1.0.0"]), *blobs])
    assert not result.package_valid("a")
    assert message in (result.package_error("a") or "")


def test_valid_deprecations(tmp_path):
    blobs = [*chain("a", "stable", ["1.0.0"]),
             deprecation(ref("olm.package"), ref("olm.channel", "stable"), ref("olm.bundle", "a.v1.0.0"))]
    assert check(tmp_path, blobs).valid


def test_unknown_schema_is_kept_aside(tmp_path):
    result = check(tmp_path, [*chain("a", "stable", ["1.0.0"]), {"schema": "example.com/thing", "x": [1]}])
    assert result.valid
