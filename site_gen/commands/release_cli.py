"""``site-gen release diff|info``: what a release holds and what an update changes, from a built site's
``releases/<version>/<arch>/contents.json``."""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path
from typing import Any

import orjson

from ..js_rules import JsError, JsLimitError
from ..js_rules.release_diff import DIFF_ERROR, changes_json, release_changes, resolve, shared_files
from ..layout import RELEASES_DIR, contents_path, release_dir, shared_path
from ..model.errors import Warnings
from .release_text import diff_text, info_text

EPILOG = """\
Both read the contents files a build publishes (releases/<version>/<arch>/contents.json of the site,
with the shared files it names in releases/shared/, docs/release-contents.md). `diff` compares any
two releases the site has, any minor, a downgrade included, by the rules the site's compare page
runs (assets/release-diff.js; the published change files hold the same JSON): component versions,
images changed (a new commit), rebuilt (a new digest only) added and removed, with GitHub compare
links per commit range; manifest files changed, added and removed; what resource identity shows
(files renamed, objects deleted by the update or left behind, CRD versions no longer served,
capabilities the update enables); cluster operator versions; and the admin acknowledgements an
update to a later minor needs, with the `oc patch` that gives each. `info` shows one release.

--arch defaults to the only architecture the site has the release(s) for.

Exit status: 0 done, 1 a release has no readable contents (the reason is printed), 2 bad usage
(a version or architecture the site does not have).

Examples:
  site-gen release diff --site public 4.14.20 4.15.3
  site-gen release diff --site public --arch arm64 --format json 4.15.3 4.16.0
  site-gen release info --site public 4.16.0
"""

# A version or architecture names a folder: nothing that climbs out of releases/.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def add_parser(sub) -> None:
    parser = sub.add_parser("release", help="what a release holds, and what an update from one to another changes",
                            description="Show a release's contents, or what an update between two releases changes, "
                                        "from a built site's contents files.",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="release_command", metavar="ACTION", required=True)
    diff = actions.add_parser("diff", help="what an update from FROM to TO changes",
                              description="What an update from release FROM to release TO changes, as "
                                          "`oc adm release info FROM TO` shows it and more.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(diff, "text (default), or JSON exactly as the published change file "
                  "releases/FROM/ARCH/changes/TO.json holds it")
    diff.add_argument("source", metavar="FROM", help="the version updated from")
    diff.add_argument("target", metavar="TO", help="the version updated to")
    info = actions.add_parser("info", help="what release VERSION holds",
                              description="What release VERSION holds: components, images, cluster operators, "
                                          "manifests, admin gates.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(info, "text (default), or the contents file itself")
    info.add_argument("version", metavar="VERSION", help="the release")


def _common(parser, json_help: str) -> None:
    parser.add_argument("--site", type=Path, default=Path("_site"), metavar="DIR",
                        help="a site built with release contents (default: _site)")
    parser.add_argument("--arch", default=None, help="architecture (default: the only one the site has)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help=json_help)


class _Usage(Exception):
    """One line for standard error, exit status 2."""


class _Unreadable(Exception):
    """One line for standard error, exit status 1: a release without readable contents."""


def _arches(site: Path, version: str) -> list[str]:
    if not _NAME.fullmatch(version):
        raise _Usage(f"error: {version!r} is not a release version")
    folder = site / release_dir(version)
    if not folder.is_dir():
        if not (site / RELEASES_DIR).is_dir():
            raise _Usage(f"error: {site}: no releases/ folder: not a site built with release contents")
        raise _Usage(f"error: {site}: the site has no release {version} ({folder} does not exist)")
    return sorted(path.name for path in folder.iterdir() if path.is_dir())


def _arch(site: Path, versions: list[str], given: str | None) -> str:
    """--arch, or the only architecture the site has every one of ``versions`` for."""
    per_version = {version: _arches(site, version) for version in versions}
    common = sorted(set.intersection(*(set(found) for found in per_version.values())))
    which = " and ".join(versions)
    if given is not None:
        if given not in common:
            raise _Usage(f"error: the site has no {given} contents of {which}; architectures: "
                         + (", ".join(common) or "none in common"))
        return given
    if len(common) != 1:
        choices = ", ".join(common) if common else "none in common (" + "; ".join(
            f"{version}: {', '.join(found) or 'none'}" for version, found in per_version.items()) + ")"
        raise _Usage(f"error: pass --arch: the site has {which} for {choices}")
    return common[0]


def _bytes_of(path: Path, missing: str) -> bytes:
    """The file's bytes, or _Unreadable naming it (``missing``: what its absence means)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise _Unreadable(f"{path}: error: {missing}") from None
    except OSError as exc:
        raise _Unreadable(f"{path}: error: {exc.strerror}") from None


def _read(site: Path, version: str, arch: str) -> tuple[Path, bytes, dict[str, Any]]:
    """The contents file of ``version`` on ``arch``: its path, bytes and record."""
    path = site / contents_path(version, arch)
    data = _bytes_of(path, f"release {version} ({arch}) has no contents file")
    try:
        record = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _Unreadable(f"{path}: error: not valid JSON ({exc})") from None
    if not isinstance(record, dict) or record.get("version") != version or record.get("arch") != arch:
        raise _Unreadable(f"{path}: error: not the contents of release {version} ({arch})")
    if "error" in record:
        raise _Unreadable(f"{path}: error: release {version} ({arch}) has no readable contents: {record['error']}")
    return path, data, record


def _shared(site: Path, path: Path, data: bytes) -> dict[str, orjson.Fragment]:
    """The shared files the contents file at ``path`` names (releases/shared/HEX.json), checked against
    their names, by name."""
    try:
        names = shared_files(orjson.Fragment(data))
    except JsError as exc:
        raise _Unreadable(f"{path}: error: {exc}") from None
    parts = {}
    for name in names:
        part = site / shared_path(name)
        content = _bytes_of(part, f"missing (the shared file {path} names)")
        if hashlib.sha256(content).hexdigest() != name:
            raise _Unreadable(f"{part}: error: its bytes do not match their SHA-256 name (a damaged copy?)")
        parts[name] = orjson.Fragment(content)
    return parts


def _diff(args) -> None:
    arch = _arch(args.site, [args.source, args.target], args.arch)
    old_path, old_bytes, _ = _read(args.site, args.source, arch)
    new_path, new_bytes, _ = _read(args.site, args.target, arch)
    parts = {**_shared(args.site, old_path, old_bytes), **_shared(args.site, new_path, new_bytes)}
    try:
        changes = release_changes(orjson.Fragment(old_bytes), orjson.Fragment(new_bytes), parts)
        new = resolve(orjson.Fragment(new_bytes), parts)
    except JsError as exc:
        where = "" if exc.name == DIFF_ERROR else f" ({exc.name} in {exc.function})"
        raise _Unreadable(f"{old_path}, {new_path}: error: {exc}{where}") from None
    except JsLimitError as exc:
        raise _Unreadable(f"{old_path}, {new_path}: error: {exc}") from None
    if args.format == "json":
        sys.stdout.buffer.write(changes_json(changes))
    else:
        sys.stdout.write(diff_text(changes, new))


def _info(args) -> None:
    arch = _arch(args.site, [args.version], args.arch)
    path, data, _ = _read(args.site, args.version, arch)
    try:
        record = resolve(orjson.Fragment(data), _shared(args.site, path, data))
    except JsError as exc:
        raise _Unreadable(f"{path}: error: {exc}") from None
    if args.format == "json":  # the whole record, as the build read it: the file itself when it names no shared file
        sys.stdout.buffer.write(orjson.dumps(record) + b"\n" if b'"shared"' in data and "shared" in orjson.loads(data)
                                else data)
        return
    try:
        sys.stdout.write(info_text(record))
    except (JsError, KeyError, TypeError, AttributeError) as exc:  # a file this build did not write
        raise _Unreadable(f"{path}: error: not a contents record this site-gen reads ({exc})") from None


def run(args, warnings: Warnings) -> int:
    try:
        _diff(args) if args.release_command == "diff" else _info(args)
    except _Usage as exc:
        print(exc, file=sys.stderr)
        return 2
    except _Unreadable as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0
