/* Update planner rules: the best routes between two versions, from data/planner-<arch>.json (see
   site_gen/render/planner_data.py). The only copy: `site-gen plan` runs this script too, in an embedded
   V8 (site_gen/planner/planner_js.py), so the page and the terminal answer alike by construction;
   tests/data/planner_corpus.json holds the answers to their reference. docs/site.md ("Planner")
   describes how a route is chosen and shown. */
"use strict";

const SiteGenPlanner = (() => {
  const KINDS = ["stable", "eus", "fast", "candidate"];  // which channel to suggest first; others last
  const CANDIDATE_RANK = KINDS.indexOf("candidate");      // ranks below it carry supported releases
  const ANY = "any";
  const SCOPE_CHOICES = [...KINDS, ANY];
  const PREFERENCE = ["flagged", "updates", "conditional"];    // recommended routes and shorter risky ones
  const FEWEST_RISKS = ["flagged", "conditional", "updates"];  // when every route carries a risk
  const PAUSE = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":true}}'";
  const UNPAUSE = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":false}}'";
  const UPGRADEABLE = "oc get clusterversion version -o jsonpath='{.status.conditions[?(@.type==\"Upgradeable\")]}'";

  const channelKind = (name) => name.split("-")[0];

  /* The planner file plus the lookups routes need, added to it once (a file prepared already, or a
     view of one, is returned as it is: plan and planForCluster prepare what they are given). */
  function prepare(data) {
    if (data.number instanceof Map) return data;
    data.number = new Map(data.versions.map((v, i) => [v, i]));
    data.prerelease = data.versions.map((v) => v.includes("-"));  // served versions carry no +build
    data.channelsOf = data.versions.map(() => []);
    data.channels.forEach((channel, c) => {
      channel.memberSet = new Set(channel.members);
      channel.kind = channelKind(channel.name);
      const rank = KINDS.indexOf(channel.kind);
      channel.rank = rank < 0 ? KINDS.length : rank;
      for (const v of channel.members) data.channelsOf[v].push(c);
    });
    data.channelNumber = new Map(data.channels.map((channel, c) => [channel.name, c]));
    data.kinds = KINDS.filter((kind) => data.channels.some((channel) => channel.kind === kind));
    data.flagsOf = new Map();  // hopFlags of each update asked about
    return data;
  }

  const riskNames = (data, list) => data.riskLists[list].map((r) => data.risks[r].name);

  /* Channels of the scope (a Set of channel numbers, or null: any) offering a -> b. */
  function servingChannels(data, scope, a, b) {
    return data.channelsOf[a].filter((c) => (scope === null || scope.has(c)) && data.channels[c].memberSet.has(b));
  }

  function inScope(data, scope, v) {
    return scope === null || data.channelsOf[v].some((c) => scope.has(c));
  }

  /* Updates out of v inside the scope: [target, riskList or -1 for recommended]. */
  function updatesFrom(data, scope, v, withConditional) {
    const holders = data.channelsOf[v].filter((c) => scope === null || scope.has(c)).map((c) => data.channels[c].memberSet);
    const reach = scope === null ? () => true : (t) => holders.some((members) => members.has(t));
    const out = [];
    for (const t of data.recommended[v]) if (reach(t)) out.push([t, -1]);
    if (withConditional) {
      const pairs = data.conditional[v];
      for (let i = 0; i < pairs.length; i += 2) if (reach(pairs[i])) out.push([pairs[i], pairs[i + 1]]);
    }
    return out;
  }

  /* Why an update is a worse step than others, judged on every channel whatever the scope:
     it lands on a prerelease, or no stable, eus or fast channel offers it. */
  function hopFlags(data, a, b) {
    const key = a * data.versions.length + b;  // the channels alone decide: one answer per update, kept
    let flags = data.flagsOf.get(key);
    if (flags === undefined) data.flagsOf.set(key, flags = updateFlags(data, a, b));
    return flags.slice();
  }

  function updateFlags(data, a, b) {
    const flags = [];
    if (data.prerelease[b]) flags.push("prerelease");
    const ranks = servingChannels(data, null, a, b).map((c) => data.channels[c].rank);
    if (ranks.every((rank) => rank >= CANDIDATE_RANK)) {
      flags.push(ranks.every((rank) => rank === CANDIDATE_RANK) ? "candidate channels only" : "no stable, eus or fast channel");
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

  /* A binary heap of [distance, version], nearest first. */
  function heapPush(heap, item) {
    let k = heap.push(item) - 1;
    while (k > 0) {
      const up = (k - 1) >> 1;
      if (heap[up][0] <= item[0]) break;
      heap[k] = heap[up];
      k = up;
    }
    heap[k] = item;
  }

  function heapPop(heap) {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length) {
      let k = 0;
      for (;;) {
        let child = 2 * k + 1;
        if (child >= heap.length) break;
        if (child + 1 < heap.length && heap[child + 1][0] < heap[child][0]) child++;
        if (heap[child][0] >= last[0]) break;
        heap[k] = heap[child];
        k = child;
      }
      heap[k] = last;
    }
    return top;
  }

  /* Dijkstra; returns the predecessors of every version on a cheapest route, or null. Which of
     several equally near versions goes first changes nothing: every cheapest route is kept. */
  function search(data, scope, from, to, withConditional, cost) {
    const dist = new Array(data.versions.length).fill(Infinity);
    const preds = data.versions.map(() => []);
    const frontier = [[0, from]];
    dist[from] = 0;
    while (frontier.length) {
      const [d, v] = heapPop(frontier);
      if (d > dist[v] || v === to) continue;
      for (const [t, risks] of updatesFrom(data, scope, v, withConditional)) {
        const next = d + cost(v, t, risks);
        if (next < dist[t]) {
          dist[t] = next;
          preds[t] = [[v, risks]];
          heapPush(frontier, [next, t]);
        } else if (next === dist[t]) {
          preds[t].push([v, risks]);
        }
      }
    }
    return dist[to] === Infinity ? null : preds;
  }

  /* The channels to set for a -> b: where a stable, eus or fast channel offers it, only those,
     so a candidate channel is never suggested just to save a switch. */
  function hopChannels(data, scope, a, b) {
    const every = servingChannels(data, scope, a, b);
    const supported = every.filter((c) => data.channels[c].rank < CANDIDATE_RANK);
    return supported.length ? supported : every;
  }

  /* stable, eus, fast, then candidate; inside a kind the oldest minor (channels come newest first). */
  const preference = (data, c) => [data.channels[c].rank, -c];

  /* Tuples compared element by element with <, as Python compares them: -1, 0 or 1. */
  function compareTuples(x, y) {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  }

  /* Among the cheapest routes (onward), the one needing the fewest channel settings, then the
     newest version at each step. fewest.get(v).get(c): settings still needed from v to the goal
     when the cluster is set to c at v (anew.get(v) when c serves none of v's next updates). */
  function fewestSwitches(data, scope, from, to, onward) {
    const fewest = new Map();
    const anew = new Map([[to, 0]]);
    const needed = (t, c) => (t === to ? 0 : (fewest.get(t).has(c) ? fewest.get(t).get(c) : anew.get(t)));
    const options = (v) => onward.get(v).flatMap(([t]) => hopChannels(data, scope, v, t).map((c) => [t, c]));
    for (const v of Array.from(onward.keys()).sort((a, b) => b - a)) {  // every t is done before v
      const choices = options(v);
      anew.set(v, Math.min(...choices.map(([t, c]) => 1 + needed(t, c))));
      const own = new Map();
      for (const [t, c] of choices) own.set(c, Math.min(own.has(c) ? own.get(c) : anew.get(v), needed(t, c)));
      fewest.set(v, own);
    }
    const route = [];
    let current = null;
    for (let v = from; v !== to;) {
      const risksOf = new Map(onward.get(v));
      const key = ([t, c]) => [(c !== current ? 1 : 0) + needed(t, c), -t, ...preference(data, c)];
      const [t, c] = options(v).reduce((best, option) => (compareTuples(key(option), key(best)) < 0 ? option : best));
      route.push({from: v, to: t, risks: risksOf.get(t)});
      v = t;
      current = c;
    }
    return route;
  }

  /* Every cheapest route as one route to follow, the number of cheapest routes, and per step the
     other versions that could replace that step's version at the same cost, the rest unchanged. */
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
    for (const v of Array.from(seen).sort((a, b) => a - b)) {  // older versions first: no deep recursion
      if (!counts.has(v)) counts.set(v, preds[v].reduce((sum, [u]) => sum + counts.get(u), 0n));
    }
    const hops = fewestSwitches(data, scope, from, to, onward);
    hops.forEach((hop, k) => {
      hop.alternatives = k + 1 < hops.length ? replacements(data, scope, hop, hops[k + 1], withConditional, cost) : [];
    });
    return {hops, total: counts.get(to)};
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
     Extending each stretch as far as it goes gives the fewest switches. */
  function channelStretches(data, scope, hops) {
    const stretches = [];
    hops.forEach((hop, i) => {
      const serving = hopChannels(data, scope, hop.from, hop.to);
      const last = stretches[stretches.length - 1];
      const common = last ? last.channels.filter((c) => serving.includes(c)) : [];
      if (common.length) {
        last.channels = common;
        last.end = i;
      } else {
        stretches.push({start: i, end: i, channels: serving});
      }
    });
    for (const stretch of stretches) stretch.channels.sort((a, b) => compareTuples(preference(data, a), preference(data, b)));
    return stretches;
  }

  /* Every version some route in the scope leads to from start, start included (unmarked: through
     updates hopFlags does not mark). */
  function reachable(data, scope, start, unmarked = false) {
    const seen = new Set([start]);
    const stack = [start];
    while (stack.length) {
      const v = stack.pop();
      for (const [t] of updatesFrom(data, scope, v, true)) {
        if (!seen.has(t) && !(unmarked && hopFlags(data, v, t).length)) {
          seen.add(t);
          stack.push(t);
        }
      }
    }
    return seen;
  }

  /* ------------------------------------------------------------------ the answer
     A question names the current version, the target (a version, or a minor such as "4.18" for the
     newest release of it the route can reach) and where the cluster may go: a channel kind (stable by
     default: the route switches between stable-x.y channels as an admin would), one channel, or any
     channel. The answer is plain JSON data (site_gen/planner/answer_shape.py describes it), so the page,
     `site-gen plan --format json` and the tests' corpus compare answers as a whole. */
  const typedVersion = (text) => (text || "").trim().replace(/^v(?=\d)/i, "");
  const count = (number, noun) => `${number.toLocaleString("en")} ${number == 1 ? noun : noun + "s"}`;

  function scopeOf(data, question) {
    if (question.channel) {
      const c = data.channelNumber.get(question.channel);
      return [new Set(c === undefined ? [] : [c]), `in ${question.channel}`];
    }
    if (question.kind === ANY) return [null, "in any channel"];
    return [new Set(data.channels.flatMap((channel, c) => (channel.kind === question.kind ? [c] : []))),
      `in ${question.kind} channels`];
  }

  function notInScope(data, question, v) {
    const holders = data.channelsOf[v].map((c) => data.channels[c].name).join(", ");
    const name = data.versions[v];
    if (question.channel) {
      const kind = channelKind(question.channel);
      const hint = KINDS.includes(kind) && data.channelsOf[v].some((c) => data.channels[c].kind === kind)
        ? ` Choose the channel kind ${kind} to switch between ${kind} channels on the way.` : "";
      return `${name} is not in ${question.channel} on ${data.arch}, so no route exists there. ` +
        `It is in: ${holders}.${hint}`;
    }
    const kinds = KINDS.filter((kind) => data.channelsOf[v].some((c) => data.channels[c].kind === kind));
    return `${name} is in no ${question.kind} channel on ${data.arch}, so no route exists there. It is in: ` +
      `${holders}. Choose the channel kind ${kinds.join(" or ") || "any"} to plan there.`;
  }

  /* Why no route exists, from what the served graphs show (they cannot show why an update is missing). */
  function explainUnreachable(data, question, scope, from, to, where) {
    const name = (v) => data.versions[v];
    const arch = data.arch;
    if (to < from) return `Updates only go to newer versions, and ${name(to)} is older than ${name(from)}.`;
    const sources = data.versions.map((_, v) => v)
      .filter((v) => updatesFrom(data, null, v, true).some(([t]) => t === to));
    if (!sources.some((v) => inScope(data, scope, v) && updatesFrom(data, scope, v, true).some(([t]) => t === to))) {
      if (!sources.length) {
        return `Nothing ${where} updates to ${name(to)} on ${arch}: no served graph has an update into it, ` +
          "so clusters only get there by being installed at it.";
      }
      const elsewhere = Array.from(new Set(sources.flatMap((v) => servingChannels(data, null, v, to)))).sort((a, b) => a - b);
      const advice = question.channel || question.kind === ANY ? "choose “Any channel” to plan across channels"
        : "choose another channel kind or “Any channel”";
      return `Nothing ${where} updates to ${name(to)} on ${arch}. Updates into it are offered in ` +
        `${elsewhere.map((c) => data.channels[c].name).join(", ")}: ${advice}.`;
    }
    if (!updatesFrom(data, scope, from, true).length) return `${name(from)} has no updates ${where} on ${arch}: it is a dead end.`;
    const seen = reachable(data, scope, from);
    const others = seen.size - 1;
    const newest = name(Math.max(...seen));
    const reach = others === 1 ? `the only version reachable from it is ${newest}, and it does not update`
      : `the ${count(others, "version")} reachable from it go up to ${newest}, and none of them updates`;
    return `${name(to)} cannot be reached from ${name(from)} ${where} on ${arch}: ${reach} to ${name(to)}.`;
  }

  function fewerFlaggedOrShorter(data, a, b) {
    const flagged = (found) => found.hops.filter((hop) => hopFlags(data, hop.from, hop.to).length).length;
    return flagged(a) - flagged(b) || a.hops.length - b.hops.length;
  }

  /* How a replacement's two updates differ from the route's: their risks and flags ("then" for the second). */
  function alternativeNotes(data, alternative, route) {
    const notes = [];
    alternative.hops.forEach(([a, b, risks], i) => {
      if (i >= route.length) return;
      const [ra, rb, routeRisks] = route[i];
      const then = i ? "then " : "";
      if (risks >= 0 && risks !== routeRisks) notes.push(then + "conditional: " + riskNames(data, risks).join(", "));
      else if (risks < 0 && routeRisks >= 0) notes.push(then + "recommended");
      const usual = new Set(hopFlags(data, ra, rb));
      notes.push(...hopFlags(data, a, b).filter((flag) => !usual.has(flag)).map((flag) => then + flag));
    });
    return notes;
  }

  /* Answer objects are plain JSON data; what only the page needs (risk numbers) is not enumerable. */
  const hidden = (object, name, value) =>
    Object.defineProperty(object, name, {value, enumerable: false, configurable: true, writable: true});

  function section(data, scope, found, kind, heading) {
    const {hops, total} = found;
    const stretches = channelStretches(data, scope, hops);
    const setAt = new Map(stretches.map((s) => [s.start, data.channels[s.channels[0]].name]));
    const conditional = hops.filter((hop) => hop.risks >= 0).length;
    let size = `${count(total, "route")} of ${count(hops.length, "update")}` +
      (conditional ? ` (${conditional} conditional)` : "") + ".";
    if (total > 1n) {
      size += hops.some((hop) => hop.alternatives.length)
        ? " Shown: the one through the newest version at each step. Under a step, “Instead of” lists the other " +
          "versions that work there with the rest of the route unchanged."
        : " Shown: the one through the newest version at each step; the others differ from it in more than one step.";
    }
    const notices = [];
    if (hops.some((hop) => hopFlags(data, hop.from, hop.to).length)) {
      notices.push("Marked updates land on a prerelease or are offered in no stable, eus or fast channel; " +
        "no route of this kind avoids them.");
    }
    const preferred = stretches.map((s) => data.channels[s.channels[0]].name);
    const kindKey = (k) => [KINDS.includes(k) ? KINDS.indexOf(k) : KINDS.length, k];
    const kinds = Array.from(new Set(preferred.map(channelKind))).sort((a, b) => compareTuples(kindKey(a), kindKey(b)));
    if (scope === null) {
      notices.push(`Any channel: this route is set to ${kinds.join(" and ")} channels, whatever the ` +
        "cluster's kind. Choose a channel kind to stay within it.");
    }
    const out = hops.map((hop, i) => {
      const following = hops[i + 1];
      const routePair = [[hop.from, hop.to, hop.risks], ...(following ? [[hop.to, following.to, following.risks]] : [])];
      const entry = {
        from: data.versions[hop.from], to: data.versions[hop.to],
        risks: hop.risks >= 0 ? riskNames(data, hop.risks) : [],
        channels: servingChannels(data, scope, hop.from, hop.to).map((c) => data.channels[c].name),
        set: setAt.has(i) ? setAt.get(i) : null,
        flags: hopFlags(data, hop.from, hop.to),
        alternatives: hop.alternatives.map((alt) => ({version: data.versions[alt.version],
                                                      notes: alternativeNotes(data, alt, routePair)})),
      };
      return hidden(entry, "riskList", hop.risks);
    });
    let channelsLine;
    if (stretches.length === 1) {
      const others = stretches[0].channels.slice(1).map((c) => data.channels[c].name);
      channelsLine = `One channel serves every update of this route: ${preferred[0]}` +
        (others.length ? ` (also ${others.join(", ")}).` : ".");
    } else {
      const updates = (s) => (s.start === s.end ? `update ${s.start + 1}` : `updates ${s.start + 1}–${s.end + 1}`);
      channelsLine = "No one channel serves every update, so the cluster switches channel on the way: " +
        stretches.map((s, i) => `${preferred[i]} for ${updates(s)}`).join(", then ") + ".";
    }
    return {kind, heading, total: String(total), size, notices,
            route: [data.versions[hops[0].from], ...hops.map((hop) => data.versions[hop.to])],
            channels: preferred, channelsLine, hops: out};
  }

  /* The newest release of minor a route in the scope reaches (else the newest there). */
  function resolveTarget(data, scope, from, minor, where) {
    const members = data.versions.map((_, v) => v)
      .filter((v) => data.versions[v].split(".").slice(0, 2).join(".") === minor && inScope(data, scope, v));
    if (!members.length) return [null, `No ${minor} release is served ${where} on ${data.arch}.`];
    const reach = reachable(data, scope, from);
    const reached = members.filter((v) => reach.has(v));
    if (reached.length) {
      const v = Math.max(...reached);
      // a release reached without marked updates (prereleases, candidate-only) beats a newer one that is not
      const unmarked = reachable(data, scope, from, true);
      const clean = members.filter((w) => unmarked.has(w));
      if (clean.length && Math.max(...clean) !== v) {
        const w = Math.max(...clean);
        return [w, `Target: ${data.versions[w]}, the newest ${minor} release reachable ${where} without a marked ` +
          `update (${data.versions[v]} is newer, but only reached through one).`];
      }
      return [v, `Target: ${data.versions[v]}, the newest ${minor} release reachable ${where}.`];
    }
    const v = Math.max(...members);
    return [v, `Target: ${data.versions[v]}, the newest ${minor} release ${where}.`];
  }

  const minorOf = (version) => Number(version.split(".")[1]);

  /* The admin-ack of the Kubernetes API removals from 4.<minor> to the next minor (the cluster's Upgradeable condition has the exact key). */
  const ackCommand = (minor) => "oc -n openshift-config patch cm admin-acks --patch " +
    `'{"data":{"ack-4.${minor}-kube-1.${minor + 14}-api-removals-in-4.${minor + 1}":"true"}}' --type=merge`;

  /* EUS-to-EUS updates as Red Hat documents them ("Control plane only update"): operators installed with
     OLM updated first, every machine config pool checked UPDATED, the worker pools paused, `oc` updated to
     each update's release before it, the admin-acks given, the control plane updated through the odd minor
     to the next even one (each update waited for until the cluster version completes and every pool but
     the paused workers is UPDATED), then the worker pools unpaused: the workers update, and reboot, once
     per step. A step ends on an even minor: updates landing on 4.15 or 4.16 belong to the step towards
     4.16. Updates inside the starting minor come first and are ordinary updates; a step that stays in one
     minor (from 4.15 to 4.16) is an ordinary minor update and pauses nothing. Each step is
     {text, commands}: the commands are shown as code to copy. */
  /* What the "update the operators" step adds when the cluster's operators were given. */
  function operatorsStep(operators) {
    if (operators === null || operators === undefined) return "";
    if (!operators.length) return " None of the cluster's operators given needs an update first.";
    return ` Update these first: ${operators.join("; ")}.`;
  }

  /* operators: the cluster's operators to update first, with their target bundles, when given. */
  /* EUS-to-EUS only between two even (EUS) minors; any other pair is a control plane only update
     through the odd minors, which is what the steps are. */
  function procedureHeading(routeSection) {
    const first = minorOf(routeSection.hops[0].from), last = minorOf(routeSection.hops[routeSection.hops.length - 1].to);
    if (first % 2 === 0 && last % 2 === 0) return "EUS-to-EUS: the steps in order";
    return `4.${first} to 4.${last} (not an EUS-to-EUS pair: EUS minors are even): the steps in order`;
  }

  function eusProcedure(routeSection, operators = null) {
    const hops = routeSection.hops;
    const start = minorOf(hops[0].from);
    if (hops.every((hop) => minorOf(hop.to) === start)) return [];
    const steps = [];
    const step = (text, ...commands) => steps.push({text, commands});
    const update = (hop, what, paused, client = false) => {
      if (hop.set) step(`Set the cluster's channel to ${hop.set}.`, `oc adm upgrade channel ${hop.set}`);
      // Red Hat's procedure: oc at the target's version before each minor update
      if (client) step(`Update the oc client to ${hop.to}'s (the command shows the one you have).`, "oc version --client");
      const pools = paused ? "every machine config pool except the paused worker pools" : "every machine config pool";
      step(`Update ${what} to ${hop.to}, then wait until the cluster version reports it completed and ` +
        `${pools} is UPDATED.`, `oc adm upgrade --to=${hop.to}`, "oc get clusterversion", "oc get mcp");
    };
    const stages = [];
    for (const hop of hops) {
      const minor = minorOf(hop.to);
      if (minor === start) {
        update(hop, "the cluster", false);
        continue;
      }
      const even = minor + (minor % 2);
      const last = stages[stages.length - 1];
      if (last && last.even === even) last.hops.push(hop);
      else stages.push({even, hops: [hop]});
    }
    stages.forEach(({even, hops: stageHops}, number) => {
      const first = minorOf(stageHops[0].from);
      const paused = new Set(stageHops.map((hop) => minorOf(hop.to))).size > 1;
      const last = stageHops[stageHops.length - 1].to;
      // "Before you start" once; a later step has its own "before this step"
      const before = number === 0 ? "Before you start" : `Before the step to 4.${even}`;
      if (paused) {
        step(`${before}: update the operators installed with OLM to versions that are compatible ` +
          `with both 4.${first} and 4.${even}, and with 4.${even - 1} on the way (the first command lists ` +
          "them with their versions)." + (number === 0 ? operatorsStep(operators) : ""), "oc get csv -A");
        step("Check that every machine config pool is UPDATED and none is UPDATING or DEGRADED: a pool " +
          "paused in the middle of an update stays there.", "oc get mcp");
        step(`Pause the worker pools, so that the workers update, and reboot, once: to ${last}.`, PAUSE);
      } else if (operators && operators.length && number === 0) {  // an ordinary minor update
        step(`${before}: update the operators installed with OLM that block 4.${even} or have ` +
          "updates." + operatorsStep(operators), "oc get csv -A");
      }
      const acks = [];
      for (let minor = first; minor < even; minor++) acks.push(ackCommand(minor));
      step("Give the admin-acks the updates need: the cluster's Upgradeable condition (the first command) names " +
        "each key it waits for; the keys below are the usual ones, use the condition's if they differ. " +
        "An update that needs none shows Upgradeable True.", UPGRADEABLE, ...acks);
      for (const hop of stageHops) update(hop, paused ? "the control plane" : "the cluster", paused, true);
      if (paused) {
        step("Unpause the worker pools, then wait until every machine config pool is UPDATED: the workers " +
          `update, once, to ${last}.`, UNPAUSE, "oc get mcp");
      }
    });
    return steps;
  }

  /* question: {source, target, kind, channel}; data: a prepared planner file. */
  function plan(data, question) {
    prepare(data);
    const answer = {outcome: "", arch: data.arch, from: typedVersion(question.source), to: typedVersion(question.target),
                    where: "", message: null, notes: [], sections: [], procedure: []};
    const done = (outcome, message = null) => Object.assign(answer, {outcome, message});
    if (!SCOPE_CHOICES.includes(question.kind) && !question.channel) {
      return done("invalid", `Unknown channel kind '${question.kind}': choose one of ${SCOPE_CHOICES.join(", ")}.`);
    }
    const [scope, where] = scopeOf(data, question);
    answer.where = where;
    if (scope !== null && !question.channel && !scope.size) {
      return done("invalid", `${data.arch} has no ${question.kind} channel: choose one of ${[...data.kinds, ANY].join(", ")}.`);
    }
    const minorTarget = /^\d+\.\d+$/.test(answer.to);
    for (const name of [answer.from, ...(minorTarget ? [] : [answer.to])]) {
      if (!data.number.has(name)) return done("invalid", `${name} is not a release served for ${data.arch} in any channel.`);
    }
    const from = data.number.get(answer.from);
    const missing = [from, ...(minorTarget ? [] : [data.number.get(answer.to)])].filter((v) => !inScope(data, scope, v));
    if (missing.length) return done("not-in-channel", missing.map((v) => notInScope(data, question, v)).join(" "));
    if (minorTarget) {
      const [resolved, note] = resolveTarget(data, scope, from, answer.to, where);
      if (resolved === null) return done("invalid", note);
      answer.to = data.versions[resolved];
      answer.notes.push(note);
    }
    const to = data.number.get(answer.to);
    if (from === to) return done("same", `A cluster at ${answer.from} is already at the target.`);
    const label = `${where} (${data.arch})`;
    const recommended = bestRoute(data, scope, from, to, false, PREFERENCE);
    let outcome;
    if (recommended) {
      answer.sections.push(section(data, scope, recommended, "recommended", `Recommended routes ${label}`));
      const risky = bestRoute(data, scope, from, to, true, PREFERENCE);
      if (risky && fewerFlaggedOrShorter(data, risky, recommended) < 0) {
        answer.sections.push(section(data, scope, risky, "shorter-conditional",
          risky.hops.length < recommended.hops.length ? "Shorter, through conditional updates"
            : "Through conditional updates, with fewer prereleases and candidate-only updates"));
      }
      outcome = "routes";
    } else {
      const risky = bestRoute(data, scope, from, to, true, FEWEST_RISKS);
      if (!risky) return done("unreachable", explainUnreachable(data, question, scope, from, to, where));
      answer.message = `No route ${label} uses only recommended updates: every way from ` +
        `${answer.from} to ${answer.to} includes a conditional update.`;
      answer.sections.push(section(data, scope, risky, "conditional-only", "Routes with the fewest conditional updates"));
      outcome = "conditional-only";
    }
    if (question.kind === "eus" && !question.channel) answer.procedure = eusProcedure(answer.sections[0]);
    answer.outcome = outcome;
    return answer;
  }

  return {KINDS, ANY, SCOPE_CHOICES, prepare, plan, typedVersion, eusProcedure, procedureHeading, compareTuples};
})();

/* Plan for one cluster from its own ClusterVersion (`oc get clusterversion version -o json`, or -o yaml).
   The document gives the version the cluster runs or is updating to, its channel, its architecture
   (status.desired.architecture is Multi on multi clusters; otherwise the image digest is looked up among
   the site's payloads), its upstream, its history, and in status.conditionalUpdates the cluster's own
   evaluation of every conditional update it is offered (Recommended True, False or Unknown). The first
   update of the route uses those evaluations: True counts as recommended, False is avoided while another
   route exists, Unknown stays conditional. Later updates that carry a risk with the same name and rules
   as one the cluster evaluated show that evaluation as a hint, marked as not re-evaluated.
   On the page everything happens there: the pasted text is never sent anywhere. `site-gen plan
   --cluster` runs these same functions (site_gen/planner/planner_js.py). */
const SiteGenCluster = (() => {
  const {plan, KINDS} = SiteGenPlanner;
  const RECOMMENDED_TEXT = {True: "does not apply", False: "applies", Unknown: "could not be evaluated"};

  class ClusterError extends Error {
    constructor(message, detail = "") {
      super(message);
      this.name = "ClusterError";
      this.detail = detail;
    }
  }

  const ARCH_NOT_KNOWN = "The cluster's image is not a payload this site serves, so its architecture is not known: " +
    "choose it.";
  const NOT_CLUSTER_VERSION = "This is not a ClusterVersion: expected the output of " +
    "“oc get clusterversion version -o json”.";

  /* Whether the brackets of JSON text (outside strings) nest more than SiteGenYaml.MAX_DEPTH levels:
     site_gen/inputs/bounded_json.py's bound, so that no document is deeper than the YAML reader allows. */
  function tooDeep(text) {
    let depth = 0;
    for (const [token] of text.matchAll(/"[^"\\]*(?:\\.[^"\\]*)*"|[[\]{}]/g)) {
      if (token === "[" || token === "{") {
        if (++depth > SiteGenYaml.MAX_DEPTH) return true;
      } else if (token === "]" || token === "}") {
        depth--;
      }
    }
    return false;
  }

  /* JSON, else the YAML `oc get -o yaml` writes (block mappings and sequences, plain, quoted and
     block scalars); a mapping either way, else ClusterError(notMapping); nested at most
     SiteGenYaml.MAX_DEPTH levels either way. */
  function parseDocument(text, notMapping) {
    if (/^\s*[{[]/.test(text) && tooDeep(text)) {
      throw new ClusterError(`Could not read the text as JSON: it is nested more than ${SiteGenYaml.MAX_DEPTH} levels deep.`);
    }
    let document;
    try {
      document = JSON.parse(text);
    } catch (jsonError) {
      try {  // YAML, also in flow style ({kind: ClusterVersion, ...} starts as JSON does)
        document = SiteGenYaml.parse(text);
      } catch (yamlError) {
        if (yamlError.bound) throw new ClusterError("Could not read the text as YAML.", yamlError.message);
        if (/^\s*[{[]/.test(text)) throw new ClusterError("Could not read the text as JSON.", jsonError.message);
        throw new ClusterError("Could not read the text as JSON or YAML.", yamlError.message);
      }
    }
    if (document === null || typeof document !== "object" || Array.isArray(document)) {
      throw new ClusterError(notMapping);
    }
    return document;
  }

  const isMapping = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  /* document[path[0]][path[1]]...; undefined where a step is not a mapping or lacks the key. */
  const field = (document, ...path) => path.reduce((value, key) => (isMapping(value) ? value[key] : undefined), document);
  const text = (value) => (typeof value === "string" ? value : "");

  function readCluster(document, payloads) {
    if (document.kind !== "ClusterVersion") {
      const kind = document.kind;
      throw new ClusterError("This is not a ClusterVersion" +
        (typeof kind === "string" && kind ? `: its kind is ${kind}.` : ": it has no kind.") +
        " Paste the output of “oc get clusterversion version -o json”.");
    }
    const version = text(field(document, "status", "desired", "version"));
    if (!version) throw new ClusterError("status.desired.version is missing: paste the whole ClusterVersion, with its status.");
    const image = text(field(document, "status", "desired", "image"));
    const architecture = text(field(document, "status", "desired", "architecture"));
    const notes = [];
    let arch;
    let source;
    if (architecture) {
      [arch, source] = [architecture === "Multi" ? "multi" : architecture.toLowerCase(), "architecture"];
      const digest = image.split("@").pop();
      const known = image.includes("@") && payloads && Object.hasOwn(payloads, digest) ? payloads[digest] : null;
      if (arch === "multi" && known && known.arch !== "multi") {  // a multi cluster runs the multi payload
        notes.push(`The cluster says it is Multi, but its image is the ${known.arch} payload of ` +
          `${known.version} on this site, not the multi payload of ${version}: it runs ` +
          `${known.arch} only. Check status.desired.image.`);
      } else if (known && arch !== "multi" && known.arch !== arch) {
        notes.push(`The cluster says it runs ${architecture}, but its image is the ${known.arch} payload ` +
          `of ${known.version} on this site. Check status.desired.image.`);
      } else if (known && known.version !== version) {
        notes.push(`The cluster's image is the payload of ${known.version} on this site, but it says it runs ${version}.`);
      } else if (!known) {
        notes.push("The cluster's image is not a payload this site serves, so it cannot be checked " +
          `against ${version} on ${architecture}: check status.desired.image (a mirror's image, ` +
          "or a payload this site does not publish).");
      }
    } else {
      const digest = image.split("@").pop();
      const known = image.includes("@") && payloads && Object.hasOwn(payloads, digest) ? payloads[digest] : null;
      if (known) {
        [arch, source] = [known.arch, "image"];
        if (known.version !== version) {
          notes.push(`The cluster's image is the payload of ${known.version} on this site, but it says it runs ${version}.`);
        }
      } else {
        [arch, source] = ["", "none"];
        notes.push(ARCH_NOT_KNOWN);
      }
    }
    const channel = text(field(document, "spec", "channel"));
    const rawHistory = field(document, "status", "history");
    const history = Array.isArray(rawHistory) ? rawHistory : [];
    let updating = null;
    if (history.length && isMapping(history[0]) && history[0].state === "Partial") {
      const previous = history.slice(1).filter((entry) => isMapping(entry) && entry.state === "Completed")
        .map((entry) => text(entry.version))[0] || "";
      updating = {from: previous, to: text(history[0].version) || version};
      notes.push(`The cluster is updating${previous ? " from " + previous : ""} to ${updating.to}: ` +
        `the plan starts at ${version}, where it is going. Let that update finish first.`);
    }
    const evaluations = [];
    const listed = field(document, "status", "conditionalUpdates");
    for (const entry of Array.isArray(listed) ? listed : []) {
      if (!isMapping(entry)) continue;
      const target = text(field(entry, "release", "version"));
      const condition = (Array.isArray(entry.conditions) ? entry.conditions : [])
        .find((c) => isMapping(c) && c.type === "Recommended") || {};
      const status = text(condition.status);
      const risks = (Array.isArray(entry.risks) ? entry.risks : []).filter(isMapping)
        .map((risk) => ({name: text(risk.name), rules: risk.matchingRules || []}));
      if (target) {
        evaluations.push({version: target, status: Object.hasOwn(RECOMMENDED_TEXT, status) ? status : "Unknown",
                          reason: text(condition.reason), message: text(condition.message), risks});
      }
    }
    evaluations.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    return {version, image, arch, archFrom: source, channel, upstream: text(field(document, "spec", "upstream")),
            updating, evaluations, notes};
  }

  /* JSON with sorted keys and no spaces, as Python's json.dumps(sort_keys=True, separators=(",", ":")). */
  function canonical(value) {
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    if (isMapping(value)) {
      return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
    }
    return JSON.stringify(value);
  }

  const channelMinor = (name) => {
    const match = /-(\d+)\.(\d+)$/.exec(name);
    return match ? `${Number(match[1])}.${Number(match[2])}` : null;
  };

  function clusterQuestion(data, cluster, target, kind) {
    const notes = [];
    const channel = cluster.channel;
    if (!channel) {
      notes.push("The cluster has no channel set (spec.channel), so it is offered no updates: set one. " +
        "Planning in stable channels.");
    } else if (!data.channelNumber.has(channel)) {
      notes.push(`This site has no channel ${channel} on ${data.arch}: the cluster's channel is not served here.`);
    }
    let clusterKind = channel ? channel.split("-")[0] : "stable";
    if (channel && !KINDS.includes(clusterKind)) {
      notes.push(`${channel} is not a stable, eus, fast or candidate channel: planning in stable channels.`);
      clusterKind = "stable";
    }
    if (!target) target = (channel && channelMinor(channel)) || cluster.version;
    return [{source: cluster.version, target, kind: kind || clusterKind, channel: null}, notes];
  }

  /* One of these risks (same name and rules) found applying on another
     conditional update, as surely as a lone risk says it. */
  function appliesElsewhere(data, evaluations, riskList) {
    return data.riskLists[riskList].some((r) => {
      const risk = data.risks[r];
      return evaluations.some((evaluation) => evaluation.status === "False" &&
        evaluation.risks.some((e) => e.name === risk.name && canonical(e.rules) === canonical(risk.rules || [])) &&
        evidence(evaluation, risk.name)[0] === 2);
    });
  }

  function firstHopView(data, source, evaluations, avoid) {
    const view = Object.assign(Object.create(Object.getPrototypeOf(data)), data);
    view.recommended = data.recommended.slice();
    view.conditional = data.conditional.slice();
    const status = new Map(evaluations.filter((e) => data.number.has(e.version))
      .map((e) => [data.number.get(e.version), e.status]));
    const pairs = data.conditional[source];
    const kept = [];
    const promoted = [];
    for (let i = 0; i < pairs.length; i += 2) {
      const [t, risks] = [pairs[i], pairs[i + 1]];
      if (status.get(t) === "True") promoted.push(t);
      else if (avoid && (status.get(t) === "False" || appliesElsewhere(data, evaluations, risks))) continue;
      else kept.push(t, risks);
    }
    view.recommended[source] = [...data.recommended[source], ...promoted].sort((a, b) => a - b);
    view.conditional[source] = kept;
    return view;
  }

  /* How strongly an evaluation speaks of one of its risks, and what it says: Recommended=True clears
     every risk; False on a lone risk (or naming it as the reason) says it applies; False on several
     risks only says one of them applies; Unknown says nothing. */
  function evidence(evaluation, name) {
    const status = evaluation.status;
    if (status === "True" || (status === "False" && (evaluation.risks.length === 1 || evaluation.reason === name))) {
      return [2, RECOMMENDED_TEXT[status]];
    }
    if (status === "False") return [1, "may apply (one of several risks applies)"];
    return [0, RECOMMENDED_TEXT[status]];
  }

  /* For each risk of a later update, the strongest evaluation of the same risk (first in version order among equals). */
  function hints(data, cluster, risksOfHop, own = null) {
    const found = [];
    for (const r of risksOfHop) {
      const risk = data.risks[r];
      let best = null;
      const floor = own !== null ? evidence(own, risk.name)[0] : -1;  // the first update: stronger evidence only
      for (const evaluation of cluster.evaluations) {
        if (evaluation === own) continue;
        if (!evaluation.risks.some((e) => e.name === risk.name && canonical(e.rules) === canonical(risk.rules || []))) continue;
        const [strength, verdict] = evidence(evaluation, risk.name);
        if (strength > floor && (best === null || strength > best.strength)) best = {strength, verdict, evaluation};
      }
      if (best !== null) {
        const {verdict, evaluation} = best;
        found.push({risk: risk.name, status: evaluation.status, verdict,
                    text: `evaluated at ${cluster.version} for the update to ${evaluation.version}: ${verdict} ` +
                      "(not evaluated again for this update)"});
      }
    }
    return found;
  }

  const originalRisks = (data, a, b) => {
    const pairs = data.conditional[a];
    for (let k = 0; k < pairs.length; k += 2) if (pairs[k] === b) return pairs[k + 1];
    return null;
  };

  /* Without a channel the cluster is offered nothing and has no minor to aim for: ask for both. */
  function noChannel(data, cluster) {
    return {outcome: "no-channel", arch: data.arch, from: cluster.version, to: "", where: "",
            message: "The cluster has no channel set (spec.channel), so it is offered no updates and its " +
              "minor to aim for is not known: choose a target above (a version, or a minor such as " +
              "4.16) and set the cluster's channel, for example “oc adm upgrade channel stable-4.16”.",
            notes: [], sections: [], procedure: [], cluster: {...cluster, kind: "stable", target: ""}};
  }

  function planForCluster(data, cluster, target = "", kind = null) {
    SiteGenPlanner.prepare(data);
    if (!cluster.channel && !target) return noChannel(data, cluster);
    const [question, notes] = clusterQuestion(data, cluster, target, kind);
    const source = data.number.has(cluster.version) ? data.number.get(cluster.version) : null;
    let answer;
    if (source === null) {
      notes.push(`The cluster runs ${cluster.version}, which this site does not serve on ${data.arch}: ` +
        "it cannot plan from there (a mirror missing that release?).");
      answer = plan(data, question);
    } else {
      answer = plan(firstHopView(data, source, cluster.evaluations, true), question);
      if (!["routes", "conditional-only", "same"].includes(answer.outcome) &&
          cluster.evaluations.some((e) => e.status === "False")) {
        answer = plan(firstHopView(data, source, cluster.evaluations, false), question);
        notes.push("Every route starts with an update whose risks apply to this cluster.");
      }
    }
    const evaluated = new Map(cluster.evaluations.map((e) => [e.version, e]));
    if (source !== null) {
      const pairs = data.conditional[source];
      const servedFrom = new Set();
      for (let i = 0; i < pairs.length; i += 2) servedFrom.add(data.versions[pairs[i]]);
      for (const version of evaluated.keys()) {
        if (!servedFrom.has(version)) {
          notes.push(`The cluster is offered ${version} as a conditional update, but this site serves no ` +
            `conditional update from ${cluster.version} to it.`);
        }
      }
    }
    for (const section of answer.sections) {
      section.hops.forEach((hop, i) => {
        const [a, b] = [data.number.get(hop.from), data.number.get(hop.to)];
        const original = originalRisks(data, a, b);
        if (i === 0 && hop.from === cluster.version && evaluated.has(hop.to)) {
          const e = evaluated.get(hop.to);
          hop.evaluation = {status: e.status, reason: e.reason, message: e.message, verdict: RECOMMENDED_TEXT[e.status]};
          if (original !== null) {
            hop.risks = data.riskLists[original].map((r) => data.risks[r].name);
            Object.defineProperty(hop, "riskList", {value: original, enumerable: false, configurable: true});
            const found = hints(data, cluster, data.riskLists[original], e);
            if (found.length) hop.hints = found;
          }
        } else if (original !== null) {
          const found = hints(data, cluster, data.riskLists[original]);
          if (found.length) hop.hints = found;
        }
      });
      if (section.hops.length && section.hops[0].set === cluster.channel) section.hops[0].set = null;
    }
    // without the channel setting the cluster has already
    if (answer.procedure.length) answer.procedure = SiteGenPlanner.eusProcedure(answer.sections[0]);
    const readNotes = cluster.notes.map((note) => (note === ARCH_NOT_KNOWN  // the architecture was chosen
      ? `${ARCH_NOT_KNOWN.slice(0, -"choose it.".length)}planning for ${data.arch}, as chosen.` : note));
    answer.cluster = {...cluster, notes: [...readNotes, ...notes], kind: question.kind, target: question.target};
    return answer;
  }

  /* Whether the cluster reads this site: only the page knows its own address. */
  function upstreamNote(upstream, siteUrl) {
    if (!upstream) return "The cluster reads Red Hat's update service (spec.upstream is not set), not this site.";
    if (siteUrl && !upstream.startsWith(siteUrl.replace(/\/+$/, ""))) {
      return `The cluster's upstream is ${upstream}, not this site (${siteUrl}): it may be offered other updates.`;
    }
    return `The cluster's upstream is ${upstream}.`;
  }

  /* parseDocument for a caller outside the page (site-gen plan): {document}, or what a ClusterError
     says as data ({error, detail}), which the caller reports as its own. */
  function parseDocumentOrRefusal(text, notMapping) {
    try {
      return {document: parseDocument(text, notMapping)};
    } catch (error) {
      if (error instanceof ClusterError) return {error: error.message, detail: error.detail};
      throw error;
    }
  }

  return {ClusterError, parseDocument, parseDocumentOrRefusal, isMapping, field, readCluster, planForCluster,
          upstreamNote, NOT_CLUSTER_VERSION};
})();
