/* Update planner page: reads the form (or the URL), asks SiteGenPlanner (planner-rules.js) and
   shows its answer. The answer object is also left in window.plannerAnswer, as plain data. */
"use strict";

(() => {
  const {el, fetchJSON, count, releaseLink, riskItem, joinNodes} = SiteGen;
  const {prepare, plan, typedVersion, ANY} = SiteGenPlanner;
  const form = document.getElementById("planner-form");
  const result = document.getElementById("planner-result");
  const fields = {arch: form.elements.arch, from: form.elements.from, to: form.elements.to,
                  kind: form.elements.kind, channel: form.elements.channel};
  const datalist = document.getElementById("planner-versions");
  const root = form.dataset.root;
  const releases = form.dataset.releases;
  const SHOWN_ALTERNATIVES = 8;  // the rest of a step's list is folded away
  const SHOWN_FINDINGS = 8;  // the operators' lines on the first screen of a phone
  const loaded = new Map();

  function load(arch) {
    if (!loaded.has(arch)) {
      loaded.set(arch, fetchJSON(`${form.dataset.planner}planner-${encodeURIComponent(arch)}.json`).then(prepare));
    }
    return loaded.get(arch);
  }

  const versionLink = (name) => releaseLink(releases, name);

  function alternativesLine(hop) {
    const items = hop.alternatives.map((alt) => el("span", {class: "alternative"}, versionLink(alt.version),
      alt.notes.length ? ` (${alt.notes.join("; ")})` : ""));
    const shown = items.slice(0, SHOWN_ALTERNATIVES);
    const folded = items.slice(SHOWN_ALTERNATIVES);
    return el("div", {class: "hop-alternatives"},
      el("span", {class: "alternatives-label"}, `Instead of ${hop.to}: `),
      joinNodes(shown, ", "),
      folded.length
        ? el("details", {}, el("summary", {}, count(folded.length, "older version")), joinNodes(folded, ", "))
        : null);
  }

  function hopItem(data, hop, first) {
    const conditional = hop.riskList >= 0;
    let setLine = null;
    if (hop.set && first) {
      setLine = el("p", {class: "hop-switch hop-set"}, "Set the cluster's channel to ", el("strong", {}, hop.set),
        " before this update, if it is not set already.");
    } else if (hop.set) {
      setLine = el("p", {class: "hop-switch"}, "Switch the cluster's channel to ", el("strong", {}, hop.set),
        " before this update.");
    }
    return el("li", {class: conditional ? "hop conditional" : "hop",
                     "data-alternatives": hop.alternatives.map((alt) => alt.version).join(" "),
                     "data-flags": hop.flags.join(", "), "data-switch": first ? null : hop.set,
                     "data-channel": hop.set},
      setLine,
      el("span", {class: "hop-versions"}, versionLink(hop.from), " → ", versionLink(hop.to)), " ",
      el("span", {class: "badge"}, hop.evaluation && hop.evaluation.status === "True" ? "recommended for this cluster"
        : conditional ? "conditional" : "recommended"), " ",
      hop.flags.flatMap((flag) => [el("span", {class: "badge badge-warning"}, flag), " "]),
      el("span", {class: "hop-channels"}, "in " + hop.channels.join(", ")),
      hop.evaluation ? evaluationLine(hop.evaluation) : null,
      conditional
        ? el("ul", {class: "risks"},
             data.riskLists[hop.riskList].map((r) => riskItem(data.risks[r], root + data.risks[r].page)))
        : null,
      (hop.hints || []).map((hint) => el("p", {class: "hop-hint", "data-status": hint.status,
                                                "data-verdict": hint.verdict},
        el("strong", {}, hint.risk), `: ${hint.text}.`)),
      hop.changes ? SiteGenPlannerHops.hopNode(hop.changes, commandBlock) : null,
      hop.alternatives.length ? alternativesLine(hop) : null);
  }

  const EVALUATED = {True: "The cluster evaluated this update's risks: none applies to it (Recommended=True).",
                     False: "The cluster evaluated this update's risks: one applies to it (Recommended=False).",
                     Unknown: "The cluster could not evaluate this update's risks (Recommended=Unknown)."};

  function evaluationLine(evaluation) {
    return el("p", {class: "hop-evaluation notice", "data-status": evaluation.status}, EVALUATED[evaluation.status],
      evaluation.message ? ` ${evaluation.message}` : "");
  }

  function routeSection(data, section) {
    return el("section", {class: "routes", "data-kind": section.kind, "data-total": section.total},
      el("h2", {}, section.heading),
      el("p", {class: "route-count"}, section.size),
      section.notices.map((notice) => el("p", {class: "notice"}, notice)),
      el("div", {class: "route-box"},
        el("p", {class: "route-summary"}, section.route.join(" → ")),
        el("p", {class: "route-channels", "data-channels": section.channels.join(" ")}, section.channelsLine),
        el("ol", {class: "route", "data-kind": section.kind, "data-route": section.route.join(" ")},
          section.hops.map((hop, i) => hopItem(data, hop, i === 0)))));
  }

  /* A command to copy: shown as code, with a button that copies it (where the browser allows). */
  function commandBlock(command) {
    const button = el("button", {type: "button", class: "copy-command", "aria-label": `Copy: ${command}`}, "Copy");
    button.addEventListener("click", () => {
      if (!navigator.clipboard) return;
      navigator.clipboard.writeText(command).then(() => { button.textContent = "Copied"; }, () => {});
    });
    return el("div", {class: "command"}, el("pre", {}, el("code", {}, command)), button);
  }

  function procedureSection(steps, routeSection) {
    const pauses = steps.some((step) => step.commands.some((command) => command.includes('"paused":true')));
    return el("section", {class: "procedure", "data-kind": "eus-procedure"},
      el("h2", {}, SiteGenPlanner.procedureHeading(routeSection)),
      el("p", {}, pauses
        ? "Red Hat's “Control plane only update”: the control plane goes through the odd minor while the " +
          "worker pools are paused, so the workers update, and reboot, only once per EUS-to-EUS step."
        : "No step of this route crosses an odd minor, so no worker pool is paused: each update is an ordinary one."),
      el("ol", {class: "procedure-steps"}, steps.map((step) =>
        el("li", {}, el("p", {class: "step-text"}, step.text), step.commands.map(commandBlock)))));
  }

  /* The answer for a cluster, first: where it stands and where it and this site disagree (what blocks
     the plan). What the page read, with the cluster's evaluations of each conditional update (50 and
     more on a real cluster), comes after the routes, folded. */
  /* The updates of the first route on which a risk applies to this cluster (its own evaluation, or
     one of the same risk on another update): said at the top, not only in the hop's small print. */
  function exposures(answer) {
    const found = [];
    for (const hop of (answer.sections[0] || {hops: []}).hops) {
      const risks = [...(hop.evaluation && hop.evaluation.status === "False" ? [hop.evaluation.reason || "a risk"] : []),
        ...(hop.hints || []).filter((hint) => hint.verdict === "applies").map((hint) => hint.risk)];
      if (risks.length) found.push(`${hop.from} → ${hop.to} (${[...new Set(risks)].join(", ")})`);
    }
    return found;
  }

  function clusterHeader(answer) {
    const cluster = answer.cluster;
    const archFrom = {architecture: "status.desired.architecture", image: "its image's digest",
                      none: "not known: the form's choice"}[cluster.archFrom];
    const siteUrl = new URL(root || "./", window.location.href).href;
    const upstream = SiteGenCluster.upstreamNote(cluster.upstream, siteUrl);
    const exposed = exposures(answer);
    // reading Red Hat's service is the ordinary case: one quiet line, not a notice filling a phone's screen
    const ordinary = !cluster.upstream;
    return el("section", {class: "cluster-summary", "data-kind": "cluster"},
      el("h2", {}, `A cluster at ${cluster.version}`),
      el("p", {class: "cluster-line"}, `${cluster.arch || fields.arch.value} (${archFrom}), channel `,
        el("strong", {}, cluster.channel || "none set"),
        cluster.target ? ` — planning in ${cluster.kind} channels to ${cluster.target}.` : " — no target to plan for."),
      exposed.length ? el("p", {class: "notice exposure", "data-kind": "exposure"},
        `A risk applies to this cluster on the route: ${exposed.join("; ")}. Read it before updating.`) : null,
      [...cluster.notes, ...(ordinary ? [] : [upstream])].map((note) => el("p", {class: "notice cluster-note"}, note)),
      ordinary ? el("p", {class: "cluster-upstream"}, upstream) : null);
  }

  function clusterDetails(cluster) {
    const facts = el("dl", {class: "facts cluster-facts"});
    const add = (term, ...value) => facts.append(el("dt", {}, term), el("dd", {}, ...value));
    add("Version", cluster.version);
    add("Image", cluster.image || "not given");
    add("Channel", cluster.channel || "none set");
    add("Upstream", cluster.upstream || "not set (Red Hat's update service)");
    const evaluations = cluster.evaluations.length
      ? el("details", {class: "cluster-evaluations"},
          el("summary", {}, `Its evaluations of ${count(cluster.evaluations.length, "conditional update")}`),
          el("ul", {}, cluster.evaluations.map((e) =>
            el("li", {"data-status": e.status}, `${e.version}: Recommended=${e.status}${e.reason ? ` (${e.reason})` : ""}`))))
      : el("p", {}, "It lists no conditional update.");
    return el("section", {class: "cluster-read", "data-kind": "cluster-read"},
      el("h2", {}, "What the page read from the ClusterVersion"), facts, evaluations);
  }

  /* The installed operators, before the route: one short line per operator that blocks the target, has
     no path in its catalog, is deprecated or could not be checked. Why (OLM's words, the catalog's) is
     with each operator read, folded after them. */
  function operatorsSection(operators) {
    const item = (line) => el("li", {class: `operator-finding operator-${line.kind}`, "data-kind": line.kind,
                                      "data-operator": line.operator}, line.text);
    // blocks come first, then no path, deprecated, not checked: past a screenful the rest is folded
    const shown = operators.summary.slice(0, SHOWN_FINDINGS);
    const folded = operators.summary.slice(SHOWN_FINDINGS);
    const lines = operators.summary.length
      ? el("ul", {class: "operator-findings"}, shown.map(item),
          folded.length ? el("li", {}, el("details", {class: "operator-findings-more"},
            el("summary", {}, `${count(folded.length, "more line")}`), el("ul", {}, folded.map(item)))) : null)
      : el("p", {class: "operator-findings"}, "None blocks the update, lacks a path in the target catalog or is deprecated.");
    const why = (o) => [o.gate.reason, o.path && !o.path.present ? o.path.why : null,
      ...o.deprecations.map((item) => `${item.scope} ${item.name}: ${item.message}`), o.problem].filter(Boolean);
    const all = el("details", {class: "operator-list"},
      el("summary", {}, `The ${count(operators.operators.length, "operator")} read, and why`),
      el("ul", {}, operators.operators.map((o) => el("li", {"data-verdict": o.verdict || ""},
        el("strong", {}, o.package || o.csv), ` (${o.namespace}): ${o.csv || "nothing installed"}` +
        (o.version ? ` ${o.version}` : "") + (o.channel ? `, channel ${o.channel}` : "") +
        (o.family ? `, catalog family ${o.family}` : "") +
        (o.maxOpenShiftVersion && o.maxOpenShiftVersion.value ? `, maxOpenShiftVersion ${o.maxOpenShiftVersion.value}` : ""),
        why(o).length ? el("ul", {}, why(o).map((text) => el("li", {}, text))) : null))));
    return el("section", {class: "cluster-operators", "data-kind": "operators"},
      el("h2", {}, operators.to ? `Operators, ${operators.from} to ${operators.to}` : "Operators"),
      operators.message ? el("p", {class: "notice"}, operators.message) : null,
      lines, all);
  }

  function show(data, answer) {
    window.plannerAnswer = answer;
    window.plannerClusterError = null;
    result.dataset.outcome = answer.outcome;
    const children = answer.cluster ? [clusterHeader(answer)] : [];
    if (answer.operators) children.push(operatorsSection(answer.operators));
    children.push(...answer.notes.map((note) => el("p", {class: "plan-note"}, note)));
    if (answer.message) children.push(el("p", {class: "notice"}, answer.message));
    const sections = answer.sections.map((section) => routeSection(data, section));
    const procedure = answer.procedure.length ? [procedureSection(answer.procedure, answer.sections[0])] : [];
    // the route comes first, then how to take it (16 steps before the route put it at y=5258 on a phone)
    children.push(...sections.slice(0, 1), ...procedure, ...sections.slice(1));
    if (answer.cluster) children.push(clusterDetails(answer.cluster));
    result.replaceChildren(...children);
  }

  function outcome(kind, ...children) {
    result.dataset.outcome = kind;
    result.replaceChildren(...children);
  }

  /* Each hop's changes and acks, on a site with release contents for the answer's arch (the page says
     which: a site without them is asked for nothing). */
  const contentsArches = new Set((form.dataset.contentsArches || "").split(" ").filter(Boolean));
  async function attachHops(answer, clusterDocument) {
    if (contentsArches.has(answer.arch)) await SiteGenPlannerHops.attachInPage(answer, readJson, clusterDocument);
  }

  async function submit() {
    const question = {source: typedVersion(fields.from.value), target: typedVersion(fields.to.value),
                      kind: fields.kind.value, channel: fields.channel.value || null};
    fields.from.value = question.source;
    fields.to.value = question.target;
    if (!question.source || !question.target) return;
    const data = await load(fields.arch.value);
    const answer = plan(data, question);
    await attachHops(answer, null);
    show(data, answer);
  }

  /* "Plan for my cluster": the pasted text is read here and never sent anywhere. Only the site's
     own data files are fetched (the planner file and the payload digests). */
  const clusterForm = document.getElementById("cluster-form");
  const clusterText = document.getElementById("cluster-text");
  let payloads = null;

  const readJson = SiteGen.siteJsonReader(root);  // the operator rules' reader of this site's files

  /* The operators pasted with the ClusterVersion and in their own box; null when there are none. */
  function readOperatorsGiven(others) {
    const {parseObjects, readOperators, hasOperators} = SiteGenClusterOperators;
    const {ClusterError} = SiteGenCluster;
    const objects = [...others];
    const given = document.getElementById("cluster-operators").value;
    if (given.trim()) {
      try {
        objects.push(...parseObjects(given));
      } catch (error) {
        if (!(error instanceof ClusterError)) throw error;
        throw new ClusterError(`Installed operators: ${error.message}`, error.detail);
      }
      if (!hasOperators(objects)) {
        throw new ClusterError("Installed operators: There is no Subscription and no ClusterServiceVersion here.");
      }
    }
    return hasOperators(objects) ? readOperators(objects) : null;
  }

  async function planCluster() {
    const {readCluster, planForCluster, ClusterError, NOT_CLUSTER_VERSION} = SiteGenCluster;
    const {parseObjects, splitCluster, attachOperators} = SiteGenClusterOperators;
    try {
      const [parsed, others] = splitCluster(parseObjects(clusterText.value, NOT_CLUSTER_VERSION));
      if (payloads === null) {  // single-arch clusters need it for their architecture, all for the image check
        payloads = await fetchJSON(`${form.dataset.planner}payloads.json`);
      }
      const cluster = readCluster(parsed, payloads);
      const operators = readOperatorsGiven(others);
      const data = await load(cluster.arch || fields.arch.value);
      const answer = planForCluster(data, cluster, typedVersion(inputValue("cluster-to")),
                                    inputValue("cluster-kind") || null);
      await attachHops(answer, parsed);
      if (operators !== null) await attachOperators(answer, operators, readJson, SiteGenOperatorRules.checkOperator);
      show(data, answer);
    } catch (error) {
      if (!(error instanceof ClusterError)) throw error;
      window.plannerAnswer = null;
      window.plannerClusterError = error.message;
      outcome("cluster-error", el("p", {class: "notice"}, error.message, error.detail ? ` (${error.detail})` : ""));
    }
  }

  /* The answer's top on the screen's top, rounded down: scrollIntoView rounds a fractional position
     either way, and could leave the answer's first line a fraction of a pixel above the screen. */
  function scrollToAnswer() {
    window.scrollTo(0, Math.floor(result.getBoundingClientRect().top + window.scrollY));
  }

  /* The answer replaces the form on screen: after a paste, its first lines are what the admin reads. */
  function planAndShow() {
    result.dataset.outcome = "loading";
    planCluster().then(scrollToAnswer).catch(failed);
  }

  function inputValue(id) {
    return document.getElementById(id).value;
  }

  function readFile(file, area = clusterText) {
    if (!file) return;
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      area.value = reader.result;
      if (clusterText.value.trim()) planAndShow();
    });
    reader.readAsText(file);
  }

  clusterForm.addEventListener("submit", (event) => {
    event.preventDefault();
    planAndShow();
  });
  document.getElementById("cluster-file").addEventListener("change", (event) => readFile(event.target.files[0]));
  const operatorsText = document.getElementById("cluster-operators");
  document.getElementById("cluster-operators-file").addEventListener("change",
    (event) => readFile(event.target.files[0], operatorsText));
  for (const area of [clusterText, operatorsText]) {
    area.addEventListener("dragover", (event) => event.preventDefault());
    area.addEventListener("drop", (event) => {
      event.preventDefault();
      readFile(event.dataTransfer.files[0], area);
    });
  }

  /* Versions and channels offered by the form follow the chosen architecture. */
  async function refreshChoices() {
    const data = await load(fields.arch.value);
    datalist.replaceChildren(...data.versions.map((v) => el("option", {value: v})));
    const wanted = fields.channel.value;
    fields.channel.replaceChildren(el("option", {value: ""}, "Every channel of that kind"),
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
  // Links made before channel kinds existed name no kind: an empty channel then meant any channel.
  const askedKind = params.get("kind") || (params.has("channel") && !askedChannel ? ANY : "stable");
  if (Array.from(fields.kind.options).some((o) => o.value === askedKind)) fields.kind.value = askedKind;
  else fields.kind.append(el("option", {value: askedKind, selected: "selected"}, askedKind));
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
    return submit();
  }).then(() => {
    if (result.dataset.outcome === "loading") result.dataset.outcome = "idle";
    // a question asked (the form's GET, or a shared link): its answer is what the admin reads
    else if (params.get("from") && params.get("to")) scrollToAnswer();
  }).catch(failed);
})();
