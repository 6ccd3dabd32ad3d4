/* The operator update checker's rules, the only copy: olm/checker.html runs them, and so does
   `site-gen plan-operator` (site_gen/olm/update_check.py, through site_gen/js_rules), so both give the
   same answer (tests/data/operator_corpus.json holds them to it). They read only the site's published
   JSON through readJson(path), a Promise of the parsed file or null when it is missing.
   docs/operator-catalogs.md describes the answer. */
"use strict";

const SiteGenOperatorRules = (() => {
  const MINOR = /^[vV]?([0-9]+)\.([0-9]+)(?:\.[0-9]+)?$/;
  const V_PREFIX = /^[vV][0-9]/;
  const {pathComponent} = SiteGenPaths;   // assets/site-paths.js, written from site_gen/layout.py

  const less = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const same = (a, b) => a !== null && b !== null && a[0] === b[0] && a[1] === b[1];

  /* gates.normalize: OCP 4.23 and 5.0 are the same release. */
  const normalize = (major, minor) => (major === 4 && minor === 23 ? [5, 0] : [major, minor]);

  function parseMinor(text) {
    const found = MINOR.exec(text);
    return found ? normalize(parseInt(found[1], 10), parseInt(found[2], 10)) : null;
  }

  /* gates.max_openshift_version: a bundle's olm.maxOpenShiftVersion values (their JSON texts), as OLM
     reads them. */
  function parseMaxVersion(raw) {
    if (!raw.length) return {value: null, error: null};
    if (raw.length > 1) return {value: null, error: 'defining more than one "olm.maxOpenShiftVersion" property is not allowed'};
    const text = raw[0].replace(/^"+|"+$/g, "");
    if (!text) return {value: null, error: 'value cannot be "" (an empty string)'};
    let version;
    try {
      version = SiteGenBlang.parseTolerant(text);
    } catch (error) {
      if (!(error instanceof SiteGenBlang.SemverError)) throw error;
      return {value: null, error: `failed to parse "${text}" as semver: ${error.message}`};
    }
    if (version.patch || version.pre.length) {
      return {value: null, error: "property olm.maxOpenShiftVersion must specify only <major>.<minor> version, " +
        `got invalid value ${SiteGenBlang.versionText(version)}`};
    }
    return {value: [Number(version.major), Number(version.minor)], error: null};
  }

  /* whether a CSV with this maximum (parseMaxVersion's answer) makes OLM report Upgradeable=False on a
     cluster at minor now: an invalid value blocks, a valid one below the next minor does. */
  function blocksNextMinor(maximum, now) {
    if (maximum.error) return true;
    if (maximum.value === null) return false;
    return less(normalize(...maximum.value), [now[0], now[1] + 1]);
  }

  /* a channel file's io.openshift.maxOpenShiftVersion (one value,
     unquoted; invalid ones carry the .error key) read as OLM reads it ("4" is 4.0). */
  const publishedMaximum = (text) => parseMaxVersion(text ? [text] : []);

  function minorText(text) {
    const found = MINOR.exec(text);
    return found ? `${parseInt(found[1], 10)}.${parseInt(found[2], 10)}` : text;
  }

  function normalizedQuestion(question) {
    const channel = (question.channel || "").trim();
    return {family: (question.family || "").trim(), package: (question.package || "").trim(),
      channel: channel || null, installed: (question.installed || "").trim(),
      openshiftFrom: minorText((question.openshiftFrom || "").trim()),
      openshiftTo: minorText((question.openshiftTo || "").trim())};
  }

  function emptyAnswer(question) {
    return {question, found: false, problem: null, catalog: null, package: question.package,
      channel: question.channel, defaultChannel: null, installed: null, head: null, hops: [],
      deprecations: [], gate: null, target: null, stranded: null, verdict: "not-found", steps: [],
      installedListed: null};
  }

  function notFound(answer, problem) {
    answer.problem = problem;
    answer.steps = [problem];
    return answer;
  }

  function catalogFor(catalogs, family, minor) {
    return catalogs.find((entry) => entry.family === family && same(parseMinor(String(entry.openshift ?? "")), minor))
      ?? null;
  }

  /* the families of olm/catalogs.json's entries, sorted. */
  const catalogFamilies = (catalogs) => [...new Set(catalogs.map((entry) => String(entry.family)))].sort();

  const meta = (node, key) => String(node.metadata[key] ?? "");

  function bundleOf(node, head) {
    const maximum = meta(node, "io.openshift.maxOpenShiftVersion");
    return {version: node.version, bundle: meta(node, "io.operatorframework.bundle.name"),
      deprecated: meta(node, "io.operatorframework.deprecated") || null,
      maxOpenShiftVersion: maximum || null, head};
  }

  function findNode(document, installed) {
    const nodes = document.nodes;
    const byName = nodes.findIndex((node) => meta(node, "io.operatorframework.bundle.name") === installed);
    if (byName >= 0) return byName;
    const version = V_PREFIX.test(installed) ? installed.slice(1) : installed;
    const byVersion = nodes.findIndex((node) => node.version === version);
    return byVersion >= 0 ? byVersion : null;
  }

  function walk(document, start) {
    const updates = document.updates || {};
    const path = [], seen = new Set([start]);
    let current = start;
    while (String(current) in updates && !seen.has(updates[String(current)])) {
      current = updates[String(current)];
      seen.add(current);
      path.push(current);
    }
    return path;
  }

  const isHead = (document, index) => document.head === index;

  function skippers(document, name) {
    return document.nodes.filter((node) => meta(node, "io.operatorframework.channel.skips").split(",")
      .filter((item) => item).includes(name)).map((node) => meta(node, "io.operatorframework.bundle.name"));
  }

  function strandedWhy(document, index, packageError) {
    const node = document.nodes[index];
    const name = meta(node, "io.operatorframework.bundle.name");
    const channel = document.channel;
    if (!(document.packageValid ?? true)) {
      return `opm validate rejects package ${document.package} (${packageError || "invalid"}), ` +
        "so OLM v0 is offered no update from it";
    }
    if (document.v0Error) return `OLM v0 cannot order channel ${channel}: ${document.v0Error}`;
    const targets = document.edges.filter(([source]) => source === index).map(([, target]) => target);
    if (!targets.length) {
      return `no entry of channel ${channel} replaces or skips ${name}, and no skipRange contains ${node.version}`;
    }
    const reasons = targets.map((target) => {
      const other = document.nodes[target];
      const otherName = meta(other, "io.operatorframework.bundle.name");
      if (meta(other, "io.operatorframework.deprecated.legacy") === "true") {
        return `${otherName} carries olm.deprecated, which OLM never chooses`;
      }
      if (meta(other, "io.operatorframework.v0.skipped") === "true") {
        return `${otherName} is named in the skips of ${skippers(document, otherName).join(", ")}, ` +
          "so OLM v0 leaves it out of the channel order";
      }
      return `${otherName} is not on the replaces chain from the head`;
    });
    return `the bundles that update ${name} are not candidates for OLM v0: ` + reasons.join("; ");
  }

  function pathPart(document, start, packageError) {
    const path = walk(document, start);
    const head = document.head ?? null;
    const end = path.length ? path[path.length - 1] : start;
    const hops = path.map((i) => bundleOf(document.nodes[i], isHead(document, i)));
    const atHead = isHead(document, end);
    const stranded = {stranded: !atHead, at: null, why: null};
    if (!atHead) {
      stranded.at = meta(document.nodes[end], "io.operatorframework.bundle.name");
      stranded.why = strandedWhy(document, end, packageError);
    }
    return {hops, path, end, head: head !== null ? bundleOf(document.nodes[head], true) : null, stranded};
  }

  /* OLM's reason when the bundle at index blocks the cluster somewhere on the
     way from now to to (max < to), else null. */
  function blocks(document, index, now, to) {
    const node = document.nodes[index];
    const name = meta(node, "io.operatorframework.bundle.name");
    const maximum = publishedMaximum(meta(node, "io.openshift.maxOpenShiftVersion"));
    const error = meta(node, "io.openshift.maxOpenShiftVersion.error") || maximum.error;
    if (error) return `${name} has invalid olm.maxOpenShiftVersion properties: ${error}`;
    if (maximum.value === null) return null;
    const value = normalize(...maximum.value);
    if (!less(value, [now[0], now[1] + 1]) && !less(value, to)) return null;
    return `maximum supported OCP version for ${name} is ${maximum.value[0]}.${maximum.value[1]}`;
  }

  /* the minor the cluster is on when the bundle blocks it. */
  function blockedAt(document, index, now) {
    const maximum = publishedMaximum(meta(document.nodes[index], "io.openshift.maxOpenShiftVersion"));
    if (maximum.value === null) return now;
    const value = normalize(...maximum.value);
    return less(value, now) ? now : value;
  }

  const minorOf = (minor) => `${minor[0]}.${minor[1]}`;

  /* start null: the installed bundle is not in the catalog, so its own maximum is not known here. */
  function gateOf(document, start, path, now, to) {
    const maximum = start !== null ? meta(document.nodes[start], "io.openshift.maxOpenShiftVersion") : "";
    const gate = {blocks: false, reason: null, at: null, liftedBy: null, liftedIn: null, liftedVersion: null,
      maxOpenShiftVersion: maximum || null, patchOnly: same(now, to)};
    let reason = start !== null ? blocks(document, start, now, to) : null, blocking = start;
    if (reason === null && path.length) {  // the bundle OLM v0 updates it to may block a later minor
      blocking = path[path.length - 1];
      reason = blocks(document, blocking, now, to);
    }
    if (gate.patchOnly || reason === null) return gate;
    gate.blocks = true;
    gate.reason = reason;
    gate.at = minorOf(blockedAt(document, blocking, now));
    const lifting = path.find((i) => blocks(document, i, now, to) === null);
    if (lifting !== undefined) {
      gate.liftedBy = meta(document.nodes[lifting], "io.operatorframework.bundle.name");
      gate.liftedVersion = document.nodes[lifting].version;
    }
    return gate;
  }

  /* whether a bundle of a channel file no longer blocks a cluster going to to. */
  function lifts(hop, to) {
    const maximum = publishedMaximum(hop.maxOpenShiftVersion || "");
    return maximum.error === null && (maximum.value === null || !less(normalize(...maximum.value), to));
  }

  /* a block met at a later minor than the cluster's may be lifted by
     an update in that minor's catalog. */
  async function liftOnTheWay(readJson, catalogs, asked, channel, end, gate, now, to) {
    const at = parseMinor(gate.at || "");
    if (!gate.blocks || gate.liftedBy || at === null || same(at, now)) return;
    const there = await targetOf(readJson, catalogs, {...asked, openshiftTo: gate.at}, channel, end.bundle,
      end.version, at);
    const lifting = there.hops.find((hop) => lifts(hop, to));
    if (lifting !== undefined) {
      gate.liftedBy = lifting.bundle;
      gate.liftedIn = there.catalog;
      gate.liftedVersion = lifting.version;
    }
  }

  function deprecationsOf(document, bundles) {
    const found = [];
    if (document.packageDeprecation) {
      found.push({scope: "package", name: document.package, message: document.packageDeprecation});
    }
    if (document.channelDeprecation) {
      found.push({scope: "channel", name: document.channel, message: document.channelDeprecation});
    }
    const seen = new Set();
    for (const bundle of bundles) {
      if (bundle.deprecated && !seen.has(bundle.bundle)) {
        seen.add(bundle.bundle);
        found.push({scope: "bundle", name: bundle.bundle, message: bundle.deprecated});
      }
    }
    return found;
  }

  const channelPath = SiteGenPaths.channelJson;
  const indexPath = SiteGenPaths.catalogIndexJson;

  function updatesFrom(node, bundle, version) {
    if (meta(node, "io.operatorframework.deprecated.legacy") === "true") return false;
    if (bundle === meta(node, "io.operatorframework.channel.replaces")
      || meta(node, "io.operatorframework.channel.skips").split(",").includes(bundle)) return true;
    const skipRange = meta(node, "io.operatorframework.channel.skipRange");
    if (!skipRange) return false;
    try {  // OLM ignores a skipRange it cannot parse
      return SiteGenBlang.parseRange(skipRange)(SiteGenBlang.parse(version));
    } catch (error) {
      if (error instanceof SiteGenBlang.SemverError) return false;
      throw error;
    }
  }

  async function targetOf(readJson, catalogs, question, channel, bundle, version, to) {
    const pkg = question.package;
    const target = {catalog: null, openshift: question.openshiftTo, problem: null, packagePresent: false,
      channel, channelPresent: false, channels: [], defaultChannel: null, bundle, installedPresent: false,
      hops: [], head: null, stranded: null, deprecations: [], path: false};
    const entry = catalogFor(catalogs, question.family, to);
    if (entry === null) {
      target.problem = `no ${question.family} catalog for OpenShift ${question.openshiftTo} is published on this site`;
      return target;
    }
    const name = String(entry.name);
    target.catalog = name;
    const index = await readJson(indexPath(name));
    const info = ((index || {}).packages || {})[pkg];
    if (info === undefined || info === null || !Object.hasOwn((index || {}).packages || {}, pkg)) {
      target.problem = `package ${pkg} is not in catalog ${name}`;
      return target;
    }
    target.packagePresent = true;
    target.channels = [...(info.channels || [])];
    target.defaultChannel = info.defaultChannel ?? null;
    const document = target.channels.includes(channel) ? await readJson(channelPath(name, pkg, channel)) : null;
    if (document === null) {
      target.problem = `package ${pkg} has no channel ${channel} in catalog ${name}`;
      return target;
    }
    target.channelPresent = true;
    const start = document.nodes.findIndex((node) => meta(node, "io.operatorframework.bundle.name") === bundle);
    let part;
    if (start < 0) {
      // OLM resolves from the installed CSV, listed in the channel or not (spec §3.1)
      const order = document.v0Order || [];
      const startHop = order.find((i) => updatesFrom(document.nodes[i], bundle, version));
      if (startHop === undefined) {
        target.problem = `${bundle} is not in channel ${channel} of catalog ${name}, ` +
          `and no entry there replaces or skips it or has a skipRange holding ${version}`;
        return target;
      }
      part = pathPart(document, startHop, info.error ?? null);
      target.hops = [bundleOf(document.nodes[startHop], isHead(document, startHop)), ...part.hops];
    } else {
      target.installedPresent = true;
      part = pathPart(document, start, info.error ?? null);
      target.hops = part.hops;
    }
    target.head = part.head;
    target.stranded = part.stranded;
    target.deprecations = deprecationsOf(document, target.hops);
    target.path = !part.stranded.stranded;
    return target;
  }

  const NAMED_VERSION = /^(.+?)\.[vV]?([0-9]+\.[0-9]+\.[0-9]+\S*)$/;

  /* [name, version] of a bundle name; null for a bare version. */
  function unlistedBundle(installed) {
    const found = NAMED_VERSION.exec(installed);
    return found && !V_PREFIX.test(installed) ? [installed, found[2]] : null;
  }

  /* OLM v0's hops from a bundle the channel no longer lists. */
  function pathFromUnlisted(document, unlisted, catalog, packageError) {
    const [name, version] = unlisted;
    const first = (document.v0Order || []).find((i) => updatesFrom(document.nodes[i], name, version));
    const head = document.head ?? null;
    if (first === undefined) {
      return {hops: [], path: [], end: null, head: head !== null ? bundleOf(document.nodes[head], true) : null,
        stranded: {stranded: true, at: name,
          why: `${name} is no longer listed in channel ${document.channel} of catalog ${catalog}, and no entry ` +
            `there replaces or skips it or has a skipRange holding ${version}`}};
    }
    const part = pathPart(document, first, packageError);
    part.hops = [bundleOf(document.nodes[first], isHead(document, first)), ...part.hops];
    part.path = [first, ...part.path];
    return part;
  }

  const arrow = (bundles) => bundles.map((bundle) => bundle.version).join(" → ");

  function verdictOf(answer) {
    const {gate, target, stranded} = answer;
    if (gate.blocks) return gate.liftedBy ? "update-before-cluster-update" : "blocks-cluster-update";
    if (stranded.stranded) return "stranded";
    if (!target.path) return target.catalog ? "no-path-in-target" : "no-target-catalog";
    return answer.hops.length ? "update-available" : "up-to-date";
  }

  /* what an admin can do about a stranded operator. */
  function remedy(answer) {
    const head = answer.head;
    const reinstall = head ? `uninstall it and install ${head.bundle} (the head of channel ${answer.channel}) or ` +
      "another version with a path" : "uninstall it and install a version with a path";
    return `To move ${answer.package} on: switch its Subscription to a channel whose entries update ` +
      `${answer.stranded.at}, or ${reinstall}; there is no InstallPlan to approve, as OLM v0 creates none from here.`;
  }

  function installedVersion(answer) {
    return answer.hops.length ? answer.hops[answer.hops.length - 1].version : answer.installed.version;
  }

  /* a Manual subscription waits for each InstallPlan to be approved. */
  const APPROVE_MANUAL = "With installPlanApproval: Manual on its Subscription, approve each update's InstallPlan as OLM " +
    "creates it (one hop at a time): oc get installplan -n NAMESPACE lists them, and oc patch " +
    "installplan NAME -n NAMESPACE --type merge -p '{\"spec\":{\"approved\":true}}' approves one.";

  function stepsOf(answer) {
    const {question, installed, gate, target} = answer;
    const pkg = answer.package, channel = answer.channel, to = question.openshiftTo;
    const steps = [];
    if (!answer.installedListed) {
      steps.push(`${installed.bundle} is no longer listed in channel ${channel} of catalog ${answer.catalog}: ` +
        "OLM v0 resolves its updates from the installed CSV all the same.");
    }
    if (answer.hops.length) {
      steps.push(`OLM v0 updates ${pkg} in channel ${channel} one bundle at a time: ` +
        `${arrow([installed, ...answer.hops])}.`);
      steps.push(APPROVE_MANUAL);
    } else if (installed.head) {
      steps.push(`${installed.bundle} is the head of channel ${channel}: no update to take.`);
    }
    for (const item of answer.deprecations) steps.push(`Deprecated ${item.scope} ${item.name}: ${item.message}`);
    if (answer.stranded.stranded) {
      steps.push(`In catalog ${answer.catalog}, OLM v0 offers no update from ${answer.stranded.at}: ` +
        `${answer.stranded.why}.`);
      steps.push(remedy(answer));
    }
    if (gate.blocks && gate.liftedIn) {
      steps.push(`Before updating the cluster beyond ${gate.at}, update ${pkg} to ${gate.liftedBy} at ` +
        `least (in catalog ${gate.liftedIn}, once the cluster is on ${gate.at}): ${gate.reason}, ` +
        "so OLM reports Upgradeable=False while it is installed.");
    } else if (gate.blocks && gate.liftedBy) {
      steps.push(`Before updating the cluster to ${to}, update ${pkg} to ${gate.liftedBy} at least: ` +
        `${gate.reason}, so OLM reports Upgradeable=False while it is installed.`);
    } else if (gate.blocks) {
      steps.push(`${pkg} blocks updating the cluster beyond ${gate.at}: ${gate.reason}, and no update ` +
        `in channel ${channel} lifts it.`);
    }
    if (!gate.patchOnly && !(gate.blocks && !gate.liftedBy)) {
      steps.push(`Update the cluster from ${question.openshiftFrom} to ${to}.`);
    }
    if (target.problem && !target.catalog) {
      steps.push(`After the cluster update: ${target.problem}, so the operator's path there is not ` +
        "checked here.");
    } else if (target.problem) {
      steps.push(`After the cluster update: ${target.problem}.`);
    } else if (gate.patchOnly) {
      // the same catalog: its path is the one above
    } else if (target.hops.length) {
      steps.push(`In catalog ${target.catalog} (OpenShift ${to}), OLM v0 then takes ${pkg} ` +
        `${arrow([{version: installedVersion(answer)}, ...target.hops])}.`);
    } else if (target.installedPresent && !target.stranded.stranded) {
      steps.push(`In catalog ${target.catalog} (OpenShift ${to}), ${target.bundle} is the head of ` +
        `channel ${target.channel}: no update to take.`);
    }
    if (target.stranded && target.stranded.stranded && !gate.patchOnly) {
      steps.push(`In catalog ${target.catalog}, OLM v0 offers no update from ${target.stranded.at}: ` +
        `${target.stranded.why}.`);
    }
    return steps;
  }

  /* The answer to question from the site's published JSON: a Promise of the object the page shows
     and `site-gen plan-operator --format json` prints. */
  async function checkOperator(question, readJson) {
    const asked = normalizedQuestion(question);
    const answer = emptyAnswer(asked);
    const now = parseMinor(asked.openshiftFrom), to = parseMinor(asked.openshiftTo);
    if (now === null || to === null) {
      const bad = now === null ? asked.openshiftFrom : asked.openshiftTo;
      return notFound(answer, `"${bad}" is not an OpenShift minor such as 4.18`);
    }
    if (less(to, now)) {
      return notFound(answer, `OpenShift does not downgrade from ${asked.openshiftFrom} to ${asked.openshiftTo}`);
    }
    if (!asked.installed) return notFound(answer, "which version of the operator is installed?");
    const listing = await readJson(SiteGenPaths.catalogList);
    const catalogs = [...((listing || {}).catalogs || [])];
    if (!catalogs.length) return notFound(answer, "this site publishes no operator catalog");
    const entry = catalogFor(catalogs, asked.family, now);
    if (entry === null) {
      const families = catalogFamilies(catalogs);
      if (!families.includes(asked.family)) {
        return notFound(answer, `no catalog family ${asked.family} on this site (families: ${families.join(", ")})`);
      }
      return notFound(answer, `no ${asked.family} catalog for OpenShift ${asked.openshiftFrom} is published on this site`);
    }
    const name = String(entry.name);
    answer.catalog = name;
    const packages = ((await readJson(indexPath(name))) || {}).packages || {};
    const info = Object.hasOwn(packages, asked.package) ? packages[asked.package] : null;
    if (info === null) return notFound(answer, `package ${asked.package} is not in catalog ${name}`);
    const channel = asked.channel || info.defaultChannel || null;
    answer.channel = channel;
    answer.defaultChannel = channel === (info.defaultChannel ?? null);
    if (!channel || !(info.channels || []).includes(channel)) {
      return notFound(answer, `package ${asked.package} has no channel ${channel} in catalog ${name} ` +
        `(channels: ${(info.channels || []).join(", ")})`);
    }
    const document = await readJson(channelPath(name, asked.package, channel));
    if (document === null) {
      return notFound(answer, `channel ${channel} of package ${asked.package} is missing from this site`);
    }
    const start = findNode(document, asked.installed);
    answer.installedListed = start !== null;
    let part;
    if (start !== null) {
      answer.installed = bundleOf(document.nodes[start], isHead(document, start));
      part = pathPart(document, start, info.error ?? null);
    } else {  // removed from the catalog: OLM resolves from the installed CSV all the same
      const unlisted = unlistedBundle(asked.installed);
      if (unlisted === null) {
        return notFound(answer, `${asked.installed} is not a bundle or version of channel ${channel} ` +
          `of package ${asked.package} in catalog ${name} (give the installed CSV's name, as oc get csv shows it, ` +
          "to see what OLM does from it)");
      }
      answer.installed = {version: unlisted[1], bundle: unlisted[0], deprecated: null, maxOpenShiftVersion: null,
        head: false};
      part = pathFromUnlisted(document, unlisted, name, info.error ?? null);
    }
    answer.found = true;
    answer.hops = part.hops;
    answer.head = part.head;
    answer.stranded = part.stranded;
    answer.deprecations = deprecationsOf(document, [answer.installed, ...answer.hops]);
    answer.gate = gateOf(document, start, part.path, now, to);
    const end = answer.hops.length ? answer.hops[answer.hops.length - 1] : answer.installed;
    answer.target = await targetOf(readJson, catalogs, asked, channel, end.bundle, end.version, to);
    await liftOnTheWay(readJson, catalogs, asked, channel, end, answer.gate, now, to);
    answer.verdict = verdictOf(answer);
    answer.steps = stepsOf(answer);
    return answer;
  }

  return {checkOperator, pathComponent, indexPath, channelPath, catalogFor, catalogFamilies, normalize, parseMinor,
    parseMaxVersion, publishedMaximum, blocksNextMinor};
})();
