"""Inputs a user might feed any parser: random bytes, random and deeply nested JSON and YAML, and
mutations of valid documents; and the command line run in this process on them. Shared by the tests
that hold every command free of tracebacks (tests/commands/test_no_tracebacks.py and others)."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout

import orjson
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from site_gen.cli import main
from site_gen.inputs.bounded_json import MAX_DEPTH

# SITE_GEN_EXAMPLES=800 hunts further (random seeds); the default is the quick loop's share.
_HUNT = os.environ.get("SITE_GEN_EXAMPLES")
FAST = settings(max_examples=int(_HUNT or 40), deadline=None, derandomize=not _HUNT,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BUILDS = settings(FAST, max_examples=int(_HUNT or 60) // 4)  # each example is a whole build


def run_cli(*argv) -> tuple[int, str, str]:
    """``site-gen ARGV`` in this process: exit status, stdout, stderr. Exceptions propagate."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main([str(arg) for arg in argv])
        except SystemExit as exc:  # argparse on a bad option value
            status = exc.code if isinstance(exc.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def assert_clean_failure(status: int, err: str, names: str, failure: int) -> None:
    """Success, or exit ``failure`` whose first stderr line is an error naming ``names``."""
    assert "Traceback" not in err, err
    if status == 0:
        return
    assert status == failure, (status, err)
    first = err.splitlines()[0] if err else ""
    assert names in first and "error" in first, err


# -- inputs -------------------------------------------------------------------

SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
           | st.text(max_size=12) | st.sampled_from(["4.16.1", "4.16.1+amd64", "2024-06-20T10:00:00Z",
                                                     "public", "yes", "", "sha256:" + "0" * 64]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


def deep_text(form: str, depth: int) -> str:
    if form == "json-array":
        return "[" * depth + "]" * depth
    if form == "json-object":
        return '{"a":' * depth + "1" + "}" * depth
    if form == "yaml-block":
        return "".join(" " * level + "- \n" for level in range(depth))
    return "a: " + "[" * depth + "]" * depth + "\n"  # yaml-flow


DEEP = st.builds(deep_text, st.sampled_from(["json-array", "json-object", "yaml-block", "yaml-flow"]),
                 st.sampled_from([MAX_DEPTH, MAX_DEPTH + 1, 1_100, 3_000, 6_000])).map(str.encode)


def _paths(data) -> list[tuple]:
    found: list[tuple] = [()]
    stack = [((), data)]
    while stack:
        path, value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, child in items:
            found.append(path + (key,))
            stack.append((path + (key,), child))
    return found


def _replaced(data, path: tuple, new):
    if not path:
        return new
    data = json.loads(json.dumps(data))  # a copy
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return data


@st.composite
def mutations(draw, valid: list[bytes], yaml_too: bool = True):
    """A valid document with a value replaced, or with bytes deleted, inserted or replaced."""
    original = draw(st.sampled_from(valid))
    if draw(st.booleans()):
        data = orjson.loads(original) if original.lstrip()[:1] in (b"{", b"[") else yaml.safe_load(original)
        paths = _paths(data)
        changed = _replaced(data, draw(st.sampled_from(paths)), draw(VALUES))
        if yaml_too and draw(st.booleans()):
            return yaml.safe_dump(changed).encode()
        return json.dumps(changed).encode()
    text = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        text[at:at + draw(st.integers(0, 8))] = draw(st.binary(max_size=6))
    return bytes(text)


def any_input(valid: list[bytes], yaml_too: bool = True):
    return st.one_of(st.binary(max_size=200), VALUES.map(lambda v: json.dumps(v).encode()),
                     VALUES.map(lambda v: yaml.safe_dump(v).encode()), DEEP, mutations(valid, yaml_too))
