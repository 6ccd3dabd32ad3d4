/* Update planner: the best routes between two versions, computed in the browser from
   data/planner-<arch>.json (see site_gen/render/planner_data.py). docs/site.md ("Planner")
   describes how a route is chosen and shown. */
"use strict";

(() => {
  const {el, fetchJSON, typedVersion, count, releaseLink, riskItem, joinNodes} = SiteGen;
  const form = document.getElementById("planner-form");
  const result = document.getElementById("planner-result");
  const fields = {arch: form.elements.arch, from: form.elements.from, to: form.elements.to,
                  channel: form.elements.channel};
  const datalist = document.getElementById("planner-versions");
  const root = form.dataset.root;
  const releases = form.dataset.releases;
  const KIND_RANK = ["stable", "eus", "fast", "candidate"];  // which channel to suggest first; others last
  const CANDIDATE = KIND_RANK.indexOf("candidate");           // ranks below it carry supported releases
  const SHOWN_ALTERNATIVES = 8;                               // the rest of a step's list is folded away
  const loaded = new Map();

  /* Planner data plus the lookups the search needs. */
  async function load(arch) {
    if (!loaded.has(arch)) {
      loaded.set(arch, fetchJSON(`${form.dataset.planner}planner-${encodeURIComponent(arch)}.json`).then((data) => {
        data.number = new Map(data.versions.map((v, i) => [v, i]));
        data.prerelease = data.versions.map((v) => v.includes("-"));  // served versions carry no +build
        data.channelsOf = data.versions.map(() => []);
        data.channels.forEach((channel, c) => {
          channel.memberSet = new Set(channel.members);
          const rank = KIND_RANK.indexOf(channel.name.split("-")[0]);
          channel.rank = rank < 0 ? KIND_RANK.length : rank;
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

  /* Channels (numbers) offering a -> b: those holding both ends; just the scope when there is one. */
  function servingChannels(data, scope, a, b) {
    if (scope !== null) return [scope];
    return data.channelsOf[a].filter((c) => data.channels[c].memberSet.has(b));
  }

  /* Why an update is a worse step than others, judged on every channel whatever the scope:
     it lands on a prerelease, or no stable, eus or fast channel offers it. */
  function hopFlags(data, a, b) {
    const flags = [];
    if (data.prerelease[b]) flags.push("prerelease");
    const ranks = servingChannels(data, null, a, b).map((c) => data.channels[c].rank);
    if (ranks.every((rank) => rank >= CANDIDATE)) {
      flags.push(ranks.every((rank) => rank === CANDIDATE) ? "candidate channels only" : "no stable, eus or fast channel");
    }
    return flags;
  }

  /* A cost per update ranking routes by criteria, most important first: each criterion weighs more
     than the largest total the later ones can reach (a route has fewer updates than there are versions). */
  function costOf(data, criteria) {
    const base = data.versions.length + 1;
    const weight = Object.fromEntries(criteria.map((name, i) => [name, base ** (criteria.length - 1 - i)]));
    return (a, b, risks) => weight.updates + (risks >= 0 ? weight.conditional : 0) +
      (hopFlags(data, a, b).length ? weight.flagged : 0);
  }

  /* Dijkstra; returns the predecessors of every version on a cheapest route, or null. */
  function search(data, scope, from, to, withConditional, cost) {
    const dist = new Array(data.versions.length).fill(Infinity);
    const preds = data.versions.map(() => []);
    const frontier = [[0, from]];  // [distance, version]; there are at most a few thousand versions,
    dist[from] = 0;
    while (frontier.length) {  // so a linear scan for the nearest keeps this short and clear
      let best = 0;
      for (let i = 1; i < frontier.length; i++) if (frontier[i][0] < frontier[best][0]) best = i;
      const [d, v] = frontier[best];
      frontier[best] = frontier[frontier.length - 1];
      frontier.pop();
      if (d > dist[v] || v === to) continue;
      for (const [t, risks] of updatesFrom(data, scope, v, withConditional)) {
        const next = d + cost(v, t, risks);
        if (next < dist[t]) {
          dist[t] = next;
          preds[t] = [[v, risks]];
          frontier.push([next, t]);
        } else if (next === dist[t]) {
          preds[t].push([v, risks]);
        }
      }
    }
    return dist[to] === Infinity ? null : preds;
  }

  /* Every cheapest route as one route to follow (the newest version at each step, as people
     update to the latest z-stream first), the number of cheapest routes, and per step the other
     versions that could replace that step's version at the same cost, the rest unchanged. */
  function bestRoute(data, scope, from, to, withConditional, criteria) {
    const cost = costOf(data, criteria);
    const preds = search(data, scope, from, to, withConditional, cost);
    if (!preds) return null;
    const onward = new Map();  // v -> cheapest updates out of v that still lead to the target
    const seen = new Set([to]);
    const stack = [to];
    while (stack.length) {
      const t = stack.pop();
      for (const [v, risks] of preds[t]) {
        if (!onward.has(v)) onward.set(v, []);
        onward.get(v).push([t, risks]);
        if (!seen.has(v)) {
          seen.add(v);
          stack.push(v);
        }
      }
    }
    const counts = new Map([[from, 1n]]);
    const routesTo = (v) => {
      if (!counts.has(v)) counts.set(v, preds[v].reduce((sum, [u]) => sum + routesTo(u), 0n));
      return counts.get(v);
    };
    const hops = [];
    for (let v = from; v !== to;) {
      const [t, risks] = onward.get(v).reduce((best, update) => (update[0] > best[0] ? update : best));
      hops.push({from: v, to: t, risks});
      v = t;
    }
    hops.forEach((hop, k) => {
      hop.alternatives = k + 1 < hops.length ? replacements(data, scope, hop, hops[k + 1], withConditional, cost) : [];
    });
    return {hops, total: routesTo(to)};
  }

  /* Versions w with before -> w -> after costing as much as before -> hop.to -> after. */
  function replacements(data, scope, hop, following, withConditional, cost) {
    const budget = cost(hop.from, hop.to, hop.risks) + cost(hop.to, following.to, following.risks);
    const found = [];
    for (const [w, first] of updatesFrom(data, scope, hop.from, withConditional)) {
      if (w === hop.to) continue;
      const second = updatesFrom(data, scope, w, withConditional).find(([t]) => t === following.to);
      if (second && cost(hop.from, w, first) + cost(w, following.to, second[1]) === budget) {
        found.push({version: w, hops: [[hop.from, w, first], [w, following.to, second[1]]]});
      }
    }
    return found.sort((x, y) => y.version - x.version);
  }

  /* Stretches of the route that one channel serves; a cluster switches channel between them.
     Extending each stretch as far as it goes gives the fewest switches. Where a stable, eus or
     fast channel offers an update, only those count: a candidate channel is never suggested
     just to save a switch. */
  function channelStretches(data, scope, hops) {
    const stretches = [];
    hops.forEach((hop, i) => {
      const all = servingChannels(data, scope, hop.from, hop.to);
      const supported = all.filter((c) => data.channels[c].rank < CANDIDATE);
      const serving = supported.length ? supported : all;
      const last = stretches[stretches.length - 1];
      const common = last ? last.channels.filter((c) => serving.includes(c)) : [];
      if (common.length) {
        last.channels = common;
        last.end = i;
      } else {
        stretches.push({start: i, end: i, channels: serving});
      }
    });
    // stable, eus, fast, then candidate; inside a kind the oldest minor (channels come newest first)
    for (const stretch of stretches) {
      stretch.channels.sort((a, b) => data.channels[a].rank - data.channels[b].rank || b - a);
    }
    return stretches;
  }

  function versionLink(data, v) {
    return releaseLink(releases, data.versions[v]);
  }

  function channelName(data, c) {
    return data.channels[c].name;
  }

  /* How a replacement's two updates differ from the route's: their risks and flags
     ("then" for the update out of it). */
  function replacementNotes(data, alt, route) {
    const notes = [];
    alt.hops.forEach(([a, b, risks], i) => {
      const [ra, rb, routeRisks] = route[i];
      const then = i ? "then " : "";
      if (risks >= 0 && risks !== routeRisks) {
        notes.push(then + "conditional: " + data.riskLists[risks].map((r) => data.risks[r].name).join(", "));
      } else if (risks < 0 && routeRisks >= 0) {
        notes.push(then + "recommended");
      }
      const usual = new Set(hopFlags(data, ra, rb));
      notes.push(...hopFlags(data, a, b).filter((flag) => !usual.has(flag)).map((flag) => then + flag));
    });
    return notes.length ? ` (${notes.join("; ")})` : "";
  }

  function alternativesLine(data, hop, following) {
    const route = [[hop.from, hop.to, hop.risks], [hop.to, following.to, following.risks]];
    const items = hop.alternatives.map((alt) =>
      el("span", {class: "alternative"}, versionLink(data, alt.version), replacementNotes(data, alt, route)));
    const shown = items.slice(0, SHOWN_ALTERNATIVES);
    const folded = items.slice(SHOWN_ALTERNATIVES);
    return el("div", {class: "hop-alternatives"},
      el("span", {class: "alternatives-label"}, `Instead of ${data.versions[hop.to]}: `),
      joinNodes(shown, ", "),
      folded.length
        ? el("details", {}, el("summary", {}, count(folded.length, "older version")), joinNodes(folded, ", "))
        : null);
  }

  function hopItem(data, scope, hop, following, switchTo) {
    const conditional = hop.risks >= 0;
    const flags = hopFlags(data, hop.from, hop.to);
    return el("li", {class: conditional ? "hop conditional" : "hop",
                     "data-alternatives": hop.alternatives.map((alt) => data.versions[alt.version]).join(" "),
                     "data-flags": flags.join(", "), "data-switch": switchTo === null ? null : channelName(data, switchTo)},
      switchTo === null ? null
        : el("p", {class: "hop-switch"}, "Switch the cluster's channel to ", el("strong", {}, channelName(data, switchTo)),
             " before this update."),
      el("span", {class: "hop-versions"}, versionLink(data, hop.from), " → ", versionLink(data, hop.to)), " ",
      el("span", {class: "badge"}, conditional ? "conditional" : "recommended"), " ",
      flags.flatMap((flag) => [el("span", {class: "badge badge-warning"}, flag), " "]),
      el("span", {class: "hop-channels"},
        "in " + servingChannels(data, scope, hop.from, hop.to).map((c) => channelName(data, c)).join(", ")),
      conditional
        ? el("ul", {class: "risks"},
             data.riskLists[hop.risks].map((r) => riskItem(data.risks[r], root + data.risks[r].page)))
        : null,
      hop.alternatives.length ? alternativesLine(data, hop, following) : null);
  }

  function channelsLine(data, stretches) {
    const preferred = stretches.map((stretch) => channelName(data, stretch.channels[0]));
    const line = el("p", {class: "route-channels", "data-channels": preferred.join(" ")});
    if (stretches.length === 1) {
      const others = stretches[0].channels.slice(1).map((c) => channelName(data, c));
      line.append("One channel serves every update of this route: ", el("strong", {}, preferred[0]),
        others.length ? ` (also ${others.join(", ")}).` : ".");
      return line;
    }
    const updates = (s) => (s.start === s.end ? `update ${s.start + 1}` : `updates ${s.start + 1}–${s.end + 1}`);
    line.append("No one channel serves every update, so the cluster switches channel on the way: ",
      ...stretches.flatMap((s, i) => [i ? ", then " : "", el("strong", {}, preferred[i]), ` for ${updates(s)}`]), ".");
    return line;
  }

  function routeSection(data, scope, found, kind, heading) {
    const {hops, total} = found;
    const conditional = hops.filter((hop) => hop.risks >= 0).length;
    const stretches = channelStretches(data, scope, hops);
    const switches = new Map(stretches.slice(1).map((s) => [s.start, s.channels[0]]));
    const names = [hops[0].from, ...hops.map((hop) => hop.to)].map((v) => data.versions[v]);
    const size = `${count(total, "route")} of ${count(hops.length, "update")}` +
      (conditional ? ` (${conditional} conditional)` : "") + ".";
    const flagged = hops.some((hop) => hopFlags(data, hop.from, hop.to).length);
    let shown = "";
    if (total > 1n) {
      shown = hops.some((hop) => hop.alternatives.length)
        ? " Shown: the one through the newest version at each step. Under a step, “Instead of” lists the other " +
          "versions that work there with the rest of the route unchanged."
        : " Shown: the one through the newest version at each step; the others differ from it in more than one step.";
    }
    return el("section", {class: "routes", "data-kind": kind, "data-total": String(total)},
      el("h2", {}, heading),
      el("p", {class: "route-count"}, size + shown),
      flagged
        ? el("p", {class: "notice"}, "Marked updates land on a prerelease or are offered in no stable, eus or " +
            "fast channel; no route of this kind avoids them.")
        : null,
      el("div", {class: "route-box"},
        el("p", {class: "route-summary"}, names.join(" → ")),
        channelsLine(data, stretches),
        el("ol", {class: "route", "data-kind": kind, "data-route": names.join(" ")},
          hops.map((hop, i) => hopItem(data, scope, hop, hops[i + 1], switches.has(i) ? switches.get(i) : null)))));
  }

  function outcome(kind, ...children) {
    result.dataset.outcome = kind;
    result.replaceChildren(...children);
  }

  /* Why no route exists, from what the served graphs show (they cannot show why an update is missing). */
  function explainUnreachable(data, scope, from, to, where, arch) {
    const name = (v) => data.versions[v];
    if (to < from) {  // versions are numbered in SemVer order
      return `Updates only go to newer versions, and ${name(to)} is older than ${name(from)}.`;
    }
    const inScope = (v) => scope === null || data.channels[scope].memberSet.has(v);
    const sources = data.versions.map((_, v) => v)
      .filter((v) => updatesFrom(data, null, v, true).some(([t]) => t === to));
    if (!sources.some(inScope)) {
      if (!sources.length) {
        return `Nothing ${where} updates to ${name(to)} on ${arch}: no served graph has an update into it, ` +
          "so clusters only get there by being installed at it.";
      }
      const elsewhere = new Set(sources.flatMap((v) => servingChannels(data, null, v, to)));
      return `Nothing ${where} updates to ${name(to)} on ${arch}. Updates into it are offered in ` +
        `${Array.from(elsewhere, (c) => channelName(data, c)).join(", ")}: choose “Any channel” to plan across channels.`;
    }
    if (!updatesFrom(data, scope, from, true).length) {
      return `${name(from)} has no updates ${where} on ${arch}: it is a dead end.`;
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
    return `${name(to)} cannot be reached from ${name(from)} ${where} on ${arch}: the ` +
      `${count(seen.size - 1, "version")} reachable from it go up to ${name(Math.max(...seen))}, ` +
      `and none of them updates to ${name(to)}.`;
  }

  /* Is route a better than route b on (flagged updates, updates)? */
  function fewerFlaggedOrShorter(data, a, b) {
    const flagged = (route) => route.hops.filter((hop) => hopFlags(data, hop.from, hop.to).length).length;
    return flagged(a) - flagged(b) || a.hops.length - b.hops.length;
  }

  async function plan() {
    const arch = fields.arch.value;
    const fromName = typedVersion(fields.from.value);
    const toName = typedVersion(fields.to.value);
    fields.from.value = fromName;
    fields.to.value = toName;
    const channelChoice = fields.channel.value;
    if (!fromName || !toName) return;
    const data = await load(arch);
    const where = channelChoice ? `in ${channelChoice}` : "in any channel";
    for (const version of [fromName, toName]) {
      if (!data.number.has(version)) {
        outcome("invalid", el("p", {class: "notice"}, `${version} is not a release served for ${arch} in any channel.`));
        return;
      }
    }
    const from = data.number.get(fromName);
    const to = data.number.get(toName);
    let scope = null;
    if (channelChoice) {
      scope = data.channelNumber.has(channelChoice) ? data.channelNumber.get(channelChoice) : -1;
      const missing = [from, to].filter((v) => scope < 0 || !data.channels[scope].memberSet.has(v));
      if (missing.length) {
        outcome("not-in-channel", ...missing.map((v) => el("p", {class: "notice"},
          `${data.versions[v]} is not in ${channelChoice} on ${arch}, so no route exists there. It is in: `,
          joinNodes(data.channelsOf[v].map((c) => channelName(data, c)), ", "), ".")));
        return;
      }
    }
    if (from === to) {
      outcome("same", el("p", {}, `A cluster at ${fromName} is already at the target.`));
      return;
    }
    const recommended = bestRoute(data, scope, from, to, false, ["flagged", "updates", "conditional"]);
    if (recommended) {
      const sections = [routeSection(data, scope, recommended, "recommended", `Recommended routes ${where} (${arch})`)];
      const risky = bestRoute(data, scope, from, to, true, ["flagged", "updates", "conditional"]);
      const better = fewerFlaggedOrShorter(data, risky, recommended);
      if (better < 0) {
        sections.push(routeSection(data, scope, risky, "shorter-conditional",
          risky.hops.length < recommended.hops.length ? "Shorter, through conditional updates"
            : "Through conditional updates, with fewer prereleases and candidate-only updates"));
      }
      outcome("routes", ...sections);
      return;
    }
    const risky = bestRoute(data, scope, from, to, true, ["flagged", "conditional", "updates"]);
    if (risky) {
      outcome("conditional-only",
        el("p", {class: "notice"}, `No route ${where} (${arch}) uses only recommended updates: ` +
          `every way from ${fromName} to ${toName} includes a conditional update.`),
        routeSection(data, scope, risky, "conditional-only", "Routes with the fewest conditional updates"));
      return;
    }
    outcome("unreachable", el("p", {class: "notice"}, explainUnreachable(data, scope, from, to, where, arch)));
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
  const failed = (error) => outcome("error", el("p", {class: "notice"}, error.message));
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
