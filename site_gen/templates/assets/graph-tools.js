/* The channel picture's tools: zoom, fit to the screen, an overview of the whole picture with
   the part on screen marked (click it to go there), and "go to version". Nothing is loaded:
   the overview draws the page's own picture again through an SVG <use>. */
"use strict";

(() => {
  const {el} = SiteGen;
  const scroller = document.querySelector(".graph-scroll");
  const svg = document.getElementById("graph-svg");
  const tools = document.getElementById("graph-tools");
  if (!scroller || !svg || !tools) return;
  const [, , width, height] = svg.getAttribute("viewBox").split(/\s+/).map(Number);
  const natural = {width: parseFloat(svg.getAttribute("width")) * 4 / 3,   // dot writes pt; CSS px are 3/4 pt
                   height: parseFloat(svg.getAttribute("height")) * 4 / 3};
  const STEPS = [0.1, 0.15, 0.25, 0.35, 0.5, 0.7, 1, 1.5, 2];
  let zoom = 1;

  const overview = el("svg", {});
  const overviewBox = document.getElementById("graph-overview");

  function setZoom(value, keep) {
    const before = keep && {x: (scroller.scrollLeft + scroller.clientWidth / 2) / scroller.scrollWidth,
                            y: (scroller.scrollTop + scroller.clientHeight / 2) / scroller.scrollHeight};
    zoom = Math.min(Math.max(value, 0.02), STEPS[STEPS.length - 1]);
    svg.setAttribute("width", `${natural.width * zoom}px`);
    svg.setAttribute("height", `${natural.height * zoom}px`);
    tools.querySelector("[data-zoom-level]").textContent = `${Math.round(zoom * 100)}%`;
    if (before) {
      scroller.scrollLeft = before.x * scroller.scrollWidth - scroller.clientWidth / 2;
      scroller.scrollTop = before.y * scroller.scrollHeight - scroller.clientHeight / 2;
    }
    drawWindow();
  }

  function fit() {
    const margin = 16;  // the picture's own margin, both sides
    setZoom(Math.min(1, (scroller.clientWidth - margin) / natural.width, (scroller.clientHeight - margin) / natural.height));
  }

  function step(direction) {
    const next = direction > 0 ? STEPS.find((s) => s > zoom + 1e-9) : [...STEPS].reverse().find((s) => s < zoom - 1e-9);
    setZoom(next ?? zoom, true);
  }

  /* The overview: the whole picture, small, with the part in the scroll box outlined. */
  const NS = svg.namespaceURI;  // SVG elements are made in the picture's own namespace
  const frame = document.createElementNS(NS, "rect");
  function buildOverview() {
    if (!overviewBox) return;
    const small = document.createElementNS(NS, "svg");
    small.setAttribute("viewBox", `0 0 ${width} ${height}`);
    small.setAttribute("preserveAspectRatio", "xMidYMin meet");
    const use = document.createElementNS(NS, "use");
    use.setAttribute("href", "#graph-svg");
    use.setAttribute("width", width);  // the picture's own size, whatever the zoom
    use.setAttribute("height", height);
    frame.setAttribute("class", "overview-window");
    small.append(use, frame);
    overviewBox.append(small);
    overviewBox.hidden = false;
    small.addEventListener("click", (event) => {
      const box = small.getBoundingClientRect();
      const scale = Math.min(box.width / width, box.height / height);
      const x = (event.clientX - box.left - (box.width - width * scale) / 2) / (width * scale);
      const y = (event.clientY - box.top) / (height * scale);
      scroller.scrollLeft = x * scroller.scrollWidth - scroller.clientWidth / 2;
      scroller.scrollTop = y * scroller.scrollHeight - scroller.clientHeight / 2;
    });
  }

  function drawWindow() {
    if (!overviewBox || overviewBox.hidden) return;
    const fx = width / scroller.scrollWidth;
    const fy = height / scroller.scrollHeight;
    frame.setAttribute("x", scroller.scrollLeft * fx);
    frame.setAttribute("y", scroller.scrollTop * fy);
    frame.setAttribute("width", scroller.clientWidth * fx);
    frame.setAttribute("height", scroller.clientHeight * fy);
  }

  /* "Go to version": centre its node, without choosing it (the panel's picker does that). */
  function goTo(version) {
    const node = Array.from(svg.querySelectorAll("g.node")).find((g) => g.querySelector("title").textContent === version);
    const message = tools.querySelector(".graph-jump-message");
    if (!node) {
      message.textContent = version ? `${version} is not in this picture.` : "";
      return;
    }
    message.textContent = "";
    const box = scroller.getBoundingClientRect();
    const shape = node.getBoundingClientRect();
    scroller.scrollBy((shape.left + shape.right - box.left - box.right) / 2, (shape.top + shape.bottom - box.top - box.bottom) / 2);
    node.classList.add("is-found");
    setTimeout(() => node.classList.remove("is-found"), 2000);
  }

  tools.querySelector("[data-zoom=in]").addEventListener("click", () => step(1));
  tools.querySelector("[data-zoom=out]").addEventListener("click", () => step(-1));
  tools.querySelector("[data-zoom=fit]").addEventListener("click", fit);
  tools.querySelector("[data-zoom=actual]").addEventListener("click", () => setZoom(1, true));
  tools.querySelector("form").addEventListener("submit", (event) => {
    event.preventDefault();
    goTo(SiteGen.typedVersion(tools.querySelector("input").value));
  });
  scroller.addEventListener("scroll", drawWindow, {passive: true});
  window.addEventListener("resize", drawWindow);
  tools.hidden = false;
  if (natural.height > scroller.clientHeight * 1.5) buildOverview();
  setZoom(1);
  // A tall channel's head (its newest version) is drawn at the bottom: show it when nothing is chosen.
  const newest = document.querySelector("#version-select option[value]:not([value=''])");
  if (newest && !window.location.hash) goTo(newest.value);
  document.body.dataset.graphTools = "ready";
})();
