/* "Jump to a release": go straight to the release page of a known version. */
"use strict";

(() => {
  for (const form of document.querySelectorAll("form.version-search")) {
    const input = form.querySelector("input");
    const message = form.querySelector(".search-message");
    const known = Array.from(document.getElementById(form.dataset.versions).options, (option) => option.value);
    const knownSet = new Set(known);
    const base = form.dataset.releases;

    const jump = (query) => {
      const version = query.trim().replace(/^v/i, "");
      if (knownSet.has(version)) {
        window.location.href = base + encodeURIComponent(version) + ".html";
        return;
      }
      const close = known.filter((v) => v.startsWith(version)).slice(-5).reverse();
      message.replaceChildren(`No served release is called “${version}”.`);
      if (close.length) {
        message.append(" Did you mean ");
        close.forEach((v, i) => {
          if (i) message.append(", ");
          const link = document.createElement("a");
          link.href = base + encodeURIComponent(v) + ".html";
          link.textContent = v;
          message.append(link);
        });
        message.append("?");
      }
    };

    form.addEventListener("submit", (event) => {
      event.preventDefault();
      jump(input.value);
    });
    const asked = new URLSearchParams(window.location.search).get("version");
    if (asked) {
      input.value = asked;
      jump(asked);
    }
  }
})();
