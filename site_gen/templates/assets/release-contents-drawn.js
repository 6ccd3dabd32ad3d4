/* A release's contents page in the shared layout (--release-contents-layout shared): the page carries what
   an admin reads first (digest, components, admin acknowledgements, links); this script draws the long
   sections (cluster operators, images, manifests, the update and install orders) from the release's
   contents.json, its shared files resolved by SiteGenReleaseDiff.loadRecord (release-diff.js, the one
   reader of them). The sections match the self-contained layout's page, which the build renders from
   the same record (render/contents_pages.py): both take the rows of the operators and images tables, the
   objects' names and those an update deletes, the steps of the task graphs and the rows by run level and
   component from release-contents-rules.js (SiteGenContentsRules); only the HTML is built here. */
"use strict";

(() => {
  const box = document.getElementById("contents-drawn");
  if (!box) return;
  const {el, count, safeUrl} = SiteGen;
  const D = SiteGenReleaseDiff;
  const R = SiteGenContentsRules;
  const DEFAULT_PROFILE = "self-managed-high-availability";
  const status = box.querySelector(".contents-drawn-status");
  const sharedUrl = (sha256) => box.dataset.shared.replace(/\{sha256\}|%7Bsha256%7D/, sha256);

  const section = (id, title, ...body) => el("section", {"aria-labelledby": id, "data-drawn": id},
    el("h2", {id}, ...title), ...body);
  const table = (cls, heads, rows) => el("div", {class: "table-scroll"}, el("table", {class: cls},
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", {scope: "col"}, h)))), el("tbody", {}, rows)));

  function operators(record) {
    const rows = R.operatorRows(record.clusterOperators);
    return section("operators-h", ["Cluster operators ", el("span", {class: "count"}, `(${rows.length})`)],
      el("p", {}, "An update waits for each to be available and to report these versions."),
      table("operators", ["Cluster operator", "Versions it reports"], rows.map(([name, versions]) =>
        el("tr", {}, el("th", {scope: "row"}, name), el("td", {}, versions.flatMap(([operand, version], i) =>
          [i ? ", " : null, `${operand} `, el("code", {}, version)]))))));
  }

  function images(record) {
    const rows = R.imageRows(record.images);
    return section("images-h", ["Images ", el("span", {class: "count"}, `(${rows.length})`)],
      table("images", ["Tag", "Source", "Commit", "Digest"], rows.map((row) => el("tr", {},
        el("th", {scope: "row"}, row.tag, row.versions ? [" ", el("span", {class: "count"}, row.versions)] : null),
        el("td", {}, row.repository ? (safeUrl(row.repository) ? el("a", {href: row.repository}, row.repositoryLabel)
          : row.repository) : el("span", {class: "count"}, "unknown")),
        el("td", {}, row.commitUrl ? el("a", {href: row.commitUrl}, el("code", {}, row.commit.slice(0, 12)))
          : row.commit ? el("code", {}, row.commit.slice(0, 12)) : null),
        el("td", {}, el("code", {class: "digest"}, row.digest))))));
  }

  function manifests(record) {
    const resources = record.resources;
    const {documents, applied, levels} = R.manifestRows(resources);
    const deleted = R.deletedObjects(resources);
    return section("manifests-h", ["Manifests"],
      el("p", {class: "manifest-counts"}, `${count(record.manifests, "manifest file")} in release-manifests/; with the `
        + `cluster-version operator's own, ${count(documents, "object")}, of which ${applied} are applied on the `
        + `default profile (${DEFAULT_PROFILE}) and feature set.`),
      el("details", {}, el("summary", {}, `By run level and component (${levels.length})`),
        table("levels", ["Run level", "Component", "Objects", "Applied"], levels.map((row) => el("tr", {},
          el("td", {class: "num"}, row.runLevel === null ? "–" : String(row.runLevel).padStart(2, "0")),
          el("td", {}, row.component || "–"), el("td", {class: "num"}, row.documents),
          el("td", {class: "num"}, row.applied))))),
      el("h3", {}, "Deleted by an update to this release ", el("span", {class: "count"}, `(${deleted.length})`)),
      deleted.length ? el("ul", {class: "diff-items"}, deleted.map((name) => el("li", {}, name)))
        : el("p", {}, "None."));
  }

  function order(id, title, graph, byId, mode, open) {
    if (!graph) {
      return section(id, [title], el("p", {class: "notice"},
        `The cluster-version operator would refuse this payload, so it has no order: ${record.graphError}`));
    }
    const item = (mid) => el("li", {}, el("code", {}, mid), " ", R.objectName(byId.get(mid) || {}));
    const node = (ids) => el("li", {class: "task-node"}, el("details", {},
      el("summary", {}, `${ids[0]}${ids.length > 1 ? ` … ${ids[ids.length - 1]}` : ""} `,
        el("span", {class: "count"}, `(${ids.length})`)),
      el("ul", {class: "manifest-items"}, ids.map(item))));
    const step = (nodes, i) => el("li", {class: "task-step", id: `${mode}-step-${i + 1}`},
      el("p", {class: "step-head"}, el("strong", {}, `Step ${i + 1}`),
        nodes.length > 1 ? ` · ${nodes.length} in parallel` : "",
        ` · ${count(nodes.reduce((sum, ids) => sum + ids.length, 0), "manifest")}`),
      el("ul", {class: "task-nodes"}, nodes.map(node)));
    const steps = R.steps(graph).map((nodes) => nodes.map((node) => graph.nodes[node]));
    const list = el("ol", {class: "task-steps", "data-mode": mode}, steps.map(step));
    return section(id, [title], open ? list : el("details", {}, el("summary", {}, "Show the steps"), list));
  }

  let record = null;
  async function draw() {
    try {
      record = await D.loadRecord(box.dataset.contents, sharedUrl, SiteGen.fetchJSON);
    } catch (error) {
      status.textContent = `The contents could not be loaded: ${error.message}`;
      status.classList.add("problem");
      return;
    }
    const byId = new Map(record.resources.map((r) => [r.id, r]));
    status.remove();
    box.append(operators(record), images(record), manifests(record),
      order("update-order-h", "Update order", record.updateGraph, byId, "update", true),
      order("install-order-h", "Install order", record.installGraph, byId, "install", false));
    box.dataset.drawn = "true";
  }

  draw();
})();
