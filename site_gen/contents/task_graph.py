"""The cluster-version operator's task graphs: the order an update (and an install) applies
a payload's manifests.

cluster-version-operator ``pkg/payload/task_graph.go``, as ``pkg/cvo/sync_worker.go``
(``apply``) and ``hack/cluster-version-util task-graph`` use it: one node holding every
manifest in payload order, ``Split(SplitOnJobs)``, then ``Parallelize`` with
``ByNumberAndComponent`` (update) or ``FlattenByNumberAndComponent`` (install). The port
keeps the node numbering, the empty nodes (the split-up node itself, the ``Parallelize``
spacers between two multi-node buckets, the right anchor) and the edge order of
``TaskGraph.Tree()``, so that a graph here equals the DOT the CVO prints, node for node.

- A file name ``0000_<NN>_<component>_...`` gives the run level NN and the component,
  which ends at the first underscore (``^0000_(\\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_``).
- ``SplitOnJobs``: each ``batch/v1`` Job becomes its own node, between what precedes
  and what follows it.
- ``ByNumberAndComponent``: a run of manifests sharing a run level with two or more
  components becomes a bucket of parallel nodes, one per contiguous component chunk; a run
  level with one component, or a name without a run level, joins the previous serial node.
- ``FlattenByNumberAndComponent``: the same chunks, all in one bucket (parallel).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

RUN_LEVEL = re.compile(r"0000_(\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_")
JOB = ("batch", "v1", "Job")


@functools.lru_cache(maxsize=16_384)  # file names repeat from release to release
def run_level_and_component(file_name: str) -> tuple[str, str] | None:
    match = RUN_LEVEL.match(file_name)
    return (match.group(1), match.group(2)) if match else None


@dataclass
class _Node:
    tasks: list[int]
    into: list[int] = field(default_factory=list)   # In
    out: list[int] = field(default_factory=list)    # Out


Buckets = list[list[_Node]]


def _by_number_and_component(names: Sequence[str], tasks: list[int]) -> Buckets:
    if len(tasks) <= 1:
        return []
    matches = [run_level_and_component(names[task]) for task in tasks]
    buckets: Buckets = []
    last: _Node | None = None
    count, i = len(tasks), 0
    while i < count:
        base = matches[i]
        j = i + 1
        groups: list[_Node] = []
        while j < count:
            following = matches[j]
            if base is None or following is None or base[0] != following[0]:
                break
            if base[1] != following[1]:
                groups.append(_Node(tasks[i:j]))
                i = j
            base = following
            j += 1
        if groups:
            groups.append(_Node(tasks[i:j]))
            i = j
            buckets.append(groups)
            last = None
            continue
        if last is None:
            last = _Node(list(tasks[i:j]))
            i = j
            buckets.append([last])
            continue
        last.tasks.extend(tasks[i:j])
        i = j
    return buckets


def _flatten_by_number_and_component(names: Sequence[str], tasks: list[int]) -> Buckets:
    if len(tasks) <= 1:
        return []
    matches = [run_level_and_component(names[task]) for task in tasks]
    groups: list[_Node] = []
    last: _Node | None = None
    count, i = len(tasks), 0
    while i < count:
        base = matches[i]
        j = i + 1
        while j < count:
            following = matches[j]
            if base is None or following is None or base[0] != following[0]:
                break
            if base[1] != following[1]:
                groups.append(_Node(tasks[i:j]))
                i = j
            base = following
            j += 1
        if groups:
            groups.append(_Node(tasks[i:j]))
            i = j
            last = None
            continue
        if last is None:
            last = _Node(list(tasks[i:j]))
            i = j
            groups.append(last)
            continue
        last.tasks.extend(tasks[i:j])
        i = j
    return [groups]


class _Graph:
    def __init__(self, count: int):
        self.nodes = [_Node(list(range(count)))]

    def _replace_in_of(self, index: int, with_: int) -> None:
        for position in self.nodes[index].into:
            self.nodes[position].out = [with_ if to == index else to for to in self.nodes[position].out]

    def _replace_out_of(self, index: int, with_: int) -> None:
        for position in self.nodes[index].out:
            self.nodes[position].into = [with_ if came == index else came for came in self.nodes[position].into]

    def split(self, on: Callable[[int], bool]) -> None:
        i = 0
        while i < len(self.nodes):
            node = self.nodes[i]
            tasks = node.tasks
            if len(tasks) > 1:
                for j, task in enumerate(tasks):
                    if not on(task):
                        continue
                    if j > 0:
                        following = len(self.nodes)
                        self.nodes.append(_Node(tasks[:j], node.into, [i]))
                        self._replace_in_of(i, following)
                        node.into = [following]
                    if j < len(tasks) - 1:
                        following = len(self.nodes)
                        self.nodes.append(_Node(tasks[j + 1:], [i], node.out))
                        self._replace_out_of(i, following)
                        node.out = [following]
                    node.tasks = tasks[j:j + 1]
                    break
            i += 1

    def _bulk_add(self, nodes: list[_Node], into: list[int]) -> list[int]:
        start = len(self.nodes)
        self.nodes.extend(nodes)
        added = list(range(start, len(self.nodes)))
        if not into:
            return added
        for k in added:
            self.nodes[k].into = list(into)
        for k in into:
            out = self.nodes[k].out
            out.extend(n for n in added if n not in out)
        return added

    def parallelize(self, breaker: Callable[[list[int]], Buckets]) -> None:
        i = 0
        while i < len(self.nodes):
            node = self.nodes[i]
            results = breaker(node.tasks)
            if not results or (len(results) == 1 and len(results[0]) == 1):
                i += 1
                continue
            node.tasks = []
            out, node.out = node.out, []
            into = [i]
            for bucket in results:
                if not bucket:
                    continue
                if len(into) == 1 or len(bucket) == 1:
                    into = self._bulk_add(bucket, into)
                else:  # M x N: a spacer between
                    into = self._bulk_add([_Node([])], into)
                    into = self._bulk_add(bucket, into)
            if out:
                anchor = len(self.nodes)
                right = _Node([], [], out)
                self.nodes.append(right)
                for j in out:
                    self.nodes[j].into = [anchor if came == i else came for came in self.nodes[j].into]
                for j in into:
                    self.nodes[j].out = [anchor]
                    right.into.append(j)
            i += 1


@dataclass(frozen=True)
class TaskGraph:
    nodes: list[list[int]]           # manifest positions (in the loaded order) per node; [] for empty nodes
    edges: list[tuple[int, int]]     # (from, to), in the order the CVO's Tree() prints them


def task_graph(file_names: Sequence[str], is_job: Sequence[bool], *, install: bool) -> TaskGraph:
    """The graph of the manifests whose file names (the CVO's OriginalFilename) and Job flags
    are given in payload order: the update graph, or with ``install`` the flattened one."""
    graph = _Graph(len(file_names))
    graph.split(lambda task: is_job[task])
    breaker = _flatten_by_number_and_component if install else _by_number_and_component
    graph.parallelize(lambda tasks: breaker(file_names, tasks))
    edges = [(i, j) for i, node in enumerate(graph.nodes) for j in node.out]
    return TaskGraph([node.tasks for node in graph.nodes], edges)


def to_dot(graph: TaskGraph, labels: Sequence[str]) -> str:
    """``TaskGraph.Tree()``'s Graphviz text, with ``labels[task]`` for each manifest (the CVO's
    task label), to compare with what ``cluster-version-util task-graph`` prints."""
    lines = ["digraph tasks {", "  labelloc=t;", "  rankdir=TB;"]
    for i, tasks in enumerate(graph.nodes):
        shown = [labels[task].replace('"', "") for task in tasks] or ["no manifests"]
        lines.append(f'  {i} [ label="{_join(shown)}" shape="box" ];')
    lines.extend(f"  {i} -> {j};" for i, j in graph.edges)
    lines.append("}")
    return "\n".join(lines)


def _join(shown: list[str]) -> str:
    return "\\n".join(shown)
