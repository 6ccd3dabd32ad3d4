"""Building small file-based catalogs for the olm tests."""

from __future__ import annotations

from pathlib import Path

import orjson
import yaml


def package(name: str, default: str | None = "stable") -> dict:
    blob = {"schema": "olm.package", "name": name}
    if default is not None:
        blob["defaultChannel"] = default
    return blob


def entry(name: str, replaces: str | None = None, skips: list[str] | None = None,
          skip_range: str | None = None) -> dict:
    item: dict = {"name": name}
    if replaces:
        item["replaces"] = replaces
    if skips:
        item["skips"] = skips
    if skip_range:
        item["skipRange"] = skip_range
    return item


def channel(pkg: str, name: str, entries: list[dict]) -> dict:
    return {"schema": "olm.channel", "package": pkg, "name": name, "entries": entries}


def bundle(pkg: str, name: str, version: str, *properties: dict, image: str | None = None) -> dict:
    return {"schema": "olm.bundle", "package": pkg, "name": name,
            "image": image if image is not None else f"quay.io/example/{pkg}-bundle:v{version}",
            "properties": [{"type": "olm.package", "value": {"packageName": pkg, "version": version}},
                           *properties]}


def chain(pkg: str, channel_name: str, versions: list[str], default: str | None = None) -> list[dict]:
    """A package with one channel where each version replaces the previous one."""
    blobs = [package(pkg, default or channel_name)]
    entries = [entry(f"{pkg}.v{version}", f"{pkg}.v{versions[i - 1]}" if i else None)
               for i, version in enumerate(versions)]
    blobs.append(channel(pkg, channel_name, entries))
    blobs += [bundle(pkg, f"{pkg}.v{version}", version) for version in versions]
    return blobs


def write_yaml(path: Path, blobs: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(blobs, sort_keys=False, explicit_start=True))
    return path


def write_json(path: Path, blobs: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(orjson.dumps(blob, option=orjson.OPT_INDENT_2) for blob in blobs) + b"\n")
    return path
