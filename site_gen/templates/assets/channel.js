/* Channel page: what a cluster at the selected version is offered, read from the
   same graph JSON file the cluster downloads. */
"use strict";

(() => {
  const {el, fetchJSON, releaseLink, riskItem, count} = SiteGen;
  const SHORT_LIST = 5;  // longer lists of updates start folded
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
    return {names, recommended, conditional, order};
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

  /* After a tap on a node, the answer's heading comes into view: on a phone the panel is above the
     picture and taller than the screen, so scrolling to its end would hide what was chosen. */
  function showAnswer() {
    const section = panel.closest("section");
    if (getComputedStyle(section).position === "sticky") {
      section.scrollTop = 0;
      section.scrollIntoView({block: "nearest"});
    } else {
      (panel.querySelector("h3") || section).scrollIntoView({block: "start"});
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
      decision(version, recommended, conditional),
      ...updateList("Recommended updates", "recommended", recommended,
        (to) => el("li", {"data-version": to}, versionLink(to))),
      ...updateList("Conditional updates", "conditional", conditional,
        (update) => el("li", {"data-version": update.to}, versionLink(update.to),
          el("ul", {class: "risks"}, update.risks.map((risk) => riskItem(
            {name: risk.name, message: risk.message, url: risk.url,
             types: risk.matchingRules.map((rule) => rule.type)}, riskPage(risk)))))));
    if (!recommended.length && !conditional.length) {
      panel.append(el("p", {class: "notice"}, `No update leaves ${version} in this channel.`));
    }
    if (tombstoned.has(version)) {
      panel.querySelector("h3").after(el("p", {class: "notice tombstone-note"},
        `${version}: ${tombstoned.get(version)}. It is still served in this channel.`));
    }
  }

  /* What a decision needs, before any long list: the newest recommended target, and how many
     updates carry risks and which risks (each with the number of updates it is on). */
  function decision(version, recommended, conditional) {
    const facts = el("dl", {class: "decision"});
    const add = (term, ...value) => facts.append(el("dt", {}, term), el("dd", {}, ...value));
    add("Newest recommended update", recommended.length ? versionLink(recommended[0]) : "none");
    if (conditional.length && (!recommended.length || graph.order.get(conditional[0].to) > graph.order.get(recommended[0]))) {
      add("Newest update, conditional", versionLink(conditional[0].to));
    }
    const total = recommended.length + conditional.length;
    const risks = new Map();  // risk name -> [risk, number of updates]
    for (const update of conditional) {
      for (const risk of update.risks) {
        if (!risks.has(risk.name)) risks.set(risk.name, [risk, 0]);
        risks.get(risk.name)[1] += 1;
      }
    }
    add("Updates with risks", `${conditional.length} of ${count(total, "update")}`,
      risks.size ? el("ul", {class: "risk-summary"}, Array.from(risks.values(), ([risk, times]) => {
        const page = riskPage(risk);
        return el("li", {"data-risk": risk.name}, page ? el("a", {href: page}, risk.name) : risk.name,
          ` (${count(times, "update")})`);
      })) : null);
    return facts;
  }

  /* A list of updates; a long one is folded so that the decision above stays on screen. */
  function updateList(title, kind, items, item) {
    const heading = `${title} (${items.length})`;
    if (!items.length) return [el("h4", {}, heading), el("p", {}, "None.")];
    const list = el("ul", {class: "targets", "data-kind": kind}, items.map(item));
    if (items.length <= SHORT_LIST) return [el("h4", {}, heading), list];
    return [el("details", {class: "update-list"}, el("summary", {}, el("h4", {}, heading)), list)];
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
      showAnswer();
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
