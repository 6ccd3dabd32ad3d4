/* "Jump to a release": go straight to the release page of a known version. */
"use strict";

(() => {
  const {typedVersion, releaseHref, releaseLink, joinNodes} = SiteGen;
  for (const form of document.querySelectorAll("form.version-search")) {
    const input = form.querySelector("input");
    const message = form.querySelector(".search-message");
    const known = Array.from(document.getElementById(form.dataset.versions).options, (option) => option.value);
    const knownSet = new Set(known);
    const base = form.dataset.releases;

    const jump = (query) => {
      const version = typedVersion(query);
      if (knownSet.has(version)) {
        window.location.href = releaseHref(base, version);
        return;
      }
      const close = known.filter((v) => v.startsWith(version)).slice(-5).reverse();
      message.replaceChildren(`No served release is called “${version}”.`);
      if (close.length) {
        message.append(" Did you mean ", ...joinNodes(close.map((v) => releaseLink(base, v)), ", "), "?");
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
