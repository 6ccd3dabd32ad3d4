"""What a release × arch holds, as a page (``releases/<version>/<arch>.html``), and the compare
page's index of the releases with contents.

The page models read the contents records the build published (docs/release-contents.md) and the
change files of the pairs it published; every rule that decides something (component labels,
commit links, which admin gates apply, the ``oc patch`` that acks) is the one in
assets/release-diff.js, called through :mod:`..js_rules`, so the page, the compare page and
``site-gen release`` say the same thing. How the CVO's task graphs read as steps, how the objects
are counted by run level and component and named, which an update deletes, and the rows of the images
and cluster operators tables are assets/release-contents-rules.js, which the shared layout's page draws
with too. Only layout is decided here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from .. import layout
from ..js_rules.contents_page_rules import ContentsRules, ObjectFacts, Tables
from ..js_rules.release_diff import (
    ack_command,
    applying_gates,
    component_labels,
    component_lines,
    gate_link,
)
from ..model import versions

Record = Mapping[str, Any]  # a contents record as published (JSON read by the build: checked where read)
Changes = Mapping[str, Any]  # a change document as published
MAX_NAMED = 6                # components a step's summary names before "+N more"


@dataclass
class ComponentRow:
    label: str                                  # oc's label: display name, else the key title-cased
    key: str
    version: str
    streams: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, version, label) when several


@dataclass
class ImageRow:
    tag: str
    digest: str          # of the pull spec (or the pull spec when it names no digest)
    repository: str | None
    repository_label: str | None   # "openshift/oc" for a GitHub repository
    commit: str | None
    commit_url: str | None
    versions: str        # the tag's own component versions, "kubectl 1.28.8"


@dataclass
class GateRow:
    key: str
    message: str
    link: str | None
    ack: str
    state: str           # "applies" (blocks updates to a later minor), "invalid", "other" (another minor's)
    reason: str | None = None   # why the CVO cannot read it


@dataclass
class ManifestItem:
    file: str
    index: int
    kind: str
    where: str           # namespace/name, or name
    notes: list[str]     # "delete", "create-only", "capability Console", "not on the default profile", ...


@dataclass
class TaskNode:
    summary: str         # "run level 50 · cluster-monitoring-operator"
    manifests: list[ManifestItem]
    job: bool            # a Job: everything before it finishes first, everything after waits for it


@dataclass
class TaskStep:
    number: int
    nodes: list[TaskNode]

    @property
    def manifests(self) -> int:
        return sum(len(node.manifests) for node in self.nodes)


@dataclass
class LevelRow:
    run_level: int | None
    component: str | None
    documents: int
    applied: int         # of them, applied on the default profile and feature set


@dataclass
class ChangeSummary:
    """A published change file into this release, as the page tells it."""
    source: str                  # the release updated from
    relation: str                # "previous z-stream" or "previous minor"
    json_path: str               # site path of the change file
    compare_query: str           # ?from=&to=&arch= of the compare page
    components: list[str]
    images: dict[str, int]       # changed / rebuilt / added / removed -> count
    commit_ranges: int
    operators_added: list[str]
    operators_removed: list[str]
    operators_changed: list[str]  # "kube-apiserver: kube-apiserver 1.28.7 → 1.29.6"
    deleted: list[str]
    removed: list[str]
    crd_versions: list[str]
    implicit_capabilities: list[str]
    gates: list[GateRow]
    manifests: dict[str, int]    # changed / added / removed -> count


@dataclass
class ContentsPage:
    version: str
    arch: str
    error: str | None = None
    digest: str | None = None
    graph_error: str | None = None
    warnings: list[str] = field(default_factory=list)
    components: list[ComponentRow] = field(default_factory=list)
    images: list[ImageRow] = field(default_factory=list)
    operators: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    manifests: int = 0
    documents: int = 0
    applied: int = 0
    levels: list[LevelRow] = field(default_factory=list)
    profiles: list[tuple[str, int]] = field(default_factory=list)
    capabilities: list[tuple[str, list[str]]] = field(default_factory=list)
    feature_sets: list[tuple[str, list[str]]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    create_only: list[str] = field(default_factory=list)
    gates: list[GateRow] = field(default_factory=list)
    update_steps: list[TaskStep] = field(default_factory=list)
    install_steps: list[TaskStep] = field(default_factory=list)
    changes: list[ChangeSummary] = field(default_factory=list)
    other_arches: list[str] = field(default_factory=list)
    has_release_page: bool = True  # served in a channel (a release of the graph in none has no page)
    # the shared layout: the long sections (operators, images, manifests, the orders) are drawn in the
    # browser from contents.json (assets/release-contents-drawn.js), and the changes into the release are
    # links to the compare page (no change files): the versions to compare with, newest first
    drawn: bool = False
    compare_from: list[tuple[str, str]] = field(default_factory=list)  # (version, "previous z-stream"|...)


def _components(record: Record) -> list[ComponentRow]:
    components: Mapping[str, Any] = record.get("components") or {}
    streams: Mapping[str, list[Any]] = record.get("componentStreams") or {}
    keys = list(components)
    pairs: list[tuple[str, str | None]] = [(key, components[key].get("displayName")) for key in keys]
    stream_pairs: list[tuple[str, str | None]] = [(key, stream.get("displayName"))
                                                  for key in keys for stream in streams.get(key, [])]
    labels = component_labels(pairs + stream_pairs)
    rows = [ComponentRow(label, key, components[key].get("version", "")) for key, label in zip(keys, labels)]
    stream_labels = iter(labels[len(keys):])
    for row in rows:
        found = [(stream.get("tag", ""), stream.get("version", ""), next(stream_labels))
                 for stream in streams.get(row.key, [])]
        # the tags behind a value: shown when a key has several streams (RHCOS from 4.21) or versions
        if len(found) > 1 and len({(version, label) for _, version, label in found}) > 1:
            row.streams = found
    return rows


def _images(tables: Tables) -> list[ImageRow]:
    return [ImageRow(row["tag"], row["digest"], row["repository"], row["repositoryLabel"],
                     row["commit"], row["commitUrl"], row["versions"]) for row in tables["images"]]


def _gates(version: str, gates: Mapping[str, str]) -> list[GateRow]:
    applying, invalid = applying_gates(version, dict(gates))
    rows = []
    for key in sorted(gates):
        if key in applying:
            state = "applies"
        elif key in invalid:
            state = "invalid"
        else:
            state = "other"
        rows.append(GateRow(key, gates[key], gate_link(gates[key]), ack_command(key), state, invalid.get(key)))
    order = {"applies": 0, "invalid": 1, "other": 2}
    return sorted(rows, key=lambda row: order[row.state])


def _manifest_item(resource: Record, name: str, default_profile: bool) -> ManifestItem:
    identifier = str(resource.get("id", ""))
    file, _, index = identifier.rpartition("#")
    notes = []
    if resource.get("delete"):
        notes.append("deleted by the update")
    if resource.get("createOnly"):
        notes.append("create-only")
    for capability in resource.get("capabilities") or []:
        notes.append(f"capability {capability}")
    if resource.get("featureSets"):
        notes.append("feature sets " + ", ".join(resource["featureSets"]))
    if not default_profile:
        notes.append("not on the default profile")
    return ManifestItem(file or identifier, int(index) if index.isdigit() else 0, resource.get("kind", ""),
                        name.partition(" ")[2], notes)


DEFAULT_PROFILE = "self-managed-high-availability"


ById = Mapping[str, tuple[Record, str]]  # a manifest id -> its object and the object's name


def _steps(graph: Record | None, steps: list[list[int]], by_id: ById) -> list[TaskStep]:
    """``steps`` (the rules' steps of ``graph``: node indexes per step) as the page lists them."""
    nodes: list[list[str]] = (graph or {}).get("nodes") or []
    return [TaskStep(number, [_task_node(nodes[node], by_id) for node in step])
            for number, step in enumerate(steps, start=1)]


def _task_node(ids: list[str], by_id: ById) -> TaskNode:
    named = [by_id.get(identifier, ({"id": identifier}, " ")) for identifier in ids]
    resources = [resource for resource, _ in named]
    items = [_manifest_item(r, name, DEFAULT_PROFILE in (r.get("profiles") or [])) for r, name in named]
    job = len(resources) == 1 and resources[0].get("kind") == "Job" and resources[0].get("group") == "batch"
    levels: list[int] = [r["runLevel"] for r in resources if r.get("runLevel") is not None]
    components = list(dict.fromkeys(str(r["component"]) for r in resources if r.get("component")))
    if levels:
        low, high = min(levels), max(levels)
        where = f"run level {low:02d}" if low == high else f"run levels {low:02d}–{high:02d}"
    else:
        where = "no run level"
    listed = ", ".join(components[:MAX_NAMED]) + (f" +{len(components) - MAX_NAMED} more"
                                                   if len(components) > MAX_NAMED else "")
    summary = f"Job {named[0][1].partition(' ')[2]} · {where}" if job else \
        f"{where} · {listed or 'no component'}"
    return TaskNode(summary, items, job)


def _manifest_counts(page: ContentsPage, resources: list[Record], facts: ObjectFacts) -> None:
    rows, names = facts["rows"], facts["names"]
    page.documents = rows["documents"]
    page.applied = rows["applied"]
    page.levels = [LevelRow(row["runLevel"], row["component"], row["documents"], row["applied"])
                   for row in rows["levels"]]
    profiles: Counter[str] = Counter(p for r in resources for p in r.get("profiles") or [])
    page.profiles = sorted(profiles.items(), key=lambda pair: (pair[0] != DEFAULT_PROFILE, pair[0]))
    capabilities: dict[str, list[str]] = defaultdict(list)
    feature_sets: dict[str, list[str]] = defaultdict(list)
    for resource, name in zip(resources, names):
        for capability in resource.get("capabilities") or []:
            capabilities[capability].append(name)
        if resource.get("featureSets"):
            feature_sets[", ".join(resource["featureSets"])].append(name)
    page.capabilities = sorted(capabilities.items())
    page.feature_sets = sorted(feature_sets.items())
    page.deletes = facts["deleted"]
    page.create_only = [name for r, name in zip(resources, names) if r.get("createOnly")]


def _changed_objects(changes: Changes) -> list[list[Record]]:
    """The objects a change file names with their files (deleted, removed): the rules name them."""
    resources = changes.get("resources") or {}
    return [resources.get("deleted") or [], resources.get("removed") or []]


def _change_summary(changes: Changes, arch: str, deleted: list[str], removed: list[str]) -> ChangeSummary:
    source, target = changes["from"], changes["to"]
    same_minor = versions.minor_of(source) == versions.minor_of(target)
    lines = component_lines(changes.get("components") or [], arrow=True)
    images = changes["images"]
    operators = changes.get("clusterOperators") or {}
    resources = changes.get("resources") or {}
    gates = changes.get("adminGates") or {}
    invalid = changes.get("invalidAdminGates") or {}
    gate_rows = [GateRow(key, message, gate_link(message), ack_command(key), "applies")
                 for key, message in gates.items()]
    gate_rows += [GateRow(key, "", None, ack_command(key), "invalid", reason) for key, reason in invalid.items()]
    return ChangeSummary(
        source, "previous z-stream" if same_minor else "previous minor",
        layout.changes_path(source, arch, target), f"?from={source}&to={target}&arch={arch}", lines,
        {name: len(images[name]) for name in ("changed", "rebuilt", "added", "removed")},
        len(changes.get("commitGroups") or []),
        list(operators.get("added") or []), list(operators.get("removed") or []),
        [f"{name}: " + ", ".join(f"{v['name']} {v['from'] or '–'} → {v['to'] or '–'}" for v in operands)
         for name, operands in (operators.get("changed") or {}).items()],
        deleted, removed,
        [f"{crd['name']}: {', '.join(crd['versions'])}" for crd in resources.get("crdVersionsNoLongerServed") or []],
        list(resources.get("implicitCapabilities") or []), gate_rows,
        {name: len(changes["manifests"][name]) for name in ("changed", "added", "removed")})


def contents_page(record: Record, changes_into: list[Changes], other_arches: list[str],
                  has_release_page: bool = True, compare_from: list[str] | None = None,
                  rules: ContentsRules | None = None) -> ContentsPage:
    """The page model of one contents record (or error record); ``compare_from`` (the shared layout:
    no change files) the versions to link the compare page with, and the long sections drawn by JS;
    ``rules``: the rules' answers, shared by the pages of a build (graphs and objects repeat)."""
    page = ContentsPage(str(record.get("version")), str(record.get("arch")), other_arches=other_arches,
                        has_release_page=has_release_page, drawn=compare_from is not None)
    for source in compare_from or []:
        same_minor = versions.minor_of(source) == versions.minor_of(page.version)
        page.compare_from.append((source, "previous z-stream" if same_minor else "previous minor"))
    if "error" in record:
        page.error = str(record["error"])
        return page
    page.digest = record.get("digest")
    page.graph_error = record.get("graphError")
    page.warnings = list(record.get("warnings") or [])
    page.components = _components(record)
    if page.drawn:  # the rest is drawn in the browser from contents.json: only what the page says first
        page.manifests = int(record.get("manifests") or 0)
        page.gates = _gates(page.version, record.get("adminGates") or {})
        return page
    page.manifests = int(record.get("manifests") or 0)
    resources: list[Record] = record.get("resources") or []
    graphs = (record.get("updateGraph"), record.get("installGraph"))
    # newest source first: the previous z-stream before the previous minor
    changes_into = sorted(changes_into, key=lambda c: versions.sort_key(c["from"]), reverse=True)
    answers = (rules or ContentsRules()).page(
        graphs, resources, {"images": record.get("images") or {},
                            "clusterOperators": record.get("clusterOperators") or {}},
        [listed for changes in changes_into for listed in _changed_objects(changes)])
    assert answers.tables is not None  # asked for
    page.images = _images(answers.tables)
    page.operators = [(name, [(operand, version) for operand, version in operands])
                      for name, operands in answers.tables["operators"]]
    _manifest_counts(page, resources, answers.objects)
    page.gates = _gates(page.version, record.get("adminGates") or {})
    by_id = {str(r.get("id")): (r, name) for r, name in zip(resources, answers.objects["names"])}
    page.update_steps = _steps(graphs[0], answers.steps[0], by_id)
    page.install_steps = _steps(graphs[1], answers.steps[1], by_id)
    named = iter(answers.in_files)
    page.changes = [_change_summary(changes, page.arch, next(named), next(named)) for changes in changes_into]
    return page


@dataclass
class PageInputs:
    """Everything one contents page is made of: the record's summary (record_shelf.summary) and the
    published change documents into it, newest source first, read when the page is made."""
    record: Record
    changes_into: list[tuple[str, str, str]]   # (from, to, arch) of each change document into it
    other_arches: list[str]
    has_release_page: bool
    sources: list[tuple[str, str | None]]  # (version, image digest) of each change's source
    load_record: Callable[[tuple[str, str]], Record]
    load_change: Callable[[tuple[str, str, str]], Changes]
    drawn: bool = False  # the shared layout: changes_into are pairs to compare, no change document is read
    rules: ContentsRules = field(default_factory=ContentsRules)  # shared by a build's pages

    @property
    def path(self) -> str:
        return layout.release_arch_page(str(self.record.get("version")), str(self.record.get("arch")))

    def page(self) -> ContentsPage:
        record = self.load_record((str(self.record.get("version")), str(self.record.get("arch"))))
        if self.drawn:
            return contents_page(record, [], self.other_arches, self.has_release_page,
                                 [pair[0] for pair in self.changes_into])
        return contents_page(record, [self.load_change(pair) for pair in self.changes_into], self.other_arches,
                             self.has_release_page, rules=self.rules)


def contents_page_inputs(records: Mapping[tuple[str, str], Record], changes: Iterable[tuple[str, str, str]],
                         served: set[str], load_record: Callable[[tuple[str, str]], Record],
                         load_change: Callable[[tuple[str, str, str]], Changes],
                         drawn: bool = False) -> Iterator[PageInputs]:
    """The inputs of a page per release × arch with a contents record, in (arch, SemVer) order
    (a full-scale site has thousands: each page's record and changes are read when it is made);
    ``records``: (version, arch) -> the record or its summary (version, arch, digest, error);
    ``changes``: the (from, to, arch) of the change documents published; ``served``: the versions
    with a release page."""
    into: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
    for pair in changes:
        into[pair[1], pair[2]].append(pair)
    arches: dict[str, list[str]] = defaultdict(list)
    for version, arch in records:
        arches[version].append(arch)
    rules = ContentsRules()
    for version, arch in sorted(records, key=lambda key: (key[1], versions.sort_key(key[0]))):
        others = sorted(a for a in arches[version] if a != arch)
        changes_into = sorted(into.get((version, arch), []), key=lambda c: versions.sort_key(c[0]), reverse=True)
        sources = [(c[0], records.get((c[0], arch), {}).get("digest")) for c in changes_into]
        yield PageInputs(records[version, arch], changes_into, others, version in served, sources, load_record,
                         load_change, drawn, rules)


def contents_pages(records: Mapping[tuple[str, str], Record], changes: Mapping[tuple[str, str, str], Changes],
                   served: set[str]) -> Iterator[ContentsPage]:
    """The page model of each release × arch with a contents record in hand (see contents_page_inputs)."""
    for inputs in contents_page_inputs(records, changes, served, records.__getitem__, changes.__getitem__):
        yield inputs.page()


def contents_index_json(records: Mapping[tuple[str, str], Record]) -> bytes:
    """``data/release-contents.json``: per arch, the versions with readable contents (SemVer order)
    and those whose contents could not be read; where their files are. The one index of release
    contents: the compare page and the planner's hops (hop_changes, planner-hops.js) read it."""
    readable: dict[str, list[str]] = defaultdict(list)
    unreadable: dict[str, list[str]] = defaultdict(list)
    for version, arch in records:
        (unreadable if "error" in records[version, arch] else readable)[arch].append(version)
    arches = sorted(set(readable) | set(unreadable))
    document = {
        "contents": layout.contents_path("{version}", "{arch}"),
        "shared": layout.shared_path("{sha256}"),  # the files contents.json names under "shared"
        "page": layout.release_arch_page("{version}", "{arch}"),
        "changes": layout.changes_path("{from}", "{arch}", "{to}"),
        "arches": {arch: sorted(readable.get(arch, []), key=versions.sort_key) for arch in arches},
        "unreadable": {arch: sorted(unreadable.get(arch, []), key=versions.sort_key) for arch in arches},
    }
    return orjson.dumps(document) + b"\n"


def contents_by_version(records: Mapping[tuple[str, str], Record]) -> dict[str, list[tuple[str, bool]]]:
    """version -> [(arch, readable)] of the releases with a contents record: what the release pages
    and the releases index link."""
    found: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for version, arch in sorted(records):
        found[version].append((arch, "error" not in records[version, arch]))
    return dict(found)
