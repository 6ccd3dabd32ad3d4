/* The operator update checker's page (olm/checker.html): the form's choices come from the published
   JSON (olm/catalogs.json, each catalog's index.json and channel files); the answer from
   operator-rules.js. The query string (?family=&package=&channel=&installed=&from=&to=) reproduces a
   question, so an answer can be shared. */
"use strict";

(() => {
  const {el} = SiteGen;
  const rules = SiteGenOperatorRules;
  const form = document.getElementById("checker-form");
  const result = document.getElementById("checker-result");
  const root = form.dataset.root;
  const field = (id) => document.getElementById(id);
  const readJson = SiteGen.siteJsonReader(root);

  const HEADLINES = {
    "not-found": "No answer",
    "blocks-cluster-update": "This operator blocks the cluster update",
    "update-before-cluster-update": "Update the operator before the cluster",
    "stranded": "OLM v0 leaves this operator stranded",
    "no-path-in-target": "No path in the target minor's catalog",
    "no-target-catalog": "This site has no catalog for the target minor",
    "update-available": "OLM v0 offers updates",
    "up-to-date": "Up to date",
  };

  let catalogs = [];

  function datalist(id, values) {
    field(id).replaceChildren(...values.map((value) => el("option", {value})));
  }

  const minorsOf = (family) => catalogs.filter((entry) => entry.family === family.trim()).map((entry) => entry.openshift);

  /* The family's minors as choices: the URL's, else its first minor and the next one. */
  function chooseMinors(wanted) {
    const minors = minorsOf(field("family").value);
    datalist("checker-minors", minors);
    const from = wanted.from ?? minors[0] ?? "";
    field("from").value = from;
    field("to").value = wanted.to ?? minors[minors.indexOf(from) + 1] ?? from;
  }

  const catalogNow = () => rules.catalogFor(catalogs, field("family").value.trim(),
    rules.parseMinor(field("from").value.trim()));

  async function packageInfo() {
    const entry = catalogNow();
    if (!entry) return {};
    const index = await readJson(rules.indexPath(entry.name));
    return {entry, packages: (index && index.packages) || {}};
  }

  async function choosePackages() {
    const {packages} = await packageInfo();
    datalist("checker-packages", Object.keys(packages || {}));
  }

  async function chooseChannels(wanted) {
    const {entry, packages} = await packageInfo();
    const info = packages && Object.hasOwn(packages, field("package").value.trim())
      ? packages[field("package").value.trim()] : null;
    const channels = info ? info.channels : [];
    datalist("checker-channels", channels);
    if (wanted.channel !== undefined) field("channel").value = wanted.channel;
    field("channel").placeholder = info && info.defaultChannel ? `the default: ${info.defaultChannel}` : "the package's default";
    const channel = field("channel").value.trim() || (info && info.defaultChannel);
    if (!info || !channel || !channels.includes(channel)) return datalist("checker-versions", []);
    const document = await readJson(rules.channelPath(entry.name, field("package").value.trim(), channel));
    datalist("checker-versions", document ? document.nodes.map((node) => node.version) : []);
  }

  function question() {
    return {family: field("family").value, package: field("package").value, channel: field("channel").value.trim() || null,
      installed: field("installed").value, openshiftFrom: field("from").value, openshiftTo: field("to").value};
  }

  /* The channel's page, relative to this page (olm/checker.html). */
  const channelHref = (catalog, pkg, channel) =>
    SiteGen.siteHref(SiteGenPaths.channelPage(catalog, pkg, channel).slice(SiteGenPaths.olmDir.length + 1));

  function bundleItem(bundle) {
    return el("li", {class: "hop", "data-bundle": bundle.bundle},
      el("strong", {}, bundle.version), " ", el("code", {}, bundle.bundle),
      bundle.head ? " (the channel head)" : null,
      bundle.maxOpenShiftVersion ? ` · maxOpenShiftVersion ${bundle.maxOpenShiftVersion}` : null,
      bundle.deprecated ? el("span", {class: "deprecated"}, ` · deprecated: ${bundle.deprecated}`) : null);
  }

  function section(name, title, ...children) {
    return el("section", {class: `checker-${name}`, "data-part": name}, el("h2", {}, title), ...children);
  }

  function render(answer) {
    window.operatorAnswer = answer;
    result.dataset.verdict = answer.verdict;
    const parts = [el("p", {class: "checker-verdict", "data-verdict": answer.verdict},
      el("strong", {}, HEADLINES[answer.verdict] || answer.verdict))];
    if (!answer.found) {
      parts.push(el("p", {class: "checker-problem"}, answer.problem));
      result.replaceChildren(...parts);
      return;
    }
    parts.push(el("ol", {class: "checker-steps"}, answer.steps.map((step) => el("li", {}, step))));
    const channel = el("a", {href: channelHref(answer.catalog, answer.package, answer.channel)},
      `${answer.package} ${answer.channel}`);
    parts.push(section("hops", "Updates OLM v0 takes",
      el("p", {}, "In ", channel, ` (catalog ${answer.catalog}, OpenShift ${answer.question.openshiftFrom}), from:`),
      el("ul", {class: "checker-installed"}, bundleItem(answer.installed)),
      answer.hops.length ? el("ol", {class: "checker-hops"}, answer.hops.map(bundleItem))
        : el("p", {}, answer.installed.head ? "None: it is the channel head." : "None (see below).")));
    parts.push(section("deprecations", "Deprecations",
      answer.deprecations.length
        ? el("ul", {}, answer.deprecations.map((d) => el("li", {}, `${d.scope} ${d.name}: ${d.message}`)))
        : el("p", {}, "None on the way.")));
    const gate = answer.gate;
    parts.push(section("gate", "Cluster gate (olm.maxOpenShiftVersion)",
      el("p", {}, gate.patchOnly ? "A patch update: never blocked."
        : gate.blocks ? `Blocks the update to ${answer.question.openshiftTo} beyond ${gate.at}: ${gate.reason}. ` +
          (gate.liftedBy ? `Updating to ${gate.liftedBy} lifts it` +
            (gate.liftedIn ? ` (in catalog ${gate.liftedIn}, on ${gate.at}).` : ".")
            : "No update in this channel lifts it.")
          : `Does not block the update to ${answer.question.openshiftTo}` +
            (gate.maxOpenShiftVersion ? ` (maxOpenShiftVersion ${gate.maxOpenShiftVersion}).` : " (no maximum)."))));
    const target = answer.target;
    const targetParts = [];
    if (target.problem) targetParts.push(el("p", {}, target.problem + "."));
    else {
      targetParts.push(el("p", {}, "From ", el("code", {}, target.bundle), " in ",
        el("a", {href: channelHref(target.catalog, answer.package, target.channel)}, `${answer.package} ${target.channel}`),
        ` (catalog ${target.catalog})` + (target.installedPresent ? ":" : ", which does not list it:")));
      targetParts.push(target.hops.length ? el("ol", {class: "checker-target-hops"}, target.hops.map(bundleItem))
        : el("p", {}, target.stranded && target.stranded.stranded ? "No update." : "It is the channel head there."));
      for (const d of target.deprecations) targetParts.push(el("p", {class: "deprecated"}, `${d.scope} ${d.name}: ${d.message}`));
    }
    parts.push(section("target", `After the cluster update (OpenShift ${answer.question.openshiftTo})`, ...targetParts));
    // the why is in the steps already: here only where, once per catalog (it was the same paragraph four times)
    const stranded = [[answer.stranded, answer.catalog], [target.stranded, target.catalog]].filter(([s]) => s && s.stranded);
    if (stranded.length) {
      parts.push(section("stranded", "Stranded",
        stranded.map(([s, catalog]) => el("p", {}, `In catalog ${catalog}: OLM v0 offers no update from ${s.at}.`))));
    }
    result.replaceChildren(...parts);
  }

  async function answer() {
    const asked = question();
    const query = new URLSearchParams({family: asked.family, from: asked.openshiftFrom, to: asked.openshiftTo,
      package: asked.package.trim(), installed: asked.installed.trim()});
    if (asked.channel) query.set("channel", asked.channel);
    history.replaceState(null, "", "?" + query.toString());
    result.dataset.verdict = "";
    try {
      render(await rules.checkOperator(asked, readJson));
    } catch (error) {
      result.dataset.verdict = "error";
      result.replaceChildren(el("p", {class: "checker-problem"}, error.message));
    }
  }

  async function start() {
    const listing = await readJson(SiteGenPaths.catalogList);
    catalogs = (listing && listing.catalogs) || [];
    const params = new URLSearchParams(window.location.search);
    const families = [...new Set(catalogs.map((entry) => entry.family))];
    // each choice shows the catalogs it stands for: the site's names, not the cluster's CatalogSource names
    field("checker-families").replaceChildren(...families.map((family) => el("option", {value: family,
      label: `${family}: ${catalogs.filter((entry) => entry.family === family).map((entry) => entry.name).join(", ")}`})));
    field("family").value = params.get("family") ?? families[0] ?? "";
    chooseMinors({from: params.get("from") ?? undefined, to: params.get("to") ?? undefined});
    await choosePackages();
    field("package").value = params.get("package") ?? "";
    field("installed").value = params.get("installed") ?? "";
    await chooseChannels({channel: params.get("channel") ?? ""});
    field("family").addEventListener("change", async () => { chooseMinors({}); await choosePackages(); await chooseChannels({}); });
    field("from").addEventListener("change", async () => { await choosePackages(); await chooseChannels({}); });
    field("package").addEventListener("change", () => chooseChannels({channel: ""}));
    field("channel").addEventListener("change", () => chooseChannels({}));
    form.addEventListener("submit", (event) => { event.preventDefault(); answer().then(scrollToAnswer); });
    form.dataset.ready = "true";
    if (params.has("package") && params.has("installed")) {
      await answer();
      scrollToAnswer();  // opened from a shared link: the answer, not the form, is what the admin came for
    }
  }

  function scrollToAnswer() {
    window.scrollTo(0, Math.floor(result.getBoundingClientRect().top + window.scrollY));
  }

  start().catch((error) => {
    result.dataset.verdict = "error";
    result.replaceChildren(el("p", {class: "checker-problem"}, error.message));
  });
})();
