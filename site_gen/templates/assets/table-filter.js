/* Filter a table's rows by name as one types (the operator catalog's package list). */
"use strict";

(() => {
  for (const input of document.querySelectorAll("input[data-filters]")) {
    const rows = Array.from(document.getElementById(input.dataset.filters).tBodies[0].rows);
    input.addEventListener("input", () => {
      const wanted = input.value.trim().toLowerCase();
      for (const row of rows) {
        row.hidden = wanted !== "" && !row.dataset.name.toLowerCase().includes(wanted);
      }
    });
  }
})();
