/* How a release's contents page reads a contents record: a task graph as ordered steps, the manifests
   counted by run level and component, the rows of the images and cluster operators tables, an object's
   name and the objects an update deletes. The one implementation of these rules: the build renders the
   self-contained layout's page with them (render/contents_pages.py, through site_gen/js_rules), and the
   shared layout's page draws its sections with them in the browser (release-contents-drawn.js). Only
   the rules are here; each side builds its own HTML. An image's commit link is release-diff.js's
   commitUrl (SiteGenReleaseDiff, loaded before this script on the page and in the build's context).

   Strings are ordered by code point (as Python orders them), so both sides list the same rows in the same
   order whatever the names hold. */
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

  const sortedKeys = (object) => Object.keys(object || {}).sort(byCodePoint);

  /* An object as the page names it: "Kind namespace/name", or "Kind name" for a cluster-scoped one. */
  const objectName = (r) => `${r.kind || ""} ${r.namespace ? `${r.namespace}/` : ""}${r.name || ""}`;

  /* The objects an update to the release deletes (their manifest says release.openshift.io/delete),
     each as "Kind namespace/name (file)", in the record's order. */
  const deletedObjects = (resources) => resources.filter((r) => r.delete).map((r) => objectInFile(r));

  /* A GitHub repository URL as the page labels it ("openshift/oc", without a trailing .git); other
     URLs as they are; null for none. */
  const GITHUB = "https://github.com/";  // a prefix to drop from a label, never fetched
  function repositoryLabel(repository) {
    if (!repository) return null;
    const label = repository.startsWith(GITHUB) ? repository.slice(GITHUB.length) : repository;
    return label.endsWith(".git") ? label.slice(0, -".git".length) : label;
  }

  /* The images table of a record ({tag: {image, sourceRepository, commit, versions}}), by tag: each
     row's digest (of the pull spec; the pull spec when it names none), repository and its label, commit
     and its link (oc's, for GitHub repositories), and the tag's own component versions ("kubectl 1.28.8"). */
  const imageRows = (images) => sortedKeys(images).map((tag) => {
    const image = images[tag];
    const pullSpec = image.image || "";
    const repository = image.sourceRepository || null;
    const commit = image.commit || null;
    return {
      tag, digest: pullSpec.slice(pullSpec.lastIndexOf("@") + 1), repository,
      repositoryLabel: repositoryLabel(repository), commit,
      commitUrl: SiteGenReleaseDiff.commitUrl(repository, commit),
      versions: Object.entries(image.versions || {}).map(([key, value]) => `${key} ${value}`).join(", "),
    };
  });

  /* The cluster operators table of a record ({name: {versions: {operand: version}}}), by name: each
     operator's name and the [operand, version] pairs it reports, in the record's order. */
  const operatorRows = (operators) => sortedKeys(operators).map(
    (name) => [name, Object.entries(operators[name].versions || {})]);

  /* "Kind namespace/name (file)": an object named with the manifest file it comes from. */
  const objectInFile = (r) => `${objectName(r)} (${r.file})`;

  /* The facts of a list of objects the page shows: its rows by run level and component, each object's
     name (in the list's order) and the objects an update deletes. */
  const objectFacts = (resources) => ({rows: manifestRows(resources), names: resources.map(objectName),
    deleted: deletedObjects(resources)});

  /* What the build asks for a page, in one call: the steps of each graph, the facts of each list of
     objects (only those it has not met before: graphs and objects repeat across arches and z-streams),
     the images and cluster operators tables of each record given ({images, clusterOperators}), and each
     list of objects named with their files (a change file's deleted and removed objects). */
  const forPage = (graphs, objectLists, tables = [], inFileLists = []) => ({
    steps: stepsOf(graphs), objects: objectLists.map(objectFacts),
    tables: tables.map((t) => ({images: imageRows(t.images), operators: operatorRows(t.clusterOperators)})),
    inFiles: inFileLists.map((list) => list.map(objectInFile)),
  });

  return {steps, stepsOf, manifestRows, forPage, byCodePoint, objectName, objectInFile, deletedObjects,
    repositoryLabel, imageRows, operatorRows, objectFacts};
})();
