// The scalar charts of a `tbkit report` HTML file: the server's LineChart (chart.js, inlined by
// tbkit/cli/jsbundle.py), fed from the JSON embedded in the page instead of /data/ routes.
// Smoothing at the report's default weight comes precomputed on full-resolution data (as the
// server computes it); other weights are computed here over the embedded points (exact when a
// series was not downsampled; otherwise over the shown points, as TensorBoard's own chart does).
import { LineChart } from "../../server/static/chart.js";
import { el, groupOf } from "../../server/static/util.js";
import { safeColor } from "../../server/static/tooltip.js";

const data = JSON.parse(document.getElementById("tbkit-report-data").textContent);
const state = {
  weight: data.smoothing,
  xAxis: "step",
  logY: false,
  ignoreOutliers: false,
  active: new Set(data.runs.map((r) => r.name)),
};
const runInfo = new Map(data.runs.map((r) => [r.name, r]));
const cards = [];

/** TensorBoard's debiased EMA over the finite values; others passed through; constant series unchanged. */
export function ema(values, w) {
  const out = values.slice();
  if (!(w > 0) || !values.length) return out;
  const first = values[0];
  if (values.every((v) => v === first)) return out;
  let last = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || !Number.isFinite(v)) continue;
    last = last * w + (1 - w) * v;
    n++;
    out[i] = last / (1 - Math.pow(w, n));
  }
  return out;
}

function seriesOf(card) {
  const smooth = state.weight > 0;
  return card.series
    .filter((s) => state.active.has(s.run))
    .map((s) => {
      const info = runInfo.get(s.run) || {};
      let smoothed = null;
      if (smooth) smoothed = Math.abs(state.weight - data.smoothing) < 1e-9 && s.smoothed ? s.smoothed : ema(s.value, state.weight);
      return { ...s, name: s.run, color: info.color, start: info.start, smoothed };
    });
}

function chartOptions() {
  return { xAxis: state.xAxis, logY: state.logY, ignoreOutliers: state.ignoreOutliers, smoothing: state.weight > 0 };
}

function redraw(resetView = false) {
  for (const card of cards) card.chart.setSeries(seriesOf(card), chartOptions(), resetView);
  drawWhenIdle();
}

function setOptions() {
  for (const card of cards) card.chart.setOptions(chartOptions());
  drawWhenIdle();
}

// Charts draw when scrolled into view (LineChart's IntersectionObserver). A report is also
// printed and captured whole, so the charts off screen are drawn too: in idle time after
// every change, and at once when printing starts (beforeprint, or print media matching:
// Chromium's print to PDF and an emulated print medium), at the print layout's size.

/** Draw every chart that has a frame pending (or was never drawn), on screen or not. */
function drawAll() {
  for (const card of cards) drawChart(card.chart);
  markDrawn();
}

function drawChart(chart) {
  if (!chart.hasData || (!chart.pending && chart.root.dataset.ready === "1")) return;
  chart.draw();
  if (chart.root.clientWidth) chart.pending = false; // a hidden chart (no size) stays pending
}

/** `data-charts-drawn` on <body>: how many charts are drawn and up to date, of `data-charts`. */
function markDrawn() {
  const drawn = cards.filter((c) => !c.chart.pending && c.chart.root.dataset.ready === "1").length;
  document.body.dataset.charts = String(cards.length);
  document.body.dataset.chartsDrawn = String(drawn);
}

let idleHandle = 0;
const whenIdle = window.requestIdleCallback
  ? (f) => window.requestIdleCallback(f, { timeout: 1000 })
  : (f) => setTimeout(() => f({ timeRemaining: () => 10, didTimeout: false }), 30);

/** Draw the pending charts a few at a time while the page is idle. */
function drawWhenIdle() {
  if (idleHandle) return;
  idleHandle = whenIdle((deadline) => {
    idleHandle = 0;
    for (const card of cards) {
      if (!card.chart.pending) continue;
      if (deadline.timeRemaining() < 2 && !deadline.didTimeout) {
        markDrawn();
        drawWhenIdle();
        return;
      }
      drawChart(card.chart);
    }
    markDrawn();
  });
}

function watchPrinting() {
  window.addEventListener("beforeprint", drawAll);
  window.addEventListener("afterprint", drawWhenIdle); // back to the screen's sizes
  const print = window.matchMedia ? window.matchMedia("print") : null;
  if (print) print.addEventListener("change", () => (print.matches ? drawAll() : drawWhenIdle()));
  // Every resize (the print layout's included) leaves the charts off screen pending.
  new ResizeObserver(() => drawWhenIdle()).observe(document.body);
}

function legend() {
  const items = data.runs.map((r) => {
    const box = el("input", { type: "checkbox", checked: true });
    box.addEventListener("change", () => {
      if (box.checked) state.active.add(r.name);
      else state.active.delete(r.name);
      redraw();
    });
    return el(
      "label",
      { class: "run-item", dataset: { run: r.name } },
      box,
      el("span", { class: "swatch", style: `background:${safeColor(r.color)}` }),
      el("span", { class: "run-name", text: r.name, title: r.name }),
    );
  });
  const setAll = (on) => () => {
    for (const item of items) {
      const box = item.querySelector("input");
      box.checked = on;
      if (on) state.active.add(item.dataset.run);
      else state.active.delete(item.dataset.run);
    }
    redraw();
  };
  return el(
    "div",
    { class: "run-list" },
    el("div", { class: "run-list-head" }, el("strong", { text: "Runs" }), " ",
      el("button", { class: "small", text: "all", on: { click: setAll(true) } }),
      el("button", { class: "small", text: "none", on: { click: setAll(false) } })),
    ...items,
  );
}

function controls() {
  const smooth = el("input", { type: "range", min: "0", max: "0.99", step: "0.01", value: String(state.weight), class: "smoothing", "aria-label": "Smoothing" });
  const out = el("output", { class: "num", text: state.weight.toFixed(2) });
  smooth.addEventListener("input", () => {
    state.weight = Number(smooth.value);
    out.textContent = state.weight.toFixed(2);
    redraw();
  });
  const xAxis = el("select", { class: "x-axis", "aria-label": "Horizontal axis" },
    el("option", { value: "step", text: "Step" }),
    el("option", { value: "relative", text: "Relative" }),
    el("option", { value: "wall", text: "Wall" }));
  xAxis.addEventListener("change", () => {
    state.xAxis = xAxis.value;
    setOptions();
  });
  const check = (key, label) => {
    const box = el("input", { type: "checkbox", class: key });
    box.addEventListener("change", () => {
      state[key] = box.checked;
      setOptions();
    });
    return el("label", { class: "inline" }, box, label);
  };
  return el("div", { class: "controls chart-controls" },
    el("label", { class: "inline" }, "Smoothing ", smooth, out),
    el("label", { class: "inline" }, "X ", xAxis),
    check("logY", "Log y"),
    check("ignoreOutliers", "Ignore outliers"));
}

function main() {
  if (window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches) {
    document.documentElement.dataset.theme = "dark";
  }
  const root = document.getElementById("scalars");
  if (!root || !data.scalars.length) return;
  root.append(el("div", { class: "scalar-tools" }, controls(), legend()));
  let group = null;
  let grid = null;
  for (const entry of data.scalars) {
    const g = groupOf(entry.tag);
    if (g !== group) {
      group = g;
      grid = el("div", { class: "card-grid" });
      root.append(el("h3", { class: "group-title", text: g }), grid);
    }
    const body = el("div", { class: "card-body" });
    const element = el("section", { class: "card scalar-card", dataset: { tag: entry.tag } },
      el("header", { class: "card-header" }, el("h3", { class: "card-title", text: entry.tag, title: entry.tag })),
      body);
    grid.append(element);
    const card = { tag: entry.tag, series: entry.series, chart: new LineChart(body) };
    cards.push(card);
  }
  watchPrinting();
  redraw(true);
}

main();
