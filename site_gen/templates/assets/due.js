/* Due times relative to the reader's clock ("in 3 days", "overdue"). The page itself only
   holds absolute UTC times, so it stays the same whenever it was built. */
"use strict";

(() => {
  const UNITS = [["year", 365 * 86400], ["month", 30 * 86400], ["week", 7 * 86400], ["day", 86400],
                 ["hour", 3600], ["minute", 60]];
  const words = new Intl.RelativeTimeFormat("en", {numeric: "always"});

  function relative(seconds) {
    const size = Math.abs(seconds);
    for (const [unit, length] of UNITS) {
      if (size >= length) return words.format(Math.round(seconds / length), unit);
    }
    return words.format(Math.sign(seconds), "minute");
  }

  const now = Date.now();
  for (const span of document.querySelectorAll(".relative[data-due]")) {
    const seconds = (Date.parse(span.dataset.due) - now) / 1000;
    if (Number.isNaN(seconds)) continue;
    if (Math.abs(seconds) < 60) {
      span.textContent = "(due now)";
    } else if (seconds > 0) {
      span.textContent = `(${relative(seconds)})`;
    } else {
      const held = span.dataset.blocked ? "blocked" : span.dataset.waiting ? "waiting for an update path" : null;
      span.textContent = held ? `(due ${relative(seconds)}, but ${held})` : `(overdue: due ${relative(seconds)})`;
      span.classList.add(held ? "is-blocked" : "is-overdue");
    }
  }
  for (const note of document.querySelectorAll(".relative-note")) note.hidden = false;
})();
