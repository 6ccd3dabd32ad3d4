/* Channel page: what a cluster at the selected version is offered, read from the
   same graph JSON file the cluster downloads. */
"use strict";

(() => {
  const {el, fetchJSON, releaseLink, riskItem} = SiteGen;
  const panel = document.getElementById("offer");
  const select = document.getElementById("version-select");
  const scroller = document.querySelector(".graph-scroll");
  const releases = panel.dataset.releases;
  const riskPages = JSON.parse(document.getElementById("risk-pages").textContent);
  // version -> where it is tombstoned up the feeder chain (the picker's options carry it)
  const tombstoned = new Map(Array.from(select.options).filter((o) => o.dataset.tombstoned)
    .map((o) => [o.value, o.dataset.tombstoned]));
  const listed = new Set(Array.from(select.options, (o) => o.value).filter(Boolean));
  const nodes = new Map();  // version -> <g class="node"> in the picture
  for (const node of document.querySelectorAll(".graph-scroll g.node")) {
    nodes.set(node.querySelector("title").textContent, node);
  }
  // "loading" until the JSON arrives; choices made meanwhile wait in the URL fragment.
  // "failed": node links open release pages, as they do without JavaScript.
  let state = "loading";
  let graph = null;

  function riskPage(risk) {
    const page = riskPages.find((p) => p.name === risk.name && p.url === risk.url && p.message === risk.message);
    return page ? page.page : null;
  }

  /* The cluster's view of the document: out-edges of each version, recommended and conditional. */
  function index(doc) {
    const names = doc.nodes.map((node) => node.version);
    const recommended = new Map(names.map((name) => [name, []]));
    const conditional = new Map(names.map((name) => [name, []]));
    for (const [from, to] of doc.edges) recommended.get(names[from]).push(names[to]);
    for (const group of doc.conditionalEdges) {
      for (const edge of group.edges) conditional.get(edge.from).push({to: edge.to, risks: group.risks});
    }
    const order = new Map(names.map((name, i) => [name, i]));
    const newestFirst = (a, b) => order.get(b) - order.get(a);
    for (const list of recommended.values()) list.sort(newestFirst);
    for (const list of conditional.values()) list.sort((a, b) => newestFirst(a.to, b.to));
    return {names, recommended, conditional};
  }

  function highlight(version) {
    for (const node of nodes.values()) node.classList.remove("is-selected", "is-recommended", "is-conditional");
    if (!graph.recommended.has(version)) return;
    nodes.get(version)?.classList.add("is-selected");
    for (const to of graph.recommended.get(version)) nodes.get(to)?.classList.add("is-recommended");
    for (const update of graph.conditional.get(version)) nodes.get(update.to)?.classList.add("is-conditional");
  }

  /* Bring the node into view without moving focus: centred in the picture's scroll box, and,
     when the picker stays on screen beside the picture (wide screens), the page scrolled just
     enough to show it. On a phone the picture is below the panel, which stays where it is. */
  function reveal(version) {
    const node = nodes.get(version);
    if (!node) return;
    const box = scroller.getBoundingClientRect();
    const shape = node.getBoundingClientRect();
    const inside = shape.left >= box.left && shape.right <= box.right && shape.top >= box.top &&
      shape.bottom <= box.bottom;
    if (!inside) {
      scroller.scrollBy((shape.left + shape.right - box.left - box.right) / 2,
                        (shape.top + shape.bottom - box.top - box.bottom) / 2);
    }
    if (getComputedStyle(panel.closest("section")).position === "sticky") {
      node.scrollIntoView({block: "nearest", inline: "nearest"});
    }
  }

  function versionLink(version) {
    return releaseLink(releases, version);
  }

  function show(version) {
    highlight(version);
    if (!version) {
      panel.replaceChildren(el("p", {},
        "Choose a version to see the updates a cluster running it is offered in this channel."));
      return;
    }
    if (!graph.recommended.has(version)) {
      panel.replaceChildren(el("p", {class: "notice"},
        `${version} is not in this channel, so a cluster running it gets no updates here (VersionNotFound).`));
      return;
    }
    const recommended = graph.recommended.get(version);
    const conditional = graph.conditional.get(version);
    panel.replaceChildren(
      el("h3", {}, "A cluster at ", versionLink(version)),
      el("h4", {}, `Recommended updates (${recommended.length})`),
      recommended.length
        ? el("ul", {class: "targets", "data-kind": "recommended"},
            recommended.map((to) => el("li", {"data-version": to}, versionLink(to))))
        : el("p", {}, "None."),
      el("h4", {}, `Conditional updates (${conditional.length})`),
      conditional.length
        ? el("ul", {class: "targets", "data-kind": "conditional"},
            conditional.map((update) => el("li", {"data-version": update.to}, versionLink(update.to),
              el("ul", {class: "risks"}, update.risks.map((risk) => riskItem(
                {name: risk.name, message: risk.message, url: risk.url,
                 types: risk.matchingRules.map((rule) => rule.type)}, riskPage(risk)))))))
        : el("p", {}, "None."));
    if (!recommended.length && !conditional.length) {
      panel.append(el("p", {class: "notice"}, `No update leaves ${version} in this channel.`));
    }
    if (tombstoned.has(version)) {
      panel.querySelector("h3").after(el("p", {class: "notice tombstone-note"},
        `${version}: ${tombstoned.get(version)}. It is still served in this channel.`));
    }
  }

  function loadingNote(version) {
    return el("p", {}, "Loading the channel's graph", version ? `, then showing ${version}…` : "…");
  }

  function choose(version, remember) {
    if (remember) history.replaceState(null, "", version ? "#" + encodeURIComponent(version) : "#");
    if (state !== "ready") {  // the fragment now holds the choice until the graph arrives
      select.value = listed.has(version) ? version : "";
      if (state === "loading") panel.replaceChildren(loadingNote(version));
      return;
    }
    select.value = graph.recommended.has(version) ? version : "";
    show(version);
    reveal(version);
  }

  function fromHash() {
    return decodeURIComponent(window.location.hash.slice(1));
  }

  select.addEventListener("change", () => choose(select.value, true));
  for (const [version, node] of nodes) {
    node.querySelector("a")?.addEventListener("click", (event) => {
      if (state === "failed") return;  // the link opens the release page
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;  // so does a new tab
      event.preventDefault();
      choose(version, true);
      panel.closest("section").scrollIntoView({block: "nearest"});
    });
  }
  window.addEventListener("hashchange", () => choose(fromHash(), false));

  choose(fromHash(), false);
  fetchJSON(panel.dataset.graph).then((doc) => {
    graph = index(doc);
    state = "ready";
    document.body.dataset.graphLoaded = "true";
    choose(fromHash(), false);
  }, (error) => {
    state = "failed";
    select.disabled = true;
    document.body.dataset.graphFailed = "true";
    panel.replaceChildren(el("p", {class: "notice"}, error.message,
      " The versions in the graph link to their release pages instead, which list the same updates."));
  });
})();
