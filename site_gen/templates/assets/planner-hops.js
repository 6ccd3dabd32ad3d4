/* What each update of a planned route changes, and the admin acknowledgements it needs, from the
   contents records the site publishes (releases/<version>/<arch>/contents.json). The diff and the
   admin-gate rules are release-diff.js's (SiteGenReleaseDiff, loaded before this file, after
   olm-blang.js): this file only picks what an admin planning an update reads per hop, words it once,
   and tells, for a pasted ClusterVersion, whether the cluster already gave an acknowledgement.
   planner.js runs it in the browser; `site-gen plan` runs this same file through site_gen/js_rules.

   Whether an acknowledgement is pending, as the cluster-version operator reports it (facts from
   cluster-version-operator pkg/cvo/upgradeable.go up to 4.22, pkg/risk/adminack/adminack.go after):
   - up to 4.22, the admin-ack check fails with reason AdminAckRequired and, as its message, the
     messages of the gates not acknowledged (joined by a space). With it the only failing check, the
     ClusterVersion's Upgradeable condition is False with that reason and message; with several, the
     check keeps its own condition UpgradeableAdminAckRequired and Upgradeable says MultipleReasons.
     When every check passes, the CVO removes the Upgradeable conditions altogether;
   - later, every gate not acknowledged is a risk named AdminAck-<KEY> on the minor and major updates of
     status.conditionalUpdates.
   The check reads the gates of the release the cluster completed last (the first Completed entry of
   status.history), so the answer is only for the first update of a route from that release. */
"use strict";

const SiteGenPlannerHops = (() => {
  const {diff, gatesFor, ackCommand, gateLink, componentLabel, resolve, loadRecord} = SiteGenReleaseDiff;
  const SHOWN = 5;  // objects and API versions listed per line; the rest counted
  const ACK_CONDITION = "UpgradeableAdminAckRequired";
  const UNREADABLE = ["UnableToGetClusterVersion", "UnableToAccessAdminGatesConfigMap",
                      "UnableToAccessAdminAcksConfigMap"];

  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  const text = (value) => (typeof value === "string" ? value : "");
  const list = (value) => (Array.isArray(value) ? value : []);

  /* What a ClusterVersion document says about its admin acknowledgements: plain data. */
  function evidence(document) {
    const status = isObject(document) && isObject(document.status) ? document.status : {};
    const history = list(status.history).filter(isObject);
    const completed = history.find((entry) => entry.state === "Completed");
    const current = text((completed || history[0] || {}).version) || text(isObject(status.desired) ? status.desired.version : "");
    const conditions = list(status.conditions).filter(isObject)
      .filter((c) => c.type === "Upgradeable" || c.type === ACK_CONDITION)
      .map((c) => ({type: c.type, status: text(c.status), reason: text(c.reason), message: text(c.message)}));
    const risks = [];
    for (const update of list(status.conditionalUpdates).filter(isObject)) {
      for (const risk of list(update.risks).filter(isObject)) {
        if (text(risk.name).startsWith("AdminAck-") && !risks.includes(risk.name)) risks.push(risk.name);
      }
    }
    return {current, hasConditions: list(status.conditions).length > 0, conditions, risks: risks.sort(),
            updating: history.length > 0 && history[0].state === "Partial"};
  }

  /* [state, why] of the gate KEY (its message MESSAGE) on the cluster: "needed", "done" or "unknown". */
  function ackState(cluster, key, message) {
    if (cluster.risks.includes(`AdminAck-${key}`)) {
      return ["needed", `the cluster's conditional updates carry the risk AdminAck-${key}`];
    }
    if (cluster.updating) return ["unknown", "the cluster is updating: it checks the gates once the update completes"];
    const own = cluster.conditions.find((c) => c.type === ACK_CONDITION && c.status === "False");
    const upgradeable = cluster.conditions.find((c) => c.type === "Upgradeable" && c.status === "False");
    const naming = [own, upgradeable].find((c) => c && message && c.message.includes(message));
    if (naming) return ["needed", `the cluster's ${naming.type} condition names it (${naming.reason})`];
    const failing = own || (upgradeable && upgradeable.reason !== "MultipleReasons" ? upgradeable : null);
    if (failing && UNREADABLE.includes(failing.reason)) {
      return ["unknown", `the cluster could not check its acknowledgements (${failing.type}: ${failing.reason})`];
    }
    if (!cluster.hasConditions) {
      return ["unknown", "the pasted ClusterVersion has no status.conditions, so it cannot tell"];
    }
    return ["done", failing
      ? `the cluster's ${failing.type} condition (${failing.reason}) does not name it`
      : "the cluster's conditions show no acknowledgement pending"];
  }

  function some(items, total) {
    return items.slice(0, SHOWN).join(", ") + (total > SHOWN ? ` and ${total - SHOWN} more` : "");
  }

  const objectName = (o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;

  /* The changes of one update: its lines, acknowledgements and the gates nothing lifts. `cluster`: the
     evidence of a pasted ClusterVersion, for the first update from the version the cluster runs, else null. */
  function hopChanges(from, to, fromRecord, toRecord, cluster) {
    const missing = [[from, fromRecord], [to, toRecord]].filter(([, record]) => record === null).map(([v]) => v);
    if (missing.length) {
      return {contents: "missing", note: `No release contents on this site for ${missing.join(" or ")}.`,
              lines: [], acks: [], blocking: []};
    }
    const unreadable = [[from, fromRecord], [to, toRecord]].filter(([, record]) => "error" in record).map(([v]) => v);
    if (unreadable.length) {
      return {contents: "unreadable", note: `The release contents of ${unreadable.join(" and ")} could not be read.`,
              lines: [], acks: [], blocking: []};
    }
    const changes = diff(fromRecord, toRecord);
    const lines = changes.components
      .filter((c) => c.name !== "kubectl")  // kubectl follows kubernetes: one line says both
      .map((c) => `${componentLabel(c.name, c.displayName)} ${c.from ?? "none"} → ${c.to ?? "none"}`);
    const operators = changes.clusterOperators;
    if (operators.added.length) lines.push(`ClusterOperators added: ${operators.added.join(", ")}`);
    if (operators.removed.length) lines.push(`ClusterOperators removed: ${operators.removed.join(", ")}`);
    const deleted = changes.resources.deleted;
    if (deleted.length) lines.push(`Objects deleted (${deleted.length}): ${some(deleted.map(objectName), deleted.length)}`);
    const dropped = changes.resources.crdVersionsNoLongerServed.flatMap((crd) => crd.versions.map((v) => `${crd.name} ${v}`));
    if (dropped.length) lines.push(`API versions no longer served (${dropped.length}): ${some(dropped, dropped.length)}`);
    if (!lines.length) lines.push("No change in Kubernetes, RHCOS, ClusterOperators, deleted objects or served API versions.");
    const [applying, invalid] = gatesFor(fromRecord, to);
    const asked = cluster !== null && cluster.current === from;
    const acks = Object.keys(applying).map((key) => {
      const [state, why] = asked ? ackState(cluster, key, applying[key]) : [null, null];
      return {key, message: applying[key], link: gateLink(applying[key]), command: ackCommand(key), state, why};
    });
    const blocking = Object.keys(invalid).map((key) => ({key, reason: invalid[key]}));
    return {contents: "shown", note: null, lines, acks, blocking};
  }

  /* The versions whose records the hops of `answer` need. */
  function versionsOf(answer) {
    const needed = new Set();
    for (const section of answer.sections) for (const hop of section.hops) needed.add(hop.from).add(hop.to);
    return [...needed].sort();
  }

  /* Each section's hops' changes: `records` holds a contents file (or null: none on the site) per
     versionsOf, resolved with `parts` (the shared files they name, by sha256 name; {} for whole records). */
  function sectionsChanges(answer, records, cluster, parts = {}) {
    const whole = Object.fromEntries(Object.entries(records).map(([version, record]) =>
      [version, record === null ? null : resolve(record, parts)]));
    return answer.sections.map((section) => section.hops.map((hop) =>
      hopChanges(hop.from, hop.to, whole[hop.from] ?? null, whole[hop.to] ?? null, cluster)));
  }

  /* One acknowledgement in a line, its state first: what the admin must do. */
  function ackHeadline(ack) {
    if (ack.state === "done") return `Admin acknowledgement ${ack.key}: DONE (${ack.why}).`;
    if (ack.state === "needed") return `ADMIN ACK NEEDED before this update: ${ack.key} (${ack.why}).`;
    if (ack.state === "unknown") {
      return `ADMIN ACK NEEDED before this update, unless already given: ${ack.key} (cannot tell: ${ack.why}).`;
    }
    return `ADMIN ACK NEEDED before this update: ${ack.key}.`;
  }

  /* The terminal's lines of one hop's changes (planner.js draws the same data). */
  function hopText(changes) {
    if (changes.note) return [changes.note];
    const out = [...changes.lines];
    for (const ack of changes.acks) {
      out.push(ackHeadline(ack));
      if (ack.state !== "done") out.push(`  ${ack.command}`, `  ${ack.link}`);
    }
    for (const gate of changes.blocking) out.push(`BLOCKED, no acknowledgement lifts it: ${gate.reason}`);
    return out;
  }

  /* ---- the planner page (planner.js); never called where there is no document ---- */

  /* The versions of `arch` with a contents file, readable or not, from the site's one index of release
     contents (layout.RELEASE_CONTENTS_INDEX, which the compare page reads too), as a list; null when it has none. */
  function contentsVersions(index, arch) {
    if (!isObject(index) || !isObject(index.arches) || !isObject(index.unreadable)) return null;
    const groups = [index.arches[arch], index.unreadable[arch]].filter(Array.isArray);
    if (!groups.length) return null;
    return groups.flat().filter((v) => typeof v === "string");
  }

  /* Gives every hop of `answer` its changes, as hop_changes.attach_hop_changes does: only on a site whose
     index of release contents has the arch. readJson(path): the parsed site file, null when missing. */
  async function attachInPage(answer, readJson, clusterDocument) {
    if (!answer.sections.length) return;
    const arch = answer.arch;
    const listed = contentsVersions(await readJson("data/release-contents.json").catch(() => null), arch);
    if (listed === null) return;
    const have = new Set(listed);
    const records = {};
    await Promise.all(versionsOf(answer).map(async (version) => {
      records[version] = have.has(version)
        ? await loadRecord(`releases/${version}/${arch}/contents.json`, (hex) => `releases/shared/${hex}.json`,
          readJson).catch(() => null) : null;
    }));
    const cluster = clusterDocument === null ? null : evidence(clusterDocument);
    sectionsChanges(answer, records, cluster).forEach((changes, s) => changes.forEach((hopChanges, h) => {
      answer.sections[s].hops[h].changes = hopChanges;
    }));
  }

  /* The gate's message with its link made a link (the CVO's link is a piece of the message, or the
     documentation when the message has none). */
  function linked(message, link) {
    const {el} = SiteGen;
    const at = message.indexOf(link);
    if (at < 0) return [message, " ", el("a", {href: link}, link)];
    return [message.slice(0, at), el("a", {href: link}, link), message.slice(at + link.length)];
  }

  const STATE_TEXT = {needed: "needed", done: "done", unknown: "cannot tell"};

  /* One hop's changes: its acknowledgements first, each with the command that gives it, then one short
     line per kind of change. `commandBlock(command)`: the page's copyable command. */
  function hopNode(changes, commandBlock) {
    const {el} = SiteGen;
    if (changes.note) return el("p", {class: "hop-changes hop-changes-note", "data-contents": changes.contents}, changes.note);
    const acks = changes.acks.map((ack) => el("div", {class: "hop-ack", "data-state": ack.state || "", "data-key": ack.key},
      el("p", {class: "hop-ack-line"},
        el("strong", {}, ack.state === "done" ? "Admin acknowledgement: " : "Admin acknowledgement needed before this update: "),
        el("code", {}, ack.key),
        ack.state ? el("span", {class: "hop-ack-state"}, " — ", el("strong", {}, STATE_TEXT[ack.state]),
          `: ${ack.why}.`) : null),
      ack.state === "done" ? null : commandBlock(ack.command),
      ack.state === "done" ? null : el("p", {class: "hop-ack-why"}, ...linked(ack.message, ack.link))));
    const blocking = changes.blocking.map((gate) =>
      el("p", {class: "notice hop-blocked"}, el("strong", {}, "Blocked: "), `no acknowledgement lifts it. ${gate.reason}`));
    return el("div", {class: "hop-changes", "data-contents": changes.contents}, ...acks, ...blocking,
      el("ul", {class: "hop-changes-list"}, changes.lines.map((line) => el("li", {}, line))));
  }

  return {evidence, ackState, hopChanges, versionsOf, sectionsChanges, ackHeadline, hopText, attachInPage, hopNode,
    contentsVersions};
})();
