/* The operators installed on a cluster, the only copy of these rules: which operators what
   `oc get subscriptions,clusterserviceversions -A` prints holds, and what they say about the
   cluster's route. The planner page runs them, and so does `site-gen plan --cluster`
   (site_gen/planner/cluster_operators.py and operator_findings.py, through site_gen/js_rules), so both
   give the same answer (the cluster corpus holds them to it). Everything happens here, in the page: the
   pasted text is never sent anywhere; only the site's own catalog JSON is read. */
"use strict";

const SiteGenClusterOperators = (() => {
  const {ClusterError, parseDocument, isMapping, field} = SiteGenCluster;
  const {compareTuples} = SiteGenPlanner;
  const PROPERTIES_ANNOTATION = "operatorframework.io/properties";
  const MAX_PROPERTY = "olm.maxOpenShiftVersion";
  const COPIED_LABEL = "olm.copiedFrom";
  const NUMBER_TEXT = Symbol("a JSON number as written");
  const EXPECTED = "expected the output of “oc get subscriptions.operators.coreos.com," +
    "clusterserviceversions.operators.coreos.com -A -o yaml”";
  const SEPARATOR = /^---[ \t]*(?:#.*)?$/m;

  const {parseMaxVersion, publishedMaximum, normalize, indexPath, catalogFamilies} = SiteGenOperatorRules;   // assets/operator-rules.js

  /* The JSON text of a value, as Python's json.dumps(value, separators=(",", ":"), ensure_ascii=False)
     writes it; a number kept as written (NUMBER_TEXT) is its text. */
  function pyJson(value) {
    if (value === undefined) return "null";
    if (isMapping(value) && NUMBER_TEXT in value) return value[NUMBER_TEXT];
    if (Array.isArray(value)) return `[${value.map(pyJson).join(",")}]`;
    if (isMapping(value)) return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${pyJson(v)}`).join(",")}}`;
    return JSON.stringify(value);
  }

  function maxOpenShiftVersion(csv) {
    const annotation = field(csv, "metadata", "annotations", PROPERTIES_ANNOTATION);
    if (annotation === undefined || annotation === null) return {raw: [], value: null, error: null};
    let parsed = null;
    if (typeof annotation === "string") {
      try {
        // OLM holds a value as raw JSON: a number keeps its text (4.10 stays 4.10), from the reviver's source
        parsed = JSON.parse(annotation, function keepNumberText(key, value, context) {
          if (key === "value" && typeof value === "number" && isMapping(this) && this.type === MAX_PROPERTY &&
              context && typeof context.source === "string") {
            return {[NUMBER_TEXT]: context.source};
          }
          return value;
        });
      } catch {
        parsed = null;
      }
    }
    const properties = isMapping(parsed) ? parsed.properties : undefined;
    if (!Array.isArray(properties) || !properties.every(isMapping)) {
      return {raw: [], value: null, error: `the annotation ${PROPERTIES_ANNOTATION} is not {"properties": [...]} JSON`};
    }
    const raw = properties.filter((p) => p.type === MAX_PROPERTY).map((p) => pyJson(p.value === undefined ? null : p.value));
    const result = parseMaxVersion(raw);
    return {raw, value: result.value ? `${result.value[0]}.${result.value[1]}` : null, error: result.error};
  }

  const text = (value) => (typeof value === "string" && value ? value : null);

  function documentsOf(source) {
    if (/^\s*[{[]/.test(source)) return [source];
    return source.split(new RegExp(SEPARATOR.source, "gm")).filter((part) => part.trim() &&
      !part.split(/\r?\n|\r/).every((line) => ["", "..."].includes(line.trim()) || line.trimStart().startsWith("#")));
  }

  function parseObjects(source, notMapping = `This is not a Kubernetes object: ${EXPECTED}.`) {
    const objects = [];
    const documents = documentsOf(source);
    if (!documents.length) throw new ClusterError(`The text is empty: ${EXPECTED}.`);
    documents.forEach((documentText, index) => {
      const where = documents.length > 1 ? `document ${index + 1}: ` : "";
      let document;
      try {
        document = parseDocument(documentText, notMapping);
      } catch (error) {
        if (!(error instanceof ClusterError)) throw error;
        throw new ClusterError(where + error.message, error.detail);
      }
      const kind = document.kind;
      if (kind === "List" || (typeof kind === "string" && kind.endsWith("List") && "items" in document)) {
        const items = document.items;
        if (!Array.isArray(items)) throw new ClusterError(`${where}the List has no items: ${EXPECTED}.`);
        items.forEach((item, i) => {
          if (!isMapping(item)) throw new ClusterError(`${where}item ${i} of the List is not an object.`);
          objects.push(item);
        });
      } else {
        objects.push(document);
      }
    });
    return objects;
  }

  /* parseObjects for a caller that cannot catch a ClusterError (the terminal, through js_rules): the
     objects, or the refusal's message and the parser's detail. */
  function parseObjectsOrRefusal(source, notMapping) {
    try {
      return {objects: parseObjects(source, notMapping ?? undefined)};
    } catch (error) {
      if (!(error instanceof ClusterError)) throw error;
      return {error: error.message, detail: error.detail || ""};
    }
  }

  const nameOf = (item) => [text(field(item, "metadata", "namespace")) || "", text(field(item, "metadata", "name")) || ""];
  const key = (item) => JSON.stringify(nameOf(item));

  function isCopied(csv) {
    const labels = field(csv, "metadata", "labels");
    return (isMapping(labels) && COPIED_LABEL in labels) || field(csv, "status", "reason") === "Copied";
  }

  function operator(namespace, subscription, csvName, csv) {
    const spec = subscription ? field(subscription, "spec") : undefined;
    const version = csv ? field(csv, "spec", "version") : undefined;
    return {namespace, subscription: subscription ? nameOf(subscription)[1] || null : null,
            package: text(field(spec, "name")), channel: text(field(spec, "channel")),
            source: text(field(spec, "source")), sourceNamespace: text(field(spec, "sourceNamespace")),
            csv: csvName, csvFound: csv !== null, version: typeof version === "string" ? version : null,
            maxOpenShiftVersion: csv ? maxOpenShiftVersion(csv) : null};
  }

  function readOperators(objects) {
    const subscriptions = new Map();
    const csvs = new Map();
    const ignored = {};
    for (const item of objects) {
      if (item.kind === "Subscription") subscriptions.set(key(item), item);
      else if (item.kind === "ClusterServiceVersion") csvs.set(key(item), item);
      else if (item.kind !== "ClusterVersion") {
        const label = typeof item.kind === "string" && item.kind ? item.kind : "(no kind)";
        ignored[label] = (ignored[label] || 0) + 1;
      }
    }
    if (!subscriptions.size && !csvs.size) {
      throw new ClusterError(`There is no Subscription and no ClusterServiceVersion here: ${EXPECTED}.`);
    }
    const operators = [];
    const claimed = new Set();
    for (const subscription of subscriptions.values()) {
      const [namespace] = nameOf(subscription);
      const installed = text(field(subscription, "status", "installedCSV"));
      const csvKey = JSON.stringify([namespace, installed]);
      const csv = installed && csvs.has(csvKey) ? csvs.get(csvKey) : null;
      if (csv !== null) claimed.add(csvKey);
      operators.push(operator(namespace, subscription, installed, csv));
    }
    for (const [csvKey, csv] of csvs) {
      const [namespace, name] = JSON.parse(csvKey);
      if (!claimed.has(csvKey) && !isCopied(csv)) operators.push(operator(namespace, null, name || null, csv));
    }
    const sortKey = (o) => [o.namespace, o.package || "", o.csv || "", o.subscription || ""];
    operators.sort((a, b) => compareTuples(sortKey(a), sortKey(b)));
    const sortedIgnored = Object.fromEntries(Object.keys(ignored).sort().map((k) => [k, ignored[k]]));
    return {operators, ignored: sortedIgnored};
  }

  function splitCluster(objects) {
    if (objects.length === 1) return [objects[0], []];
    const versions = objects.filter((item) => item.kind === "ClusterVersion");
    if (!versions.length) {
      throw new ClusterError(`There is no ClusterVersion among these ${objects.length} objects: add the output of ` +
        "“oc get clusterversion version -o json” to them.");
    }
    if (versions.length > 1) throw new ClusterError(`There are ${versions.length} ClusterVersions here: give one cluster's.`);
    return [versions[0], objects.filter((item) => item !== versions[0])];
  }

  const hasOperators = (objects) => objects.some((item) => ["Subscription", "ClusterServiceVersion"].includes(item.kind));


  /* --- What the operators say about the route --- */

  /* A cluster version's minor; a prerelease or build suffix is allowed. */
  const minorOf = (version) => SiteGenOperatorRules.parseMinor((version || "").split(/[-+]/)[0]);

  const minorText = (minor) => `${minor[0]}.${minor[1]}`;
  const cmp = (a, b) => (a[0] - b[0]) || (a[1] - b[1]);
  const operatorName = (o) => o.package || o.csv || o.subscription || "?";
  const where = (o) => (o.csv ? `${o.namespace}/${o.csv}` : `${o.namespace}/?`);

  function csvGate(o, now, to) {
    const maximum = o.maxOpenShiftVersion;
    const gate = {blocks: false, known: maximum !== null, at: null, reason: null};
    if (maximum === null || cmp(to, now) <= 0) return gate;
    if (maximum.error) {
      return Object.assign(gate, {blocks: true, at: minorText(now),
        reason: `${where(o)} has invalid olm.maxOpenShiftVersion properties: ${maximum.error}`});
    }
    const value = minorOf(maximum.value || "");
    if (value !== null && cmp(value, to) < 0) {
      Object.assign(gate, {blocks: true, at: minorText(cmp(value, now) > 0 ? value : now),
        reason: `maximum supported OCP version for ${where(o)} is ${maximum.value}`});
    }
    return gate;
  }

  function lifts(hop, to) {
    if (!hop.maxOpenShiftVersion) return true;
    const maximum = publishedMaximum(hop.maxOpenShiftVersion);
    return maximum.value !== null && cmp(normalize(...maximum.value), to) >= 0;
  }

  async function catalogFamily(o, catalogs, readJson) {
    const families = catalogFamilies(catalogs);
    const source = o.source;
    if (families.includes(source)) return [source, `the Subscription's source ${source}`];
    const holding = [];
    for (const family of families) {
      for (const entry of catalogs.filter((item) => item.family === family)) {
        const index = await readJson(indexPath(String(entry.name)));
        const packages = (index || {}).packages || {};
        if (Object.prototype.hasOwnProperty.call(packages, o.package)) {
          holding.push(family);
          break;
        }
      }
    }
    const named = source ? `its source ${source} is not a catalog family of this site` : "it names no source";
    if (holding.length === 1) return [holding[0], `the only catalog family of this site holding ${o.package} (${named})`];
    if (!holding.length) return [null, `no catalog of this site holds package ${o.package}, and ${named}`];
    return [null, `the catalog families ${holding.join(", ")} all hold package ${o.package}, and ${named}`];
  }

  function unchecked(o, now, to, problem) {
    return {...o, family: null, familyFrom: null, checked: false, problem, gate: csvGate(o, now, to),
            liftedBy: null, update: null, path: null, stranded: null, deprecations: [], verdict: null, steps: []};
  }

  async function finding(o, now, to, catalogs, readJson, checkOperator) {
    const f = unchecked(o, now, to, null);
    if (!o.package) return Object.assign(f, {problem: "it has no Subscription, so its package and catalog are not known"});
    if (!o.csv) return Object.assign(f, {problem: "its Subscription has installed nothing yet (no status.installedCSV)"});
    const [family, how] = await catalogFamily(o, catalogs, readJson);
    if (family === null) return Object.assign(f, {problem: how});
    Object.assign(f, {family, familyFrom: how});
    const answer = await checkOperator({family, package: o.package, channel: o.channel, installed: o.csv,
                                        openshiftFrom: minorText(now), openshiftTo: minorText(to)}, readJson);
    Object.assign(f, {verdict: answer.verdict, steps: answer.steps});
    if (!answer.found) return Object.assign(f, {problem: answer.problem});
    f.checked = true;
    const hops = answer.hops;
    const last = hops[hops.length - 1];
    f.update = {channel: answer.channel, catalog: answer.catalog,
                to: last ? {bundle: last.bundle, version: last.version} : null};
    if (f.gate.blocks) {
      const lift = hops.find((hop) => lifts(hop, to));
      f.liftedBy = lift ? {bundle: lift.bundle, version: lift.version, in: null} : null;
      const checked = answer.gate;
      if (!lift && checked.liftedIn) {  // offered once the cluster is on the minor where it blocks
        f.liftedBy = {bundle: checked.liftedBy, version: checked.liftedVersion, in: checked.liftedIn};
      }
    }
    const target = answer.target || {};
    if (cmp(to, now) !== 0) {
      f.path = {catalog: target.catalog === undefined ? null : target.catalog, present: Boolean(target.path),
                why: target.problem || (target.stranded || {}).why || null};
    }
    f.deprecations = answer.deprecations;
    f.stranded = answer.stranded;
    return f;
  }

  const line = (kind, operator, text, detail) => ({kind, operator, text, detail});

  function summary(findings, catalogs) {
    const lines = [];
    for (const f of findings) {
      const lift = f.liftedBy;
      if (!f.gate.blocks) continue;
      const then = lift && !lift.in ? `update it to ${lift.bundle} first`
        : lift ? `update it to ${lift.bundle} (catalog ${lift.in}) once the cluster is on ${f.gate.at}, before going further`
          : f.checked ? "nothing in its channel lifts it" : "whether an update lifts it is not known here";
      lines.push(line("blocks", operatorName(f), `${operatorName(f)} blocks updates beyond ${f.gate.at}: ${then}.`,
        f.gate.reason));
    }
    for (const f of findings) {
      if (!f.stranded || !f.stranded.stranded) continue;
      lines.push(line("stranded", operatorName(f), `${operatorName(f)} is stranded: OLM v0 offers it no update from ` +
        `${f.stranded.at}; reinstall it at a version with a path, or switch its channel.`, f.stranded.why));
    }
    for (const f of findings) {
      if (f.path === null || f.path.present) continue;
      if (!f.path.catalog) {
        lines.push(line("not-checked", operatorName(f), `${operatorName(f)} is not checked after the update: ` +
          "this site has no catalog of its family for the target minor.", f.path.why));
      } else {
        lines.push(line("no-path", operatorName(f), `${operatorName(f)} has no path in ${f.path.catalog}.`, f.path.why));
      }
    }
    for (const f of findings) {
      const met = f.deprecations.filter((item) => item.scope !== "bundle" || item.name === f.csv);
      if (!met.length) continue;
      lines.push(line("deprecated", operatorName(f), `${operatorName(f)} is deprecated: ` +
        met.map((item) => `${item.scope} ${item.name}`).join(", ") + ".", met.map((item) => item.message).join(" ")));
    }
    for (const f of findings) {  // Red Hat's procedure: operators at their latest version before the cluster update
      if (!(f.update && f.update.to && !f.gate.blocks && f.path !== null)) continue;
      lines.push(line("update-first", operatorName(f), `${operatorName(f)}: update it to ${f.update.to.bundle} ` +
        "before the cluster update.", `OLM v0 offers it in channel ${f.update.channel} of catalog ${f.update.catalog}`));
    }
    for (const f of findings) {
      if (!f.checked && f.package && catalogs) {
        lines.push(line("not-checked", operatorName(f), `${operatorName(f)} is not checked against a catalog.`, f.problem));
      } else if (!f.gate.known) {
        lines.push(line("not-checked", operatorName(f), `${operatorName(f)}: its own olm.maxOpenShiftVersion is not known.`,
          `its CSV ${f.csv} is not among the documents`));
      }
    }
    return lines;
  }

  async function evaluateOperators(read, versionFrom, versionTo, readJson, checkOperator) {
    let now = minorOf(versionFrom);
    let to = minorOf(versionTo);
    const result = {from: now ? minorText(now) : null, to: to ? minorText(to) : null, catalogs: true, message: null,
                    ignored: read.ignored, summary: [], operators: []};
    if (now === null || to === null) result.message = "There is no target minor to check the operators against: choose a target.";
    const listing = await readJson(SiteGenPaths.catalogList);
    const catalogs = ((listing || {}).catalogs || []).filter(isMapping);
    if (!catalogs.length) {
      result.catalogs = false;
      result.message = "This site publishes no operator catalog, so the operators cannot be checked here " +
        "against a catalog; only their own olm.maxOpenShiftVersion is.";
    }
    now = now || [0, 0];
    to = to || now;
    // every operator at once: their reads overlap (the page fetches in parallel, the terminal hands over
    // the files of all operators in one round), and the findings keep the operators' order
    const findings = await Promise.all(read.operators.map((o) => (catalogs.length && result.to
      ? finding(o, now, to, catalogs, readJson, checkOperator)
      : unchecked(o, now, to, !catalogs.length ? "this site publishes no operator catalog" : "there is no target minor"))));
    result.operators = findings;
    result.summary = summary(findings, catalogs.length > 0);
    return result;
  }

  function operatorsToUpdateFirst(result) {
    const names = [];
    for (const f of result.operators) {
      if (f.gate.blocks && f.liftedBy) {
        names.push(`${operatorName(f)} (${f.namespace}) to ${f.liftedBy.bundle} at least: it blocks updates beyond ${f.gate.at}`);
      } else if (f.gate.blocks) {
        names.push(`${operatorName(f)} (${f.namespace}): it blocks updates beyond ${f.gate.at} and no update lifts it`);
      } else if (f.update && f.update.to) {
        names.push(`${operatorName(f)} (${f.namespace}) to ${f.update.to.bundle}`);
      }
    }
    return names;
  }

  async function attachOperators(answer, read, readJson, checkOperator) {
    const target = answer.to || answer.cluster.target;
    answer.operators = await evaluateOperators(read, answer.cluster.version, target, readJson, checkOperator);
    if (answer.procedure.length) {
      answer.procedure = SiteGenPlanner.eusProcedure(answer.sections[0], operatorsToUpdateFirst(answer.operators));
    }
    return answer;
  }

  return {parseObjects, parseObjectsOrRefusal, readOperators, splitCluster, hasOperators, maxOpenShiftVersion, evaluateOperators,
    attachOperators};
})();
