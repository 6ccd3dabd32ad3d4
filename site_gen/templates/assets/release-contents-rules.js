/* How a release's contents page reads a contents record: a task graph as ordered steps, and the manifests
   counted by run level and component. The one implementation of these rules: the build renders the
   self-contained layout's page with them (render/contents_pages.py, through site_gen/js_rules), and the
   shared layout's page draws its sections with them in the browser (release-contents-drawn.js). Only
   the grouping is here; each side builds its own HTML.

   Strings are ordered by code point (as Python orders them), so both sides list the same rows in the same
   order whatever the component names hold. */
"use strict";

const SiteGenContentsRules = (() => {
  /* Code-point order; the default sort compares UTF-16 code units, which differs past U+FFFF. */
  function byCodePoint(a, b) {
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const x = a.codePointAt(i);
      const y = b.codePointAt(j);
      if (x !== y) return x < y ? -1 : 1;
      i += x > 0xffff ? 2 : 1;
      j += y > 0xffff ? 2 : 1;
    }
    return (i < a.length) - (j < b.length);
  }

  /* The task graph ({nodes: [[manifest id, ...], ...], edges: [[from, to], ...]}, a DAG) as steps: a
     node's step is one more than its latest predecessor's (its longest path from a root), so the nodes of
     one step run in parallel and a step starts when the one before has finished. The CVO's empty nodes
     (the split node, spacers, the right anchor) are left out, and so are the steps only they fill.
     Answers the steps in order, each the indexes of its nodes in graph order. */
  function steps(graph) {
    const count = graph.nodes.length;
    const parents = Array.from({length: count}, () => []);
    const children = Array.from({length: count}, () => []);
    for (const [from, to] of graph.edges) {
      if (!(from >= 0 && from < count && to >= 0 && to < count)) {
        throw new RangeError(`the task graph has an edge ${from} → ${to} between no nodes of its ${count}`);
      }
      parents[to].push(from);
      children[from].push(to);
    }
    // Kahn's order: a node is placed once all its parents are
    const level = new Array(count).fill(-1);
    const waiting = parents.map((list) => list.length);
    const ready = [];
    waiting.forEach((n, node) => { if (!n) ready.push(node); });
    let placed = 0;
    while (ready.length) {
      const node = ready.pop();
      placed += 1;
      level[node] = parents[node].reduce((latest, p) => Math.max(latest, level[p] + 1), 0);
      for (const child of children[node]) if (!--waiting[child]) ready.push(child);
    }
    if (placed < count) throw new RangeError("the task graph has a cycle");
    const byLevel = new Map();
    graph.nodes.forEach((ids, node) => {
      if (!ids.length) return;
      if (!byLevel.has(level[node])) byLevel.set(level[node], []);
      byLevel.get(level[node]).push(node);
    });
    return [...byLevel.keys()].sort((a, b) => a - b).map((at) => byLevel.get(at));
  }

  /* steps() of each graph (null for none: no steps), in one call. */
  const stepsOf = (graphs) => graphs.map((graph) => (graph ? steps(graph) : []));

  /* The objects of a record (its `resources`, or any objects with their runLevel, component and
     included) counted: how many the default profile and feature set apply, and one row per (run level,
     component) with its objects and those applied, by run level (none last), then component (none
     first). A missing component and an empty one are rows of their own, as the record tells them. */
  function manifestRows(resources) {
    const rows = new Map();
    let applied = 0;
    for (const r of resources) {
      const level = r.runLevel ?? null;
      const component = r.component ?? null;
      const key = JSON.stringify([level, component]);
      if (!rows.has(key)) rows.set(key, {runLevel: level, component, documents: 0, applied: 0});
      const row = rows.get(key);
      row.documents += 1;
      if (r.included) {
        row.applied += 1;
        applied += 1;
      }
    }
    const levels = [...rows.values()].sort((a, b) => (a.runLevel === null) - (b.runLevel === null)
      || (a.runLevel ?? 0) - (b.runLevel ?? 0) || byCodePoint(a.component ?? "", b.component ?? ""));
    return {documents: resources.length, applied, levels};
  }

  /* What the build asks for a page, in one call: the steps of each graph and the rows of each list of
     objects (only those it has not met before: graphs repeat across arches and z-streams). */
  const grouping = (graphs, objectLists) => ({steps: stepsOf(graphs), rows: objectLists.map(manifestRows)});

  return {steps, stepsOf, manifestRows, grouping, byCodePoint};
})();
