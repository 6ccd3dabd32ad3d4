"""site_gen.layout: the catalog paths, and the pages' scripts building the very same ones from
the assets/site-paths.js that layout writes (run here in V8, as the pages run it)."""

from __future__ import annotations

import json
import re

import pytest
from py_mini_racer import MiniRacer

from site_gen import layout

NAMES = ["community-v4.20", "a b", "stable 1.x%", "", ".", "..", "...", "x/y", "ä", "名前", "🙂", "%", "-_.~",
         "UPPER lower 09", "a\\b", "tab\there", "quote\"'", "?#&=+"]


@pytest.fixture(scope="module")
def paths():
    racer = MiniRacer()
    racer.eval(layout.site_paths_script())
    yield lambda expression: json.loads(racer.eval(f"JSON.stringify({expression})"))
    racer.close()


def test_path_component_keeps_every_name_in_one_segment():
    assert layout.path_component("a b") == "a%20b"
    assert layout.path_component("..") == "%2E%2E" and layout.path_component("") == "%00"
    assert all("/" not in layout.path_component(name) and layout.path_component(name) not in ("", ".", "..")
               for name in NAMES)
    assert len({layout.path_component(name) for name in NAMES}) == len(NAMES)


def test_the_catalog_paths():
    assert layout.catalog_index_json("c") == "olm/c/index.json"
    assert layout.channel_json("c", "p q", "..") == "olm/c/p%20q/%2E%2E.json"
    assert layout.catalog_page("c") == "olm/c/index.html"
    assert layout.package_page("c", "p") == "olm/c/p/index.html"
    assert layout.catalog_channel_page("c", "p", "stable") == "olm/c/p/stable.html"


def test_the_script_builds_the_same_paths_as_python(paths):
    arguments = json.dumps(NAMES)
    assert paths(f"{arguments}.map(SiteGenPaths.pathComponent)") == [layout.path_component(n) for n in NAMES]
    triples = [(a, b, c) for a, b, c in zip(NAMES, NAMES[1:] + NAMES[:1], NAMES[2:] + NAMES[:2])]
    javascript = paths(f"""{json.dumps(triples)}.map(([a, b, c]) => [SiteGenPaths.catalogIndexJson(a),
        SiteGenPaths.channelJson(a, b, c), SiteGenPaths.catalogPage(a), SiteGenPaths.packagePage(a, b),
        SiteGenPaths.channelPage(a, b, c)])""")
    assert javascript == [[layout.catalog_index_json(a), layout.channel_json(a, b, c), layout.catalog_page(a),
                           layout.package_page(a, b), layout.catalog_channel_page(a, b, c)] for a, b, c in triples]
    assert paths("[SiteGenPaths.olmDir, SiteGenPaths.catalogList, SiteGenPaths.catalogsIndex, "
                 "SiteGenPaths.operatorChecker]") == [layout.OLM_DIR, layout.CATALOG_LIST, layout.CATALOGS_INDEX,
                                                      layout.OPERATOR_CHECKER]


def test_no_page_script_writes_a_catalog_path_itself():
    """The catalog paths come from SiteGenPaths: no asset spells the olm/ folder."""
    from site_gen.resources import ASSET_DIR
    for script in sorted(ASSET_DIR.glob("*.js")):
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", script.read_text("utf-8"), flags=re.S)
        assert f'"{layout.OLM_DIR}/' not in code and f"`{layout.OLM_DIR}/" not in code, script.name
