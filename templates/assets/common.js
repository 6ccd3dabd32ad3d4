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

  async function fetchJSON(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.json();
  }

  /* Links from input files are followed only when they are http(s). */
  function safeUrl(url) {
    return /^https?:\/\//i.test(url || "") ? url : null;
  }

  function releaseHref(base, version) {
    return base + encodeURIComponent(version) + ".html";
  }

  /* One risk as a list item: name (linking to its page when known), message, link, rule types. */
  function riskItem(risk, page) {
    const url = safeUrl(risk.url);
    return el("li", {class: "risk", "data-risk": risk.name},
      page ? el("a", {href: page, class: "risk-name"}, risk.name) : el("strong", {class: "risk-name"}, risk.name),
      ": ", el("span", {class: "risk-message"}, risk.message), " ",
      url ? el("a", {href: url, class: "risk-url"}, "More information") : null,
      el("span", {class: "rule-types"}, " Rules: " + (risk.types.length ? risk.types.join(", ") : "none")));
  }

  function joinNodes(nodes, separator) {
    return nodes.flatMap((node, i) => (i ? [separator, node] : [node]));
  }

  return {el, fetchJSON, safeUrl, releaseHref, riskItem, joinNodes};
})();
