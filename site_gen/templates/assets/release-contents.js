/* A release's contents page: find manifests in the update order as one types (file, kind, namespace or
   name). The page is complete without it: the steps and nodes are static, each node opens by itself. */
"use strict";

(() => {
  const box = document.querySelector(".manifest-filter");
  const order = document.querySelector('.task-steps[data-mode="update"]');
  if (!box || !order) return;
  const input = box.querySelector("input");
  const status = box.querySelector(".filter-count");
  const steps = Array.from(order.querySelectorAll(":scope > .task-step"));
  const nodes = Array.from(order.querySelectorAll(".task-node"));
  const items = Array.from(order.querySelectorAll(".manifest-items > li"));
  const text = new Map(items.map((item) => [item, item.textContent.toLowerCase()]));
  const opened = new Map(nodes.map((node) => [node, node.querySelector("details").open]));
  box.hidden = false;

  function apply() {
    const words = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let found = 0;
    for (const node of nodes) {
      let any = false;
      for (const item of node.querySelectorAll(".manifest-items > li")) {
        const hit = words.every((word) => text.get(item).includes(word));
        item.hidden = words.length > 0 && !hit;
        if (hit) any = true;
        if (hit && words.length) found += 1;
      }
      node.hidden = words.length > 0 && !any;
      node.querySelector("details").open = words.length ? any : opened.get(node);
    }
    for (const step of steps) {
      step.hidden = words.length > 0 && !step.querySelector(".task-node:not([hidden])");
    }
    status.textContent = words.length ? `${SiteGen.count(found, "manifest")} found` : "";
  }

  input.addEventListener("input", apply);
  // the query survives a reload (and can be shared as #find=...)
  const wanted = new URLSearchParams(window.location.hash.slice(1)).get("find");
  if (wanted) {
    input.value = wanted;
    apply();
  }
})();
