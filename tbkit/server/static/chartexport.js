// A line chart (chart.js) as a file: a PNG of its canvas under the title and over a legend, or an
// SVG rebuilt from its series (one path per line, axes, tick labels, legend) at the same view.
// Names go in as text nodes of an SVG document built apart from the page, never as markup.
import { lowerBound } from "./chartdraw.js";
import { safeColor } from "./tooltip.js";
import { cssVar, formatValue } from "./util.js";

const NS = "http://www.w3.org/2000/svg";
const TITLE_H = 22; // px above the plot for the title
const ROW_H = 16; // px a legend row
const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";

const round2 = (v) => Math.round(v * 100) / 100;

function colors() {
  return {
    bg: cssVar("--card-bg") || "#ffffff",
    fg: cssVar("--fg") || "#222222",
    text: cssVar("--chart-text") || "#555555",
    grid: cssVar("--chart-grid") || "#dddddd",
  };
}

/** The lines of a chart to export (faint ones first, as drawn) and those in the legend. */
function lines(chart) {
  const drawn = chart.series.filter((s) => s.x.length);
  return { drawn: drawn.filter((s) => s.faint).concat(drawn.filter((s) => !s.faint)), legend: drawn.filter((s) => !s.faint) };
}

/** Legend entries laid out in rows of width `w`: [[series, x, y]] and the height they take. */
function legendLayout(series, w, measure) {
  const items = [];
  let x = 8;
  let y = 0;
  for (const s of series) {
    const width = 14 + measure(s.name) + 14;
    if (x + width > w && x > 8) {
      x = 8;
      y += ROW_H;
    }
    items.push([s, x, y]);
    x += width;
  }
  return { items, height: items.length ? y + ROW_H + 4 : 0 };
}

/** The index range of a series' points in view (one point either side, as the chart draws). */
function inView(xs, g) {
  return [Math.max(0, lowerBound(xs, g.x0) - 1), Math.min(xs.length, lowerBound(xs, g.x1) + 1)];
}

/** SVG path data of one line: "M x y L x y …", starting again after every non-finite value. */
export function linePath(g, logY, xs, ys, i0, i1) {
  const parts = [];
  let down = false;
  for (let i = i0; i < i1; i++) {
    let v = ys[i];
    if (logY) v = v > 0 ? Math.log10(v) : NaN;
    if (!Number.isFinite(v)) {
      down = false;
      continue;
    }
    parts.push((down ? "L" : "M") + round2(g.left + (xs[i] - g.x0) * g.sx) + " " + round2(g.top + (g.y1 - v) * g.sy));
    down = true;
  }
  return parts.join(" ");
}

/** SVG path data of a band: one closed polygon (upper edge forward, lower edge back) per finite run. */
function bandPath(g, logY, b, i0, i1) {
  const tr = (v) => (logY ? (v > 0 ? Math.log10(v) : NaN) : v);
  const polys = [];
  let cur = [];
  const flush = () => {
    if (cur.length > 1) {
      const up = cur.map(([px, a]) => px + " " + a);
      const down = cur.map(([px, , d]) => px + " " + d).reverse();
      polys.push("M" + up.join(" L") + " L" + down.join(" L") + " Z");
    }
    cur = [];
  };
  for (let i = i0; i < i1; i++) {
    const a = tr(b.lower[i]);
    const c = tr(b.upper[i]);
    if (!Number.isFinite(a) || !Number.isFinite(c)) {
      flush();
      continue;
    }
    const px = round2(g.left + (b.x[i] - g.x0) * g.sx);
    cur.push([px, round2(g.top + (g.y1 - Math.max(a, c)) * g.sy), round2(g.top + (g.y1 - Math.min(a, c)) * g.sy)]);
  }
  flush();
  return polys.join(" ");
}

function node(name, attrs = {}, text = undefined) {
  const n = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = String(text);
  return n;
}

/**
 * The chart as an SVG document (a string): title, grid and tick labels, one `<path>` per line
 * (the smoothed line when smoothing is on), bands, and a legend. Throws before the first draw.
 */
export function chartSvg(chart, title) {
  const g = chart.geom;
  if (!g) throw new Error("The chart is not drawn yet.");
  const w = chart.root.clientWidth;
  const h = chart.root.clientHeight;
  const c = colors();
  const { drawn, legend } = lines(chart);
  const lay = legendLayout(legend, w, (t) => 6.5 * t.length);
  const height = TITLE_H + h + lay.height;
  const svg = node("svg", { width: w, height, viewBox: `0 0 ${w} ${height}`, "font-family": FONT, "font-size": 11 });
  svg.append(node("rect", { width: w, height, fill: c.bg }));
  svg.append(node("text", { x: 8, y: 15, fill: c.fg, "font-size": 13, "font-weight": 600 }, title));
  const clip = node("clipPath", { id: "plot-area" });
  clip.append(node("rect", { x: g.left, y: g.top, width: g.pw, height: g.ph }));
  const defs = node("defs");
  defs.append(clip);
  const plot = node("g", { transform: `translate(0 ${TITLE_H})` });
  svg.append(defs, plot);

  const gridLines = node("g", { class: "grid", stroke: c.grid, "stroke-width": 1 });
  const labels = node("g", { class: "ticks", fill: c.text });
  const { logY } = chart.opts;
  for (const t of g.yTicks || []) {
    const py = round2(g.top + (g.y1 - t) * g.sy);
    gridLines.append(node("line", { x1: g.left, x2: g.left + g.pw, y1: py, y2: py }));
    labels.append(node("text", { x: g.left - 5, y: py, "text-anchor": "end", "dominant-baseline": "middle" }, formatValue(logY ? 10 ** t : t)));
  }
  for (const t of g.xTicks || []) {
    const px = round2(g.left + (t - g.x0) * g.sx);
    gridLines.append(node("line", { x1: px, x2: px, y1: g.top, y2: g.top + g.ph }));
    labels.append(node("text", { x: px, y: g.top + g.ph + 5, "text-anchor": "middle", "dominant-baseline": "hanging" }, chart._formatX(t, g.x1 - g.x0)));
  }
  const frame = node("rect", { x: g.left, y: g.top, width: g.pw, height: g.ph, fill: "none", stroke: c.text, "stroke-opacity": 0.4 });
  plot.append(gridLines, frame, labels);

  const data = node("g", { class: "series", "clip-path": "url(#plot-area)", fill: "none", "stroke-linejoin": "round", "stroke-linecap": "round" });
  for (const s of drawn) {
    if (!s.band) continue;
    const [j0, j1] = inView(s.band.x, g);
    data.append(node("path", { class: "band", d: bandPath(g, logY, s.band, j0, j1), fill: safeColor(s.color), "fill-opacity": 0.2, stroke: "none" }));
  }
  for (const s of drawn) {
    const [i0, i1] = inView(s.x, g);
    const ys = chart.opts.smoothing && s.sm ? s.sm : s.y;
    const path = node("path", { class: "line", d: linePath(g, logY, s.x, ys, i0, i1), stroke: safeColor(s.color), "stroke-width": s.faint ? 1 : 1.5 });
    if (s.faint) path.setAttribute("stroke-opacity", "0.35");
    path.append(node("title", {}, s.name));
    data.append(path);
  }
  plot.append(data);

  const key = node("g", { class: "legend", transform: `translate(0 ${TITLE_H + h})`, fill: c.fg });
  for (const [s, x, y] of lay.items) {
    key.append(node("rect", { x, y: y + 3, width: 10, height: 10, rx: 2, fill: safeColor(s.color) }));
    key.append(node("text", { x: x + 14, y: y + 8, "dominant-baseline": "middle" }, s.name));
  }
  svg.append(key);
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(svg);
}

/** The chart as a PNG (a Blob): its canvas on the card's background, under the title and over a legend. */
export function chartPng(chart, title) {
  const src = chart.canvas;
  const w = chart.root.clientWidth;
  if (!chart.geom || !w || !src.width) return Promise.reject(new Error("The chart is not drawn yet."));
  const dpr = src.width / w;
  const c = colors();
  const out = document.createElement("canvas");
  const g = out.getContext("2d");
  const font = (size, weight = "") => `${weight} ${size}px ${FONT}`.trim();
  g.font = font(11);
  const { legend } = lines(chart);
  const lay = legendLayout(legend, w, (t) => g.measureText(t).width);
  const h = src.height / dpr;
  out.width = Math.round(w * dpr);
  out.height = Math.round((TITLE_H + h + lay.height) * dpr);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = c.bg;
  g.fillRect(0, 0, w, TITLE_H + h + lay.height);
  g.fillStyle = c.fg;
  g.font = font(13, "600");
  g.textBaseline = "middle";
  g.fillText(String(title), 8, 11, w - 16);
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.drawImage(src, 0, Math.round(TITLE_H * dpr));
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.font = font(11);
  for (const [s, x, y] of lay.items) {
    g.fillStyle = safeColor(s.color);
    g.fillRect(x, TITLE_H + h + y + 3, 10, 10);
    g.fillStyle = c.fg;
    g.fillText(s.name, x + 14, TITLE_H + h + y + 8);
  }
  return new Promise((resolve, reject) => out.toBlob((b) => (b ? resolve(b) : reject(new Error("Could not encode the PNG."))), "image/png"));
}
