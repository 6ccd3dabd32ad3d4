"""Small graph-data + release sets written to disk, built through the real CLI code path.

A test describes releases, channels and blocked edges in a few lines, builds,
and reads back exactly the files a client would download.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import orjson
import yaml

from site_gen.model.errors import Warnings
from site_gen.pipeline.site_build import BuildOptions, run_build

GRAPH_DIR = "api/upgrades_info/v1/graph"
REGISTRY = "quay.io/example/ocp-release"


def digest_of(version: str, arch: str) -> str:
    return "sha256:" + hashlib.sha256(f"test:{version}:{arch}".encode()).hexdigest()


class Scenario:
    def __init__(self, root: Path, schema: str = "1.1.0"):
        self.root = root
        self.data = root / "graph-data"
        self.releases = root / "releases"
        self.out = root / "site"
        for sub in ("channels", "blocked-edges", "raw"):
            (self.data / sub).mkdir(parents=True, exist_ok=True)
        self.releases.mkdir(parents=True, exist_ok=True)
        (self.data / "version").write_text(schema + "\n")
        self.raw({})
        self.warnings = Warnings()

    # -- inputs ---------------------------------------------------------------
    def release(self, version: str, arch: str = "amd64", previous=(), next=(), metadata=None,
                payload: str | None = None) -> Scenario:
        doc = {"kind": "cincinnati-metadata-v0", "version": version, "architecture": arch,
               "payload": payload or f"{REGISTRY}@{digest_of(version, arch)}",
               "previous": list(previous), "next": list(next), "metadata": metadata or {}}
        path = self.releases / arch / f"{version}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(doc))
        return self

    def channel(self, name: str, versions, file_name: str | None = None, **extra) -> Scenario:
        doc = {"name": name, "versions": list(versions), **extra}
        (self.data / "channels" / (file_name or f"{name}.yaml")).write_text(
            yaml.safe_dump(doc, sort_keys=False))
        return self

    def block(self, file_name: str, to: str, from_: str, **risk) -> Scenario:
        """A blocked-edges file: silent when no risk fields are given."""
        doc = {"to": to, "from": from_, **risk}
        (self.data / "blocked-edges" / file_name).write_text(yaml.safe_dump(doc, sort_keys=False))
        return self

    def risk(self, file_name: str, to: str, from_: str, name: str, rules=None, **extra) -> Scenario:
        return self.block(file_name, to, from_, url=f"https://issues.example.com/{name}",
                          name=name, message=f"{name} may hurt.",
                          matchingRules=rules if rules is not None else [{"type": "Always"}], **extra)

    def raw(self, metadata: dict) -> Scenario:
        (self.data / "raw" / "metadata.json").write_text(json.dumps(metadata))
        return self

    def write(self, relative: str, text: str | bytes) -> Path:
        path = self.data / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    # -- build and read back --------------------------------------------------
    def build(self, releases: Path | None = None):
        self.warnings = Warnings()
        options = BuildOptions(graph_data=self.data, releases=releases or self.releases,
                               out=self.out, html=False, quiet=True)
        return run_build(options, self.warnings)

    def raw_bytes(self, channel: str, arch: str = "amd64") -> bytes:
        return (self.out / GRAPH_DIR / channel / f"{arch}.json").read_bytes()

    def graph(self, channel: str, arch: str = "amd64") -> Served:
        return Served(orjson.loads(self.raw_bytes(channel, arch)))

    def index(self) -> dict:
        return orjson.loads((self.out / GRAPH_DIR / "index.json").read_bytes())


class Served:
    """A served graph with the questions tests ask of it."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.names = [node["version"] for node in doc["nodes"]]

    @property
    def versions(self) -> list[str]:
        return self.names

    def node(self, version: str) -> dict:
        return self.doc["nodes"][self.names.index(version)]

    def metadata(self, version: str) -> dict:
        return self.node(version)["metadata"]

    @property
    def edges(self) -> set[tuple[str, str]]:
        return {(self.names[a], self.names[b]) for a, b in self.doc["edges"]}

    @property
    def conditional(self) -> dict[tuple[str, str], list[str]]:
        """(from, to) -> ordered risk names."""
        found = {}
        for group in self.doc["conditionalEdges"]:
            for edge in group["edges"]:
                found[edge["from"], edge["to"]] = [risk["name"] for risk in group["risks"]]
        return found

    def risks_of(self, source: str, target: str) -> list[dict]:
        for group in self.doc["conditionalEdges"]:
            if {"from": source, "to": target} in group["edges"]:
                return group["risks"]
        raise KeyError((source, target))
