"""Imports go down the layers: commands -> publish, render, server -> engine -> inputs -> model.

Read from the source with ast (no import runs), at the level of site_gen's packages and
top-level modules, so that a new import that climbs a layer or closes a cycle fails here;
and at the level of single modules, where no cycle may close either (imports made only for
the type checker count: they tie two modules as much as any).
"""

from __future__ import annotations

import ast

from conftest import REPO

PACKAGE = REPO / "site_gen"
# What each part may not import, besides the rule that the parts form no cycle.
NEVER = {
    "model": "everything else: the model imports nothing of site_gen",
    "inputs": {"engine", "promotion", "planner", "checks", "diffing", "publish", "render", "server", "commands", "cli",
               "pipeline"},
    "engine": {"promotion", "planner", "checks", "diffing", "publish", "render", "server", "commands", "cli",
               "pipeline"},
    "layout": {"inputs", "engine", "promotion", "planner", "checks", "diffing", "publish", "render", "server",
               "commands", "pipeline"},
    "server": {"publish", "render", "diffing", "planner", "commands", "cli", "pipeline"},
    # The rules the pages run, called from Python: a library for whoever needs a rule, needing none of them.
    "js_rules": {"inputs", "engine", "promotion", "planner", "checks", "diffing", "publish", "render", "server",
                 "commands", "cli", "pipeline", "registry", "olm"},
    # A release source: it reads a registry into the engine's graph and writes release documents.
    "registry": {"promotion", "planner", "checks", "diffing", "render", "server", "commands", "cli", "pipeline"},
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


def test_the_parts_are_read():
    found = imports()
    assert {"model", "inputs", "engine", "layout", "publish", "render", "server", "commands"} <= found.keys()
    assert {"model", "inputs"} <= found["engine"] and "layout" in found["server"]


def test_no_part_imports_what_lies_above_it():
    found = imports()
    assert found["model"] == set(), NEVER["model"]
    for part, forbidden in NEVER.items():
        if isinstance(forbidden, set):
            assert found.get(part, set()) & forbidden == set(), part


def test_the_parts_form_no_cycle():
    _assert_no_cycle(imports())


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
