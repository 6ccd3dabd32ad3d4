/* Small helpers shared by the page scripts (no framework, no build step). */
"use strict";

const SiteGen = (() => {
  /* el("a", {href: "x"}, "text", child, ...): a DOM element; text children are never parsed as HTML. */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  /* The site path of a relative URL, for messages ("../../api/x.json" -> "api/x.json"). */
  function sitePath(url) {
    return url.replace(/^(\.\.\/)+/, "");
  }

  /* The response for url, or an Error meant for the reader naming shown (a site path). A page
     opened from a file (an unpacked bundle, say) is not even tried: browsers refuse to read files
     from such a page and log errors. */
  async function fetchResponse(url, shown) {
    if (window.location.protocol === "file:") {
      throw new Error(`Could not load ${shown}: a page opened from a file cannot read the site's data. ` +
        "Open the site through a web server, such as “site-gen serve”.");
    }
    try {
      return await fetch(url);
    } catch {
      throw new Error(`Could not load ${shown}: the server did not answer.`);
    }
  }

  /* Fails with a message meant for the reader. */
  async function fetchJSON(url) {
    const response = await fetchResponse(url, sitePath(url));
    if (!response.ok) throw new Error(`Could not load ${sitePath(url)}: HTTP ${response.status}.`);
    return response.json();
  }

  /* readJson(path) of the operator rules, for the site at root (a URL ending in "/"): the parsed
     file at a site path such as "olm/a%20b/index.json", null when the site has no such file (404),
     each file fetched once. The path's segments are file names (publish.path_component), so each
     is escaped once more for the URL: "a%20b" is the file's name, not "a b". */
  function siteJsonReader(root) {
    const read = new Map();
    return (path) => {
      if (!read.has(path)) {
        const url = root + path.split("/").map(encodeURIComponent).join("/");
        read.set(path, fetchResponse(url, path).then((response) => {
          if (response.status === 404) return null;
          if (!response.ok) throw new Error(`Could not load ${path}: HTTP ${response.status}.`);
          return response.json();
        }));
      }
      return read.get(path);
    };
  }

  /* An href to a site path of file names (publish.path_component), as render/links.py writes them. */
  const siteHref = (path) => path.split("/").map(encodeURIComponent).join("/");

  /* A version as people type it: " v4.14.10 " means 4.14.10. */
  function typedVersion(text) {
    return (text || "").trim().replace(/^v(?=\d)/i, "");
  }

  /* "1 route", "2 routes", "8,505,000 routes" (numbers or BigInts). */
  function count(number, noun) {
    return `${number.toLocaleString("en")} ${number == 1 ? noun : noun + "s"}`;
  }

  /* Links from input files are followed only when they are http(s). */
  function safeUrl(url) {
    return /^https?:\/\//i.test(url || "") ? url : null;
  }

  /* base: the releases/ folder, relative to this page. */
  function releaseHref(base, version) {
    return base + encodeURIComponent(version) + ".html";
  }

  function releaseLink(base, version) {
    return el("a", {href: releaseHref(base, version)}, version);
  }

  /* One risk as a list item: name (linking to its page when known), message, link, rule types.
     A link that is not http(s) is shown as text, as the risk pages do. */
  function riskItem(risk, page) {
    const url = safeUrl(risk.url);
    let more = null;
    if (url) more = el("a", {href: url, class: "risk-url"}, "More information");
    else if (risk.url) more = el("span", {class: "risk-url-text"}, "More information: ", el("code", {}, risk.url));
    return el("li", {class: "risk", "data-risk": risk.name},
      page ? el("a", {href: page, class: "risk-name"}, risk.name) : el("strong", {class: "risk-name"}, risk.name),
      ": ", el("span", {class: "risk-message"}, risk.message), " ", more,
      el("span", {class: "rule-types"}, " Rules: " + (risk.types.length ? risk.types.join(", ") : "none")));
  }

  function joinNodes(nodes, separator) {
    return nodes.flatMap((node, i) => (i ? [separator, node] : [node]));
  }

  return {el, fetchJSON, siteJsonReader, siteHref, typedVersion, count, safeUrl, releaseHref, releaseLink, riskItem, joinNodes};
})();
