/* What an update from release A to release B changes, from their contents records
   (OUT/releases/<version>/<arch>/contents.json). The one implementation of these rules: the compare page
   runs it in the browser, and `site-gen release diff`, the published change files and the planner's hops
   run this same file through site_gen/js_rules (an embedded V8). docs/release-diff.md describes the output.

   Sources of the rules (facts, not code): oc `pkg/cli/admin/release/info.go` (calculateDiff,
   describeReleaseDiff, releaseDiffContentChanges: images changed / rebuilt / added / removed, commit
   ranges, compare links, component lines); cluster-version-operator `lib/manifest/manifest.go`
   (GetImplicitlyEnabledCapabilities) and `pkg/risk/adminack/adminack.go` with `pkg/internal` UpdateType
   (which admin gates an update needs). Needs olm-blang.js (SiteGenBlang) loaded first: the CVO reads
   versions with blang/semver, as OLM does.

   Every list is sorted by plain code-unit order and every object is built in a fixed key order, so the
   same two records always give the same bytes. */
"use strict";

const SiteGenReleaseDiff = (() => {
  class ReleaseDiffError extends Error {
    constructor(message) {
      super(message);
      this.name = "ReleaseDiffError";
    }
  }

  const GITHUB = "https://github.com/";
  const CRD = "apiextensions.k8s.io/CustomResourceDefinition";
  const ADMIN_GATE_KEY = /^ack-([4-5][.][0-9]{1,})-[^-]/;  // the CVO's adminAckGateFmt
  const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = (texts) => [...texts].sort();  // strings: the default order is by UTF-16 code unit, as byText
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

  /* Shared references. A contents file may keep bulk keys out of itself, in content-addressed files
     (releases/shared/<sha256 of the file>.json), named under its key "shared" (docs/release-contents.md):
     {KEY: HEX} (the key's value is that file's JSON), or, for an object, {KEY: {"base": HEX, "patch":
     {NAME: value | null}}} (the base file's object with the patch's entries set, null ones deleted, names
     sorted). Every reader (the compare page, the planner's hops, and through site_gen/js_rules the CLI
     and the build's change files) goes through `resolve`; `sharedFiles` says which files to read first. */
  const SHA256 = /^[0-9a-f]{64}$/;

  function sharedRefs(record) {
    if (!isObject(record) || !own(record, "shared")) return [];
    const shared = record.shared;
    const where = isObject(record) && typeof record.version === "string" ? named(record) : "a contents file";
    if (!isObject(shared)) throw new ReleaseDiffError(`the contents of ${where} have a "shared" that is not an object`);
    return Object.entries(shared).map(([key, ref]) => {
      const base = isObject(ref) ? ref.base : ref;
      if (typeof base !== "string" || !SHA256.test(base) || (isObject(ref) && !isObject(ref.patch))) {
        throw new ReleaseDiffError(`the contents of ${where} have a "shared" reference for "${key}" this site-gen does not read`);
      }
      return [key, base, isObject(ref) ? ref.patch : null];
    });
  }

  /* The sha256 names of the shared files `record` refers to, each once, in order. */
  const sharedFiles = (record) => [...new Set(sharedRefs(record).map(([, hex]) => hex))];

  /* The whole record: `record` with every shared reference replaced by its value, from `parts` ({HEX:
     parsed file}); a record without "shared" as it is. The keys come in the file's order, the shared ones
     where "shared" stands. The record is not changed (a kept record serves several diffs). */
  function resolve(record, parts) {
    const refs = sharedRefs(record);
    if (!refs.length && !(isObject(record) && own(record, "shared"))) return record;
    const out = {};
    for (const [key, value] of Object.entries(record)) {
      if (key !== "shared") {
        out[key] = value;
        continue;
      }
      for (const [name, hex, patch] of refs) {
        if (!isObject(parts) || !own(parts, hex)) {
          throw new ReleaseDiffError(`the contents of ${named(record)} name the shared file ${hex}.json for "${name}", which is missing`);
        }
        const part = parts[hex];
        if (patch === null) {
          out[name] = part;
          continue;
        }
        if (!isObject(part)) {
          throw new ReleaseDiffError(`the shared file ${hex}.json (for "${name}" of ${named(record)}) is not an object`);
        }
        const merged = {};
        for (const entry of sorted(new Set([...Object.keys(part), ...Object.keys(patch)]))) {
          const entryValue = own(patch, entry) ? patch[entry] : part[entry];
          if (entryValue !== null) merged[entry] = entryValue;
        }
        out[name] = merged;
      }
    }
    return out;
  }

  /* The record at `url`, resolved, with its shared files fetched from `sharedUrl(hex)` (a page's reader:
     `fetchJSON(url)` answers the parsed JSON). */
  async function loadRecord(url, sharedUrl, fetchJSON) {
    const record = await fetchJSON(url);
    const hexes = sharedFiles(record);
    const values = await Promise.all(hexes.map((hex) => fetchJSON(sharedUrl(hex))));
    return resolve(record, Object.fromEntries(hexes.map((hex, i) => [hex, values[i]])));
  }

  /* `diff` for callers that pass the shared files apart (site_gen/js_rules keeps each one parsed once):
     `names[i]` is the sha256 name of `values[i]`. */
  function diffParts(a, b, names, ...values) {
    return diff(a, b, Object.fromEntries(names.map((name, i) => [name, values[i]])));
  }

  /* `resolve` with the shared files apart, as diffParts takes them. */
  function resolveParts(record, names, ...values) {
    return resolve(record, Object.fromEntries(names.map((name, i) => [name, values[i]])));
  }

  /* "4.10.0 (amd64)": how an error names a release. */
  const named = (record) => `${record.version} (${record.arch})`;

  /* The record, checked for what the diff reads; a record with "error" cannot be compared. */
  function checked(record, side) {
    if (!isObject(record) || typeof record.version !== "string" || typeof record.arch !== "string") {
      throw new ReleaseDiffError(`the ${side} side is not a contents record (it has no "version" and "arch")`);
    }
    if (own(record, "error")) {
      throw new ReleaseDiffError(`${side} release ${named(record)} has no readable contents: ${record.error}`);
    }
    for (const key of ["components", "images", "clusterOperators", "adminGates", "manifestFiles"]) {
      if (!isObject(record[key])) {
        throw new ReleaseDiffError(`the contents of ${named(record)} have no "${key}" object`);
      }
    }
    if (!Array.isArray(record.resources)) {
      throw new ReleaseDiffError(`the contents of ${named(record)} have no "resources" list`);
    }
    return record;
  }

  /* oc's component line label: the display name, else the key title-cased at each "-". */
  function componentLabel(key, displayName) {
    if (displayName) return displayName;
    return key.split("-").map((part) => (part ? part[0].toUpperCase() + part.slice(1) : part)).join(" ");
  }

  const componentLabels = (pairs) => pairs.map(([key, displayName]) => componentLabel(key, displayName));

  /* An object of a change document as the compare page and `site-gen release diff` name it:
     "Deployment.apps openshift-console/console", "Namespace openshift-console" (no group: core). */
  function objectName(entry) {
    const kind = entry.group ? `${entry.kind}.${entry.group}` : entry.kind;
    return `${kind} ${entry.namespace ? `${entry.namespace}/` : ""}${entry.name}`;
  }
  const objectNames = (entries) => entries.map(objectName);

  /* One line per entry of a change document's `components`, as oc words them ("Kubernetes upgraded
     from 1.21.0-rc.0 to 1.22.1"), or, with `arrow`, shorter for a page ("Kubernetes 1.28.7 → 1.29.6"). */
  function componentLines(components, arrow = false) {
    return components.map((component) => {
      const label = componentLabel(component.name, component.displayName ?? null);
      if (component.from === null) return `${label} ${component.to} (new)`;
      if (component.to === null) return `${label} removed (was ${component.from})`;
      if (component.from === component.to) return `${label} ${component.to} (display name changed)`;
      return arrow ? `${label} ${component.from} → ${component.to}`
        : `${label} upgraded from ${component.from} to ${component.to}`;
    });
  }

  /* Keys whose version or display name differ (oc compares both), sorted by key. */
  function components(a, b) {
    const keys = sorted(new Set([...Object.keys(a.components), ...Object.keys(b.components)]));
    const changes = [];
    for (const key of keys) {
      const old = own(a.components, key) ? a.components[key] : null;
      const next = own(b.components, key) ? b.components[key] : null;
      if (old && next && old.version === next.version && (old.displayName ?? null) === (next.displayName ?? null)) {
        continue;
      }
      changes.push({
        name: key,
        from: old ? old.version : null,
        to: next ? next.version : null,
        displayName: ((next ?? old).displayName) ?? null,
      });
    }
    return changes;
  }

  /* oc's digestOrRef: the digest of a pull spec by digest, else the whole pull spec; so a pull spec
     that differs only in its registry or repository is the same image. */
  function imageIdentity(pullSpec) {
    const at = pullSpec.lastIndexOf("@");
    return at >= 0 && pullSpec.slice(at + 1).includes(":") ? pullSpec.slice(at + 1) : pullSpec;
  }

  /* oc's codeChanged: both commit ids present and different. */
  const codeChanged = (old, next) => Boolean(old.commit) && Boolean(next.commit) && old.commit !== next.commit;

  /* path.Join as Go cleans it: no empty or "." segments, ".." climbs. */
  function cleanPath(path) {
    const parts = [];
    for (const part of path.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") parts.pop();
      else parts.push(part);
    }
    return "/" + parts.join("/");
  }

  /* oc's urlForRepoAndCommitRange, for GitHub repositories only (null otherwise). */
  const compareUrl = (repository, from, to) => githubUrl(repository, `compare/${from}...${to}`);

  /* `suffix` joined to the path of a GitHub repository URL as Go's path.Join does; null for other hosts. */
  function githubUrl(repository, suffix) {
    if (typeof repository !== "string" || !repository.startsWith(GITHUB)) return null;
    const rest = repository.slice("https://github.com".length);
    const end = rest.search(/[?#]/);
    const path = end < 0 ? rest : rest.slice(0, end);
    const tail = end < 0 ? "" : rest.slice(end);
    return `https://github.com${cleanPath(`${path}/${suffix}`)}${tail}`;
  }

  /* oc's urlForRepoAndCommit, for GitHub repositories only (null otherwise). */
  function commitUrl(repository, commit) {
    if (!commit) return null;
    return githubUrl(repository, `commit/${commit}`);
  }

  function images(a, b) {
    const changed = {}, rebuilt = [], added = [], removed = [];
    const groups = new Map();  // "repository\0from\0to" -> group
    const tags = sorted(new Set([...Object.keys(a.images), ...Object.keys(b.images)]));
    for (const tag of tags) {
      const old = own(a.images, tag) ? a.images[tag] : null;
      const next = own(b.images, tag) ? b.images[tag] : null;
      if (!old) {
        added.push(tag);
        continue;
      }
      if (!next) {
        removed.push(tag);
        continue;
      }
      if (imageIdentity(old.image) === imageIdentity(next.image)) continue;
      if (!codeChanged(old, next)) {
        rebuilt.push(tag);
        continue;
      }
      const repository = next.sourceRepository ?? null;
      changed[tag] = {sourceRepository: repository, from: old.commit, to: next.commit};
      // oc groups code changes by the new repository and the commit range
      const key = `${repository}\0${old.commit}\0${next.commit}`;
      if (!groups.has(key)) {
        const previous = old.sourceRepository ?? null;
        groups.set(key, {
          sourceRepository: repository,
          previousSourceRepository: previous === repository ? null : previous,
          from: old.commit,
          to: next.commit,
          // a range across two repositories compares nothing
          compareUrl: previous === repository ? compareUrl(repository, old.commit, next.commit) : null,
          images: [],
        });
      }
      groups.get(key).images.push(tag);
    }
    const commitGroups = [...groups.values()].sort((x, y) => byText(x.images[0], y.images[0]));
    return [{changed, rebuilt, added, removed}, commitGroups];
  }

  /* By file name and bytes (oc compares the files' bytes; the records carry their sha256). */
  function manifests(a, b) {
    const changed = [], added = [], removed = [];
    const names = sorted(new Set([...Object.keys(a.manifestFiles), ...Object.keys(b.manifestFiles)]));
    for (const name of names) {
      if (!own(a.manifestFiles, name)) added.push(name);
      else if (!own(b.manifestFiles, name)) removed.push(name);
      else if (a.manifestFiles[name] !== b.manifestFiles[name]) changed.push(name);
    }
    return {changed, added, removed};
  }

  /* library-go's resource id: group, kind, namespace ("" when cluster-scoped), name. */
  const resourceKey = (r) => `${r.group ?? ""}\0${r.kind}\0${r.namespace ?? ""}\0${r.name}`;
  const identity = (r) => ({group: r.group ?? "", kind: r.kind, namespace: r.namespace ?? null, name: r.name});

  /* Memos keyed on the `resources` lists themselves. In a build many pairs share their two lists (every
     z-stream of a minor names one shared resources file, kept parsed once: site_gen/js_rules), so each
     list is grouped once and each pair of lists compared once. WeakMaps: an entry lives only as long as
     its list, so nothing is held once the records are dropped. A list is read, never changed, by these
     rules and their callers; a caller gets its own copy of a result (`plainCopy`), never the memo's. */
  const groupings = new WeakMap();        // list -> grouped(list), read only
  const resourceChanges = new WeakMap();  // A's list -> WeakMap(B's list -> resourcesOf(A's, B's))

  function grouped(resources) {
    let found = groupings.get(resources);
    if (found !== undefined) return found;
    found = new Map();
    for (const resource of resources) {
      const key = resourceKey(resource);
      if (!found.has(key)) found.set(key, []);
      found.get(key).push(resource);
    }
    groupings.set(resources, found);
    return found;
  }

  /* A JSON value copied (objects in their key order), so a caller may change what it was given. */
  function plainCopy(value) {
    if (Array.isArray(value)) return value.map(plainCopy);
    if (value === null || typeof value !== "object") return value;
    const copy = {};
    for (const key of Object.keys(value)) copy[key] = plainCopy(value[key]);
    return copy;
  }

  /* Files that moved: for one object, a file only A has paired with a file only B has; files of the
     same profiles pair first (a payload may carry one file per profile for one object). */
  function renames(olds, nexts) {
    const oldFiles = new Map(olds.map((r) => [r.file, r]));
    const nextFiles = new Map(nexts.map((r) => [r.file, r]));
    const gone = sorted([...oldFiles.keys()].filter((file) => !nextFiles.has(file)));
    const come = sorted([...nextFiles.keys()].filter((file) => !oldFiles.has(file)));
    const pairs = [];
    const profiles = (file, files) => sorted(files.get(file).profiles ?? []).join(",");
    for (const file of [...gone]) {
      const match = come.find((other) => profiles(other, nextFiles) === profiles(file, oldFiles));
      if (match === undefined) continue;
      pairs.push([file, match]);
      gone.splice(gone.indexOf(file), 1);
      come.splice(come.indexOf(match), 1);
    }
    for (let i = 0; i < Math.min(gone.length, come.length); i++) pairs.push([gone[i], come[i]]);
    return pairs.sort((x, y) => byText(x[0], y[0]));
  }

  /* The common case, one object in the same file(s) on both sides, without building sets. */
  const sameFiles = (olds, nexts) => olds.length === nexts.length && olds.every((r, i) => r.file === nexts[i].file);

  /* Most objects: in the same files, deleted or not alike, and no CRD: nothing to tell, nothing to build. */
  const unchanged = (olds, nexts) => sameFiles(olds, nexts) && olds.length > 0 &&
    olds.every((r, i) => r.delete === nexts[i].delete) && `${olds[0].group ?? ""}/${olds[0].kind}` !== CRD;

  const served = (list) => new Set(list.flatMap((r) => r.servedVersions ?? []));

  /* What only resource identity shows: files renamed, objects newly deleted or dropped from the payload,
     CRD versions no longer served, capabilities enabled implicitly; computed once per pair of lists. */
  function resources(a, b) {
    let byNext = resourceChanges.get(a.resources);
    if (byNext === undefined) resourceChanges.set(a.resources, byNext = new WeakMap());
    let found = byNext.get(b.resources);
    if (found === undefined) byNext.set(b.resources, found = resourcesOf(a.resources, b.resources));
    return plainCopy(found);
  }

  /* `resources` of two lists (no memo). Two equal lists, the very same one included, can still tell
     something: implicit capabilities from several manifests of one object. */
  function resourcesOf(oldList, nextList) {
    const olds = grouped(oldList), nexts = grouped(nextList);
    const renamed = [], deleted = [], removed = [], crdVersionsNoLongerServed = [];
    const keys = sorted(new Set([...olds.keys(), ...nexts.keys()]));
    for (const key of keys) {
      const old = olds.get(key) ?? [], next = nexts.get(key) ?? [];
      if (unchanged(old, next)) continue;
      const id = identity((old[0] ?? next[0]));
      const kept = old.filter((r) => !r.delete), keptNext = next.filter((r) => !r.delete);
      if (old.length && next.length && !sameFiles(old, next)) {
        for (const [from, to] of renames(old, next)) renamed.push({...id, from, to});
      }
      const deleting = next.filter((r) => r.delete);
      if (deleting.length && !old.some((r) => r.delete)) {
        deleted.push({...id, file: sorted(deleting.map((r) => r.file))[0]});
      }
      if (kept.length && !next.length) {
        // the CVO stops managing it; the object stays on the cluster
        removed.push({...id, file: sorted(kept.map((r) => r.file))[0]});
      }
      if (`${id.group}/${id.kind}` === CRD && kept.length && next.length) {
        // only a delete manifest removes a CRD: one that merely left the payload stays, served as before
        const now = served(keptNext);
        const gone = sorted([...served(kept)].filter((version) => !now.has(version)));
        if (gone.length) crdVersionsNoLongerServed.push({name: id.name, versions: gone});
      }
    }
    return {renamed, deleted, removed, crdVersionsNoLongerServed,
      implicitCapabilities: implicitCapabilities(olds, nextList, null)};
  }

  /* The CVO's GetImplicitlyEnabledCapabilities. An object the cluster runs in A whose manifest in B needs
     capabilities A's manifest did not gets those capabilities enabled by the update, when the cluster has
     them disabled. With `enabled` (the cluster's enabled capabilities) this is the CVO's answer for that
     cluster; without it, every capability the update enables on some cluster that runs A's manifest.
     Profiles, feature sets and feature gates do not enter the CVO's rule; a manifest with no profile is
     applied by no cluster and counts as absent. */
  const implicitlyEnabledCapabilities = (a, b, enabled = null) =>
    implicitCapabilities(grouped(a.resources), b.resources, enabled);

  function implicitCapabilities(olds, nexts, enabled) {
    const has = enabled === null ? null : new Set(enabled);
    const included = (r) => (r.profiles ?? []).length > 0 &&
      (has === null || (r.capabilities ?? []).every((c) => has.has(c)));
    const found = new Set();
    for (const next of nexts) {
      const needs = next.capabilities ?? [];
      if (!needs.length || (has !== null && needs.every((c) => has.has(c)))) continue;
      for (const old of olds.get(resourceKey(next)) ?? []) {
        if (!included(old)) continue;
        const before = new Set(old.capabilities ?? []);
        for (const capability of needs) {
          if (!before.has(capability) && (has === null || !has.has(capability))) found.add(capability);
        }
      }
    }
    return sorted(found);
  }

  function clusterOperators(a, b) {
    const olds = a.clusterOperators, nexts = b.clusterOperators;
    const added = sorted(Object.keys(nexts).filter((name) => !own(olds, name)));
    const removed = sorted(Object.keys(olds).filter((name) => !own(nexts, name)));
    const changed = {};
    for (const name of sorted(Object.keys(olds).filter((n) => own(nexts, n)))) {
      const before = olds[name].versions ?? {}, after = nexts[name].versions ?? {};
      const operands = [];
      for (const operand of sorted(new Set([...Object.keys(before), ...Object.keys(after)]))) {
        const from = own(before, operand) ? before[operand] : null;
        const to = own(after, operand) ? after[operand] : null;
        if (from !== to) operands.push({name: operand, from, to});
      }
      if (operands.length) changed[name] = operands;
    }
    return {added, removed, changed};
  }

  function parseVersion(version) {
    try {
      return SiteGenBlang.parse(version);
    } catch (error) {
      if (error instanceof SiteGenBlang.SemverError) return null;
      throw error;
    }
  }

  /* The CVO's UpdateType: a major or minor update goes to a later major, or a later minor of the same
     major; a target that is not SemVer counts too. A z-stream update or a move to an older minor is
     neither, and the CVO's admin-ack risk does not apply to it. */
  function isMinorOrMajorUpdate(fromVersion, toVersion) {
    const from = parseVersion(fromVersion);
    if (from === null) throw new ReleaseDiffError(`the version ${fromVersion} is not SemVer`);
    const to = parseVersion(toVersion);
    if (to === null) return true;
    return from.major < to.major || (from.major === to.major && from.minor < to.minor);
  }

  /* The gates of `record` (the cluster's current release) that block an update to `toVersion` until
     openshift-config/admin-acks has KEY: "true": keys naming the release's own major.minor, when the
     update is a minor or major one (toVersion null: any such update). Returns [applying {KEY: message},
     invalid {KEY: the CVO's reason}]:
     a gate the CVO cannot read blocks too, and no acknowledgement lifts it. */
  function gatesFor(record, toVersion = null) {
    const applying = {}, invalid = {};
    const current = parseVersion(record.version);
    if (current === null) throw new ReleaseDiffError(`the version ${record.version} is not SemVer`);
    if (toVersion !== null && !isMinorOrMajorUpdate(record.version, toVersion)) return [applying, invalid];
    for (const key of sorted(Object.keys(record.adminGates))) {
      const message = record.adminGates[key];
      const match = ADMIN_GATE_KEY.exec(key);
      // the CVO's messages (checkAdminGate, gateApplicableToCurrentVersion); Go's %q as JSON quotes ASCII
      const invalidGate = (reason) => `admin-gates configmap gate ${JSON.stringify(key)} is invalid: ${reason}`;
      if (!match) {
        invalid[key] = invalidGate(`admin-gates configmap gate name ${key} has invalid format; must comply with ` +
          JSON.stringify(ADMIN_GATE_KEY.source));
        continue;
      }
      let gate;
      try {
        gate = SiteGenBlang.parse(`${match[1]}.0`);
      } catch (error) {
        if (!(error instanceof SiteGenBlang.SemverError)) throw error;
        invalid[key] = invalidGate(`failed to parse SemVer ack version from admin-gate ${JSON.stringify(key)}: ` +
          error.message);
        continue;
      }
      if (gate.major !== current.major || gate.minor !== current.minor) continue;
      if (message === "") invalid[key] = `admin-gates configmap gate ${key} must contain a non-empty value.`;
      else applying[key] = message;
    }
    return [applying, invalid];
  }

  /* The admin gates of the release `record` that an update from it to `toVersion` needs (see gatesFor). */
  const adminGates = (record, toVersion) => gatesFor(record, toVersion)[0];

  /* The command that gives the acknowledgement `key`. */
  const ackCommand = (key) =>
    `oc -n openshift-config patch cm admin-acks --patch '{"data":{${JSON.stringify(key)}:"true"}}' --type=merge`;

  /* The CVO's link for a gate's risk: the first https URL of the message (Go's [[:space:]] ends it)
     that Go's url.Parse accepts (no control character, no % without two hex digits), else the
     product documentation. */
  const DOCUMENTATION = "https://docs.redhat.com/en/documentation/openshift_container_platform/";
  function gateLink(message) {
    for (const found of message.matchAll(/https:\/\/[^\t\n\v\f\r ]*/g)) {
      const candidate = found[0];
      if (!/[\x00-\x1f\x7f]/.test(candidate) && !/%(?![0-9a-fA-F]{2})/.test(candidate)) return candidate;
    }
    return DOCUMENTATION;
  }

  /* What an update from `from` to `to` changes: the change file's document (docs/release-diff.md). */
  function diff(from, to, parts = null) {
    const a = checked(resolve(from, parts), "FROM"), b = checked(resolve(to, parts), "TO");
    if (a.arch !== b.arch) {
      throw new ReleaseDiffError(`${named(a)} and ${named(b)} are releases of different architectures`);
    }
    const [imageChanges, commitGroups] = images(a, b);
    const [gates, invalidGates] = gatesFor(a, b.version);
    return {
      from: a.version,
      to: b.version,
      arch: a.arch,
      components: components(a, b),
      images: imageChanges,
      manifests: manifests(a, b),
      commitGroups,
      resources: resources(a, b),
      clusterOperators: clusterOperators(a, b),
      adminGates: gates,
      invalidAdminGates: invalidGates,
    };
  }

  /* True when the diff says nothing changed (the same release, or two that differ in nothing compared). */
  function isEmpty(changes) {
    const lists = [changes.components, changes.images.rebuilt, changes.images.added, changes.images.removed,
      changes.manifests.changed, changes.manifests.added, changes.manifests.removed, changes.commitGroups,
      changes.resources.renamed, changes.resources.deleted, changes.resources.removed,
      changes.resources.crdVersionsNoLongerServed, changes.resources.implicitCapabilities,
      changes.clusterOperators.added, changes.clusterOperators.removed];
    const maps = [changes.images.changed, changes.clusterOperators.changed, changes.adminGates,
      changes.invalidAdminGates];
    return lists.every((list) => !list.length) && maps.every((map) => !Object.keys(map).length);
  }

  return {ReleaseDiffError, diff, diffParts, sharedFiles, resolve, resolveParts, loadRecord, isEmpty, componentLabel, componentLabels, componentLines, objectName, objectNames, compareUrl, commitUrl, imageIdentity, implicitlyEnabledCapabilities,
    isMinorOrMajorUpdate, adminGates, gatesFor, ackCommand, gateLink};
})();
