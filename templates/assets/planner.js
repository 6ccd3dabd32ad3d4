/* Update planner: shortest routes between two versions, computed in the browser
   from data/planner-<arch>.json (see site_gen/render/planner_data.py). */
"use strict";

(() => {
  const {el, fetchJSON, releaseHref, riskItem, joinNodes} = SiteGen;
  const form = document.getElementById("planner-form");
  const result = document.getElementById("planner-result");
  const fields = {arch: form.elements.arch, from: form.elements.from, to: form.elements.to,
                  channel: form.elements.channel};
  const datalist = document.getElementById("planner-versions");
  const root = form.dataset.root;
  const releases = form.dataset.releases;
  const MAX_ROUTES = 10;
  const loaded = new Map();

  /* Planner data plus the lookups the search needs. */
  async function load(arch) {
    if (!loaded.has(arch)) {
      loaded.set(arch, fetchJSON(`${form.dataset.planner}planner-${encodeURIComponent(arch)}.json`).then((data) => {
        data.number = new Map(data.versions.map((v, i) => [v, i]));
        data.channelsOf = data.versions.map(() => []);
        data.channels.forEach((channel, c) => {
          channel.memberSet = new Set(channel.members);
          for (const v of channel.members) data.channelsOf[v].push(c);
        });
        data.channelNumber = new Map(data.channels.map((channel, c) => [channel.name, c]));
        return data;
      }));
    }
    return loaded.get(arch);
  }

  /* Updates out of v inside the scope: [target, riskList or -1 for recommended]. */
  function updatesFrom(data, scope, v, withConditional) {
    const out = [];
    const inScope = (t) => scope === null || data.channels[scope].memberSet.has(t);
    for (const t of data.recommended[v]) if (inScope(t)) out.push([t, -1]);
    if (withConditional) {
      const pairs = data.conditional[v];
      for (let i = 0; i < pairs.length; i += 2) if (inScope(pairs[i])) out.push([pairs[i], pairs[i + 1]]);
    }
    return out;
  }

  /* Dijkstra with a cost per update; returns every optimal route (up to MAX_ROUTES) and their count. */
  function shortest(data, scope, from, to, withConditional, cost) {
    const n = data.versions.length;
    const dist = new Array(n).fill(Infinity);
    const preds = Array.from({length: n}, () => []);
    const frontier = [[0, from]];  // [distance, version]; n is at most a few thousand,
    dist[from] = 0;
    while (frontier.length) {  // so a linear scan for the nearest keeps this short and clear
      let best = 0;
      for (let i = 1; i < frontier.length; i++) if (frontier[i][0] < frontier[best][0]) best = i;
      const [d, v] = frontier[best];
      frontier[best] = frontier[frontier.length - 1];
      frontier.pop();
      if (d > dist[v] || v === to) continue;
      for (const [t, risks] of updatesFrom(data, scope, v, withConditional)) {
        const next = d + cost(risks >= 0);
        if (next < dist[t]) {
          dist[t] = next;
          preds[t] = [[v, risks]];
          frontier.push([next, t]);
        } else if (next === dist[t]) {
          preds[t].push([v, risks]);
        }
      }
    }
    if (dist[to] === Infinity) return null;
    const counts = new Map([[from, 1]]);
    const count = (v) => {
      if (!counts.has(v)) counts.set(v, preds[v].reduce((sum, [u]) => sum + count(u), 0));
      return counts.get(v);
    };
    const routes = [];
    const walk = (v, hops) => {
      if (routes.length >= MAX_ROUTES) return;
      if (v === from) {
        routes.push(hops.slice().reverse());
        return;
      }
      for (const [u, risks] of preds[v].slice().sort((a, b) => a[0] - b[0])) walk(u, [...hops, [u, v, risks]]);
    };
    walk(to, []);
    return {routes, total: count(to)};
  }

  function servingChannels(data, scope, a, b) {
    if (scope !== null) return [data.channels[scope].name];
    const other = new Set(data.channelsOf[b]);
    return data.channelsOf[a].filter((c) => other.has(c)).map((c) => data.channels[c].name);
  }

  function versionLink(data, v) {
    const name = data.versions[v];
    return el("a", {href: releaseHref(releases, name)}, name);
  }

  function hopItem(data, scope, [a, b, risks]) {
    const conditional = risks >= 0;
    return el("li", {class: conditional ? "hop conditional" : "hop"},
      el("span", {class: "hop-versions"}, versionLink(data, a), " → ", versionLink(data, b)), " ",
      el("span", {class: "badge"}, conditional ? "conditional" : "recommended"), " ",
      el("span", {class: "hop-channels"}, "in " + servingChannels(data, scope, a, b).join(", ")),
      conditional
        ? el("ul", {class: "risks"}, data.riskLists[risks].map((r) => riskItem(data.risks[r], root + data.risks[r].page)))
        : null);
  }

  function routeList(data, scope, found, kind) {
    return found.routes.map((hops) => {
      const names = [hops[0][0], ...hops.map((hop) => hop[1])].map((v) => data.versions[v]);
      return el("div", {class: "route-box"},
        el("p", {class: "route-summary"}, names.join(" → ")),
        el("ol", {class: "route", "data-kind": kind, "data-route": names.join(" ")},
          hops.map((hop) => hopItem(data, scope, hop))));
    });
  }

  function routesSection(data, scope, found, kind, heading) {
    const hops = found.routes[0].length;
    const more = found.total > found.routes.length ? ` Showing ${found.routes.length} of ${found.total}.` : "";
    return el("section", {class: "routes", "data-kind": kind},
      el("h2", {}, heading),
      el("p", {}, `${found.total} route${found.total === 1 ? "" : "s"} of ${hops} update${hops === 1 ? "" : "s"}.${more}`),
      routeList(data, scope, found, kind));
  }

  function outcome(kind, ...children) {
    result.dataset.outcome = kind;
    result.replaceChildren(...children);
  }

  function explainUnreachable(data, scope, from, to, where) {
    const name = (v) => data.versions[v];
    if (to < from) {  // versions are numbered in SemVer order
      return `Updates only go to newer versions, and ${name(to)} is older than ${name(from)}.`;
    }
    const into = data.versions.some((_, v) => updatesFrom(data, scope, v, true).some(([t]) => t === to));
    if (!into) {
      return `Nothing ${where} updates to ${name(to)}: every update into it is blocked, ` +
        "so clusters can only be installed at it.";
    }
    if (!updatesFrom(data, scope, from, true).length) {
      return `${name(from)} has no updates ${where}: it is a dead end.`;
    }
    const seen = new Set([from]);
    const stack = [from];
    while (stack.length) {
      for (const [t] of updatesFrom(data, scope, stack.pop(), true)) {
        if (!seen.has(t)) {
          seen.add(t);
          stack.push(t);
        }
      }
    }
    return `${name(to)} cannot be reached from ${name(from)} ${where}: the ${seen.size - 1} versions ` +
      `reachable from it go up to ${name(Math.max(...seen))}, and none of them updates to ${name(to)}.`;
  }

  async function plan() {
    const arch = fields.arch.value;
    const fromName = fields.from.value.trim();
    const toName = fields.to.value.trim();
    const channelName = fields.channel.value;
    if (!fromName || !toName) return;
    const data = await load(arch);
    const where = channelName ? `in ${channelName} (${arch})` : `in any channel (${arch})`;
    for (const version of [fromName, toName]) {
      if (!data.number.has(version)) {
        outcome("invalid", el("p", {class: "notice"}, `${version} is not a release served for ${arch} in any channel.`));
        return;
      }
    }
    const from = data.number.get(fromName);
    const to = data.number.get(toName);
    let scope = null;
    if (channelName) {
      scope = data.channelNumber.has(channelName) ? data.channelNumber.get(channelName) : -1;
      const missing = [from, to].filter((v) => scope < 0 || !data.channels[scope].memberSet.has(v));
      if (missing.length) {
        outcome("not-in-channel", ...missing.map((v) => el("p", {class: "notice"},
          `${data.versions[v]} is not in ${channelName} on ${arch}, so no route exists there. It is in: `,
          joinNodes(data.channelsOf[v].map((c) => data.channels[c].name), ", "), ".")));
        return;
      }
    }
    if (from === to) {
      outcome("same", el("p", {}, `A cluster at ${fromName} is already at the target.`));
      return;
    }
    const big = data.versions.length + 1;
    const recommended = shortest(data, scope, from, to, false, () => 1);
    if (recommended) {
      const sections = [routesSection(data, scope, recommended, "recommended", `Recommended routes ${where}`)];
      const fewestHops = shortest(data, scope, from, to, true, (conditional) => big + (conditional ? 1 : 0));
      if (fewestHops.routes[0].length < recommended.routes[0].length) {
        sections.push(routesSection(data, scope, fewestHops, "shorter-conditional",
          "Shorter, through conditional updates"));
      }
      outcome("routes", ...sections);
      return;
    }
    const risky = shortest(data, scope, from, to, true, (conditional) => (conditional ? big : 0) + 1);
    if (risky) {
      outcome("conditional-only",
        el("p", {class: "notice"}, `No route ${where} uses only recommended updates: ` +
          `every way from ${fromName} to ${toName} includes a conditional update.`),
        routesSection(data, scope, risky, "conditional-only", "Routes with the fewest conditional updates"));
      return;
    }
    outcome("unreachable", el("p", {class: "notice"}, explainUnreachable(data, scope, from, to, where)));
  }

  /* Versions and channels offered by the form follow the chosen architecture. */
  async function refreshChoices() {
    const data = await load(fields.arch.value);
    datalist.replaceChildren(...data.versions.map((v) => el("option", {value: v})));
    const wanted = fields.channel.value;
    fields.channel.replaceChildren(el("option", {value: ""}, "Any channel"),
      ...data.channels.map((channel) => el("option", {value: channel.name}, channel.name)));
    fields.channel.value = data.channelNumber.has(wanted) ? wanted : "";
  }

  const params = new URLSearchParams(window.location.search);
  if (params.get("arch") && Array.from(fields.arch.options).some((o) => o.value === params.get("arch"))) {
    fields.arch.value = params.get("arch");
  }
  fields.from.value = params.get("from") || "";
  fields.to.value = params.get("to") || "";
  const askedChannel = params.get("channel") || "";
  const failed = (error) => outcome("error", el("p", {class: "notice"}, `Could not load the planner data (${error.message}).`));
  if (!fields.arch.value) {
    outcome("idle", el("p", {}, "No architecture has a served release, so there is nothing to plan."));
    return;
  }
  fields.arch.addEventListener("change", () => refreshChoices().catch(failed));
  result.dataset.outcome = "loading";
  refreshChoices().then(() => {
    if (askedChannel && !Array.from(fields.channel.options).some((o) => o.value === askedChannel)) {
      fields.channel.append(el("option", {value: askedChannel}, askedChannel));
    }
    fields.channel.value = askedChannel;
    return plan();
  }).then(() => {
    if (result.dataset.outcome === "loading") result.dataset.outcome = "idle";
  }).catch(failed);
})();
