"""Imports go down the layers of LAYERS (below): every part of site_gen has one.

Read from the source with ast (no import runs), at the level of site_gen's packages and
top-level modules, so that a new import that climbs a layer or closes a cycle fails here;
and at the level of single modules, where no cycle may close either (imports made only for
the type checker count: they tie two modules as much as any).
"""

from __future__ import annotations

import ast

import pytest

from conftest import REPO

PACKAGE = REPO / "site_gen"
# Every part of site_gen (package or top-level module) has a layer, and imports only parts of a
# lower layer: a new package without a line here fails, and so does an import that climbs.
# Layer 0 is the foundation (the model and small utilities); its modules may use each other
# (the cycle tests below keep that acyclic).
LAYERS: dict[str, tuple[int, str]] = {
    "model": (0, "versions, errors, Graph, records: imports nothing else of site_gen"),
    **{name: (0, "a utility") for name in (
        "atomic_files", "cache_dir", "code_identity", "collector", "event_loop", "file_tree", "interruption",
        "json_cache", "keyed_files", "progress", "quick_exit", "resources", "terminal_text", "two_processes")},
    "inputs": (1, "graph-data, release documents and raw graphs read into the model"),
    "layout": (1, "where everything lives in a built site"),
    "js_rules": (1, "the pages' own JavaScript rules, run from Python: needs no other part"),
    "engine": (2, "Cincinnati's graph-builder and policy engine"),
    "contents": (2, "a release payload tree to its contents record"),
    "promotion": (2, "feeders, tombstones, due dates"),
    "server": (2, "site-gen serve and the query rules nginx shares"),
    "checks": (3, "site-gen check"),
    "publish": (3, "writing the site: staging, swap, graph JSON, contents files"),
    "registry": (4, "release and index images from a registry, written as release documents"),
    "diffing": (4, "site-gen diff"),
    "olm": (5, "operator catalogs, from folders or index images"),
    "render": (6, "pages, SVG graphs and feeds"),
    "planner": (7, "the update planner's answers, for the terminal"),
    "pipeline": (8, "the build as named steps"),
    "commands": (9, "one module per command"),
    "cli": (10, "the command line: finds the command module"),
    "__main__": (11, "python -m site_gen"),
}


def part_of(module: str) -> str:
    """``site_gen.engine.stages`` -> ``engine``; ``site_gen.layout`` -> ``layout``; a name
    defined in site_gen/__init__.py (``__version__``) -> ``__init__``."""
    if "." not in module:
        return module
    part = module.split(".")[1]
    return part if (PACKAGE / part).is_dir() or (PACKAGE / f"{part}.py").is_file() else "__init__"


def module_of(name: str) -> str:
    """``site_gen.render.site.render_site`` -> ``site_gen.render.site``: the longest prefix
    that is a module file or a package."""
    parts = name.split(".")
    while len(parts) > 1 and not (REPO.joinpath(*parts).with_suffix(".py").is_file() or REPO.joinpath(*parts).is_dir()):
        parts.pop()
    return ".".join(parts)


def imports(key=part_of) -> dict[str, set[str]]:
    """part (or, with ``key=module_of``, module) -> the parts its files import (relative imports resolved)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        module = parts[:-1] if parts[-1] == "__init__" else parts
        package = module if parts[-1] == "__init__" else module[:-1]
        part = key(".".join(module))
        targets = found.setdefault(part, set())
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: up from this file's package
                    anchor = list(package[:len(package) - node.level + 1])
                    base = ".".join(anchor + ([base] if base else []))
                names = [base] if node.module else [f"{base}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.startswith("site_gen.") and key(name) not in (part, "__init__", "site_gen"):
                    targets.add(key(name))
    return found


@pytest.mark.heavy
def test_the_parts_are_read():
    found = imports()
    assert {"model", "inputs", "engine", "layout", "publish", "render", "server", "commands"} <= found.keys()
    assert {"model", "inputs"} <= found["engine"] and "layout" in found["server"]


@pytest.mark.heavy
def test_every_part_has_a_layer():
    found = imports()
    assert sorted(set(found) - set(LAYERS) - {"site_gen"}) == []
    assert sorted(set(LAYERS) - set(found)) == []  # no rule for a part that is gone


def climbing(found: dict[str, set[str]]) -> list[str]:
    """Each import of a part into a part of its own layer or above (layer 0 excepted)."""
    return [f"{part} (layer {LAYERS[part][0]}) imports {target} (layer {LAYERS[target][0]})"
            for part, targets in sorted(found.items()) if part in LAYERS
            for target in sorted(targets)
            if LAYERS[target][0] > LAYERS[part][0] or LAYERS[target][0] == LAYERS[part][0] > 0]


@pytest.mark.heavy
def test_no_part_imports_what_lies_above_it():
    found = imports()
    assert found["model"] == set(), LAYERS["model"][1]
    assert climbing(found) == []


def test_the_layer_rule_is_live():
    """A climbing import, or one between two parts of a layer, is caught; a utility's is not."""
    assert climbing({"inputs": {"render", "model"}, "engine": {"promotion"}, "json_cache": {"cache_dir"}}) == [
        "engine (layer 2) imports promotion (layer 2)", "inputs (layer 1) imports render (layer 6)"]


@pytest.mark.heavy
def test_the_parts_form_no_cycle():
    _assert_no_cycle(imports())


@pytest.mark.heavy
def test_the_modules_form_no_cycle():
    found = imports(module_of)
    assert {"site_gen.render.served_views", "site_gen.olm.loading"} <= found.keys()
    _assert_no_cycle(found)


def _assert_no_cycle(found: dict[str, set[str]]) -> None:
    done: set[str] = set()

    def visit(part: str, path: list[str]) -> None:
        assert part not in path, " -> ".join(path[path.index(part):] + [part])
        if part in done:
            return
        for target in sorted(found.get(part, ())):
            visit(target, path + [part])
        done.add(part)

    for part in sorted(found):
        visit(part, [])


def test_every_module_and_package_name_is_used_once():
    # One module per name (issue 19): a newcomer who reads "loading.py" or "model" knows which one.
    names: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*"):
        if "__pycache__" in path.parts or "templates" in path.relative_to(PACKAGE).parts:
            continue
        if path.is_dir() or (path.suffix == ".py" and not path.name.startswith("__")):
            names.setdefault(path.stem, []).append(str(path.relative_to(REPO)))
    assert {name: places for name, places in names.items() if len(places) > 1} == {}


@pytest.mark.heavy
def test_the_command_line_is_read_only_in_commands():
    """Issue 27 point 3: argparse (and argparse's Namespace) once reached the registry, promotion and
    catalog modules; the library parts take typed options, and only commands/ and cli.py read a
    command line."""
    reading = sorted(str(path.relative_to(REPO)) for path in PACKAGE.rglob("*.py")
                     if path.parent.name != "commands" and path.name != "cli.py"
                     and any(isinstance(node, (ast.Import, ast.ImportFrom))
                             and "argparse" in ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                                                else [node.module or ""])
                             for node in ast.walk(ast.parse(path.read_text("utf-8")))))
    assert reading == []


# Folders of tests/ that are not a package of site_gen: whole sites, the repository itself, the shared
# helpers, and the data and catalogs the tests read.
TEST_FOLDERS_OF_THEIR_OWN = {"site", "project", "support", "data", "olm_fixtures"}


def test_every_test_sits_where_its_code_sits():
    """A module's tests are found from its name: tests/<package>/test_*.py for site_gen/<package>/, tests/
    for site_gen's top-level modules; no test file elsewhere, and no two of one name."""
    tests = REPO / "tests"
    packages = {path.name for path in (REPO / "site_gen").iterdir() if (path / "__init__.py").is_file()}
    files = sorted(tests.rglob("test_*.py"))
    assert len(files) > 100
    misplaced = [str(path.relative_to(tests)) for path in files
                 if len(path.relative_to(tests).parts) > 2
                 or (len(path.relative_to(tests).parts) == 2
                     and path.parent.name not in packages | (TEST_FOLDERS_OF_THEIR_OWN - {"support", "data"}))]
    assert misplaced == []
    top = [path.stem.removeprefix("test_") for path in files if path.parent == tests]
    assert [name for name in top if not (REPO / "site_gen" / f"{name}.py").is_file()] == []
    names = [path.name for path in files]
    assert sorted({name for name in names if names.count(name) > 1}) == []
