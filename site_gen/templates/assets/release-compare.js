/* The compare page: two releases with contents, compared in the browser by SiteGenReleaseDiff.diff
   (assets/release-diff.js, the rules `site-gen release diff` runs too), shown section by section as the
   command's text shows them. The choice lives in the URL (?from=&to=&arch=), so a comparison can be shared. */
"use strict";

(() => {
  const {el, count, safeUrl} = SiteGen;
  const D = SiteGenReleaseDiff;
  const form = document.getElementById("compare-form");
  const status = document.getElementById("compare-status");
  const result = document.getElementById("compare-result");
  const pickers = {arch: form.elements.arch, from: form.elements.from, to: form.elements.to};
  const root = form.dataset.root;
  let index = null;
  let download = null;  // the object URL of the comparison's JSON, let go when another replaces it

  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(values[name]));
  const contentsUrl = (version, arch) => root + fill(index.contents, {version, arch});
  const sharedUrl = (sha256) => root + fill(index.shared, {sha256});
  const load = (version, arch) => D.loadRecord(contentsUrl(version, arch), sharedUrl, SiteGen.fetchJSON);
  const pageUrl = (version, arch) => root + fill(index.page, {version, arch});

  function options(select, values, chosen) {
    select.replaceChildren(...values.map((value) => el("option", {value, selected: value === chosen}, value)));
  }

  function fillVersions(wanted) {
    const versions = index.arches[pickers.arch.value] || [];
    const newestFirst = [...versions].reverse();
    const to = versions.includes(wanted.to) ? wanted.to : newestFirst[0];
    // no "from": the release before "to" (an update to it), or the one after when it is the oldest
    const before = versions.indexOf(to) - 1;
    const from = versions.includes(wanted.from) ? wanted.from : (versions[before >= 0 ? before : 1] ?? to);
    options(pickers.from, newestFirst, from);
    options(pickers.to, newestFirst, to);
  }

  const sectionOf = (name, title, ...body) =>
    el("section", {class: "compare-section", "data-section": name}, el("h2", {}, title), ...body);
  const list = (name, items) => el("ul", {class: "diff-items", "data-list": name}, items);
  const item = (key, ...children) => el("li", {"data-key": key}, ...children);
  const link = (url, text) => (safeUrl(url) ? el("a", {href: url}, text) : text);
  const code = (text) => el("code", {}, text);

  function gateItems(gates, invalid) {
    const items = Object.entries(gates).map(([key, message]) => {
      const url = D.gateLink(message);
      const entry = item(key, el("p", {}, code(key), ": ", message),
        url && safeUrl(url) ? el("p", {}, "Read first: ", link(url, url)) : null,
        el("div", {class: "command"}, el("pre", {}, el("code", {}, D.ackCommand(key)))));
      entry.classList.add("gate");
      return entry;
    });
    for (const [key, reason] of Object.entries(invalid)) {
      const entry = item(key, el("p", {class: "problem"}, code(key), ": ", reason, " No acknowledgement lifts it."));
      entry.classList.add("gate");
      items.push(entry);
    }
    return items;
  }

  function componentRows(changes) {
    const labels = D.componentLabels(changes.components.map((c) => [c.name, c.displayName]));
    return changes.components.map((c, i) => el("tr", {"data-key": c.name},
      el("th", {scope: "row"}, labels[i]), el("td", {}, c.from === null ? "–" : code(c.from)),
      el("td", {}, c.to === null ? "removed" : code(c.to))));
  }

  function render(changes, older, newer) {
    const arch = changes.arch;
    const parts = [];
    const json = JSON.stringify(changes) + "\n";
    if (download) URL.revokeObjectURL(download);
    download = URL.createObjectURL(new Blob([json], {type: "application/json"}));
    parts.push(el("h2", {class: "compare-title"}, `Changes from ${changes.from} to ${changes.to} (${arch})`));
    parts.push(el("p", {}, "Contents: ", el("a", {href: pageUrl(older.version, arch)}, older.version), ", ",
      el("a", {href: pageUrl(newer.version, arch)}, newer.version), " · ",
      el("a", {href: download, download: `changes-${changes.from}-${changes.to}-${arch}.json`, id: "compare-json"},
        "this comparison as JSON"), " (as site-gen release diff --format json writes it)"));
    if (D.isEmpty(changes)) parts.push(el("p", {class: "no-changes"}, "No changes."));

    if (changes.components.length) {
      parts.push(sectionOf("components", "Components",
        el("div", {class: "table-scroll"}, el("table", {class: "diff"},
          el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "Component"), el("th", {scope: "col"}, changes.from),
            el("th", {scope: "col"}, changes.to))),
          el("tbody", {}, componentRows(changes))))));
    }
    const gates = Object.keys(changes.adminGates).length + Object.keys(changes.invalidAdminGates).length;
    if (gates) {
      parts.push(sectionOf("admin-gates", `Admin acknowledgements this update needs (${gates})`,
        el("p", {}, `Give each on the cluster at ${changes.from}, before it updates:`),
        el("ul", {class: "gates", "data-list": "admin-gates"}, gateItems(changes.adminGates, changes.invalidAdminGates))));
    }
    const resources = changes.resources;
    if (resources.crdVersionsNoLongerServed.length) {
      parts.push(sectionOf("crd-versions", "API versions no longer served",
        list("crd-versions", resources.crdVersionsNoLongerServed.map((crd) =>
          item(crd.name, code(crd.name), ": ", crd.versions.join(", "))))));
    }
    if (resources.deleted.length) {
      parts.push(sectionOf("deleted", `Objects this update deletes (${resources.deleted.length})`,
        list("deleted", resources.deleted.map((r) => item(D.objectName(r), D.objectName(r), " ", el("span", {class: "count"}, `(${r.file})`))))));
    }
    if (resources.removed.length) {
      parts.push(sectionOf("removed-objects", `Objects no longer in the release (${resources.removed.length})`,
        el("p", {}, "Left on the cluster, no longer managed by the cluster-version operator."),
        list("removed-objects", resources.removed.map((r) => item(D.objectName(r), D.objectName(r), " ", el("span", {class: "count"}, `(${r.file})`))))));
    }
    if (resources.implicitCapabilities.length) {
      parts.push(sectionOf("implicit-capabilities", "Capabilities this update enables where they are disabled",
        list("implicit-capabilities", resources.implicitCapabilities.map((c) => item(c, code(c))))));
    }
    const operators = changes.clusterOperators;
    const changedOperators = Object.entries(operators.changed);
    if (operators.added.length || operators.removed.length || changedOperators.length) {
      parts.push(sectionOf("cluster-operators", "Cluster operators",
        operators.added.length ? [el("h3", {}, `Added (${operators.added.length})`),
          list("operators-added", operators.added.map((name) => item(name, name)))] : null,
        operators.removed.length ? [el("h3", {}, `Removed (${operators.removed.length})`),
          list("operators-removed", operators.removed.map((name) => item(name, name)))] : null,
        changedOperators.length ? [el("h3", {}, `Versions changed (${changedOperators.length})`),
          list("operators-changed", changedOperators.map(([name, operands]) => item(name, el("strong", {}, name), ": ",
            operands.map((v) => `${v.name} ${v.from ?? "–"} → ${v.to ?? "–"}`).join(", "))))] : null));
    }

    const images = changes.images;
    const ranges = changes.commitGroups.length;
    parts.push(sectionOf("images-changed",
      `Images changed (${Object.keys(images.changed).length}, ${count(ranges, "commit range")})`,
      list("commit-groups", changes.commitGroups.map((group) => {
        let where;
        if (group.compareUrl) where = link(group.compareUrl, `${group.from.slice(0, 12)}…${group.to.slice(0, 12)}`);
        else if (group.previousSourceRepository) where = `${group.previousSourceRepository} ${group.from} → ${group.sourceRepository} ${group.to}`;
        else where = `${group.sourceRepository ?? "unknown repository"} ${group.from}..${group.to}`;
        return item(group.images.join(","), el("strong", {}, group.images.join(", ")), " ",
          group.sourceRepository ? el("span", {class: "count"}, group.sourceRepository.replace(/^https:\/\/github\.com\//, "")) : null,
          " ", where);
      }))));
    parts.push(sectionOf("images-rebuilt", `Images rebuilt (${images.rebuilt.length})`,
      el("p", {class: "hint"}, "A new digest, the same code (or no commit recorded)."),
      list("images-rebuilt", images.rebuilt.map((tag) => item(tag, tag)))));
    parts.push(sectionOf("images-added", `Images added (${images.added.length})`,
      list("images-added", images.added.map((tag) => {
        const image = newer.images[tag];
        const url = D.commitUrl(image.sourceRepository, image.commit);
        return item(tag, tag, " ", url ? link(url, (image.commit || "").slice(0, 12)) : el("span", {class: "count"}, image.sourceRepository || "source unknown"));
      }))));
    parts.push(sectionOf("images-removed", `Images removed (${images.removed.length})`,
      list("images-removed", images.removed.map((tag) => item(tag, tag)))));

    const files = changes.manifests;
    const fileParts = ["changed", "added", "removed"].map((kind) => el("details", {},
      el("summary", {}, `${kind[0].toUpperCase()}${kind.slice(1)} (${files[kind].length})`),
      list(`manifests-${kind}`, files[kind].map((name) => item(name, code(name))))));
    parts.push(sectionOf("manifests", "Manifest files", ...fileParts));
    if (resources.renamed.length) {
      parts.push(sectionOf("renamed", `Objects in another file (${resources.renamed.length})`,
        list("renamed", resources.renamed.map((r) => item(D.objectName(r), D.objectName(r), ": ", code(r.from), " → ", code(r.to))))));
    }
    result.replaceChildren(...parts.flat().filter(Boolean));
  }

  async function compare() {
    const arch = pickers.arch.value, from = pickers.from.value, to = pickers.to.value;
    if (!arch || !from || !to) return;
    status.textContent = `Comparing ${from} and ${to} (${arch})…`;
    result.replaceChildren();
    try {
      const [older, newer] = await Promise.all([load(from, arch), load(to, arch)]);
      const changes = D.diff(older, newer);
      render(changes, older, newer);
      status.textContent = "";
      result.dataset.compared = `${from} ${to} ${arch}`;
    } catch (error) {
      status.textContent = error instanceof D.ReleaseDiffError || error instanceof Error ? error.message : String(error);
      status.classList.add("problem");
      return;
    }
    status.classList.remove("problem");
  }

  function choose(push) {
    const query = new URLSearchParams({from: pickers.from.value, to: pickers.to.value, arch: pickers.arch.value});
    const url = `${window.location.pathname}?${query}`;
    if (push) window.history.pushState(null, "", url);
    return compare();
  }

  function fromLocation() {
    const query = new URLSearchParams(window.location.search);
    const arches = Object.keys(index.arches).filter((arch) => index.arches[arch].length);
    const arch = arches.includes(query.get("arch")) ? query.get("arch") : (arches.includes("amd64") ? "amd64" : arches[0]);
    options(pickers.arch, arches, arch);
    fillVersions({from: query.get("from"), to: query.get("to")});
    const unknown = ["from", "to"].map((side) => query.get(side)).filter((v) => v && !(index.arches[arch] || []).includes(v));
    if (unknown.length) {
      const unreadable = unknown.filter((v) => (index.unreadable[arch] || []).includes(v));
      status.textContent = unreadable.length
        ? `The contents of ${unreadable.join(" and ")} (${arch}) could not be read: see ${unreadable.length > 1 ? "their pages" : "its page"}.`
        : `This site has no contents for ${unknown.join(" and ")} on ${arch}.`;
      status.classList.add("problem");
      return;
    }
    compare();
  }

  async function start() {
    try {
      index = await SiteGen.fetchJSON(form.dataset.index);
    } catch (error) {
      status.textContent = error.message;
      return;
    }
    pickers.arch.addEventListener("change", () => fillVersions({from: pickers.from.value, to: pickers.to.value}));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      choose(true);
    });
    window.addEventListener("popstate", fromLocation);
    fromLocation();
  }

  start();
})();
