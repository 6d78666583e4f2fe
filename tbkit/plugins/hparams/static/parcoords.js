// Parallel coordinates, first-party: one vertical axis per column (SVG: ticks, titles, brushes),
// one polyline per session (Canvas2D). Drag along an axis to brush a range (drag the range to
// move it, click the axis to clear it); sessions outside any brush turn grey; hovering a line
// names its session and a click opens it. (plotly's parcoords compiles its shaders with
// `new Function`, which the page's Content-Security-Policy forbids.)
import { el, clear, cssVar, formatValue } from "../../util.js";

const PAD = { l: 58, r: 70, t: 46, b: 14 };
const SVG = "http://www.w3.org/2000/svg";
const HIT = 14; // half-width of an axis' brushing area, px
const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function hexRgb(h) {
  const n = parseInt(h.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
const STOPS = VIRIDIS.map(hexRgb);

/** The viridis colour of t in [0, 1]. */
export function viridis(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const c = STOPS[i].map((a, k) => Math.round(a + (STOPS[i + 1][k] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

export class ParallelCoordinates {
  /** @param {HTMLElement} root  @param {{onBrush: Function, onOpen: Function}} hooks */
  constructor(root, { onBrush, onOpen }) {
    this.root = root;
    this.onBrush = onBrush;
    this.onOpen = onOpen;
    this.canvas = el("canvas", { class: "pc-lines" });
    this.svg = svg("svg", { class: "pc-axes" });
    this.tip = el("div", { class: "pc-tip", hidden: true });
    clear(root).append(this.canvas, this.svg, this.tip);
    this.axes = [];
    this.sessions = [];
    this.brushes = new Map();
    this.colorAxis = null;
    this.hover = null;
    this.drag = null;
    this.frame = 0;
    this.resize = new ResizeObserver(() => this.schedule());
    this.resize.observe(root);
    this.onTheme = () => this.schedule();
    window.addEventListener("tbkit-theme", this.onTheme);
    this.svg.addEventListener("pointerdown", (e) => this._down(e));
    this.svg.addEventListener("pointermove", (e) => this._move(e));
    this.svg.addEventListener("pointerup", (e) => this._up(e));
    this.svg.addEventListener("pointercancel", () => (this.drag = null));
    root.addEventListener("mousemove", (e) => this._hover(e));
    root.addEventListener("mouseleave", () => this._setHover(null));
    root.addEventListener("click", (e) => {
      if (this.hover && !e.target.closest(".pc-hit, .pc-brush")) this.onOpen(this.hover);
    });
  }

  /** Draw `sessions` over `axes`; `brushes`: axis id -> [[lo, hi]] in plotted units. */
  setData({ axes, sessions, brushes, colorAxis }) {
    this.axes = axes;
    this.sessions = sessions;
    this.brushes = new Map(brushes);
    this.colorAxis = colorAxis;
    this.hover = null;
    this.root.dataset.lines = String(sessions.length);
    this.root.dataset.axes = String(axes.length);
    this.draw();
  }

  schedule() {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.draw());
  }

  // ---- geometry
  _geom() {
    const w = this.root.clientWidth;
    const h = this.root.clientHeight;
    const n = this.axes.length;
    const inner = Math.max(1, w - PAD.l - PAD.r);
    const xs = this.axes.map((_, i) => (n === 1 ? PAD.l + inner / 2 : PAD.l + (i * inner) / (n - 1)));
    return { w, h, xs, top: PAD.t, bottom: h - PAD.b, rotate: n > 1 && inner / (n - 1) < 90 };
  }

  _y(axis, v, g) {
    const [lo, hi] = axis.range;
    return g.top + (1 - (v - lo) / (hi - lo || 1)) * (g.bottom - g.top);
  }

  _value(axis, py, g) {
    const [lo, hi] = axis.range;
    return lo + (1 - (py - g.top) / (g.bottom - g.top || 1)) * (hi - lo);
  }

  /** True when `s` lies inside every brush. */
  inBrush(s) {
    for (const a of this.axes) {
      const rs = this.brushes.get(a.id);
      if (!rs || !rs.length) continue;
      const v = a.plot(s);
      if (v === null || !rs.some(([lo, hi]) => v >= lo && v <= hi)) return false;
    }
    return true;
  }

  // ---- drawing
  draw() {
    const g = this._geom();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(g.w * dpr);
    this.canvas.height = Math.round(g.h * dpr);
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.w, g.h);
    this._drawLines(ctx, g);
    this._drawAxes(g);
    this.root.dataset.ready = "1";
  }

  _path(ctx, s, g) {
    ctx.beginPath();
    this.axes.forEach((a, i) => {
      const v = a.plot(s);
      const y = this._y(a, v === null ? a.range[0] : v, g);
      if (i === 0) ctx.moveTo(g.xs[i], y);
      else ctx.lineTo(g.xs[i], y);
    });
  }

  _drawLines(ctx, g) {
    if (!this.axes.length) return;
    const inside = [];
    ctx.lineWidth = 1;
    ctx.strokeStyle = cssVar("--chart-grid") || "#ddd";
    ctx.globalAlpha = 0.9;
    for (const s of this.sessions) {
      if (this.inBrush(s)) inside.push(s);
      else {
        this._path(ctx, s, g);
        ctx.stroke();
      }
    }
    const c = this.colorAxis;
    const accent = cssVar("--accent") || "#f57c00";
    ctx.globalAlpha = inside.length > 200 ? 0.5 : 0.85;
    ctx.lineWidth = 1.3;
    for (const s of inside) {
      if (c) {
        const v = c.plot(s);
        ctx.strokeStyle = v === null ? "#888" : viridis((v - c.range[0]) / (c.range[1] - c.range[0] || 1));
      } else ctx.strokeStyle = accent;
      this._path(ctx, s, g);
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    if (this.hover) {
      ctx.lineWidth = 3;
      ctx.strokeStyle = cssVar("--fg") || "#222";
      this._path(ctx, this.hover, g);
      ctx.stroke();
    }
    if (c) this._legend(ctx, g, c);
    this.root.dataset.active = String(inside.length);
  }

  _legend(ctx, g, c) {
    const x = g.w - 22;
    const h = g.bottom - g.top;
    for (let i = 0; i < h; i++) {
      ctx.fillStyle = viridis(1 - i / h);
      ctx.fillRect(x, g.top + i, 10, 1);
    }
    ctx.fillStyle = cssVar("--chart-text") || "#555";
    ctx.font = "10px system-ui, sans-serif";
    ctx.textAlign = "right";
    const label = (v) => formatValue(c.log ? 10 ** v : v);
    ctx.fillText(label(c.range[1]), x - 3, g.top + 8);
    ctx.fillText(label(c.range[0]), x - 3, g.bottom);
    ctx.save();
    ctx.translate(x - 6, g.top + h / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "center";
    ctx.fillText(c.label, 0, 0);
    ctx.restore();
  }

  _drawAxes(g) {
    const nodes = this.axes.map((a, i) => {
      const group = svg("g", { class: "pc-axis", transform: `translate(${g.xs[i]},0)`, "data-axis": a.id, "data-index": i, "data-column": a.key });
      group.append(svg("line", { class: "pc-axis-line", x1: 0, x2: 0, y1: g.top, y2: g.bottom }));
      a.tickvals.forEach((t, k) => {
        const y = this._y(a, t, g);
        group.append(svg("line", { class: "pc-tick", x1: -4, x2: 0, y1: y, y2: y }));
        group.append(svg("text", { class: "pc-tick-label", x: -6, y: y + 3, "text-anchor": "end" }, a.ticktext[k]));
      });
      const title = svg("text", { class: "pc-title", x: 0, y: g.top - 10, "text-anchor": g.rotate ? "start" : "middle" }, a.label);
      if (g.rotate) title.setAttribute("transform", `rotate(-20 0 ${g.top - 10})`);
      title.append(svg("title", {}, a.column.name + (a.log ? " (log scale)" : "")));
      group.append(title);
      for (const [lo, hi] of this.brushes.get(a.id) || []) {
        const y0 = this._y(a, hi, g);
        const y1 = this._y(a, lo, g);
        group.append(svg("rect", { class: "pc-brush", x: -7, width: 14, y: y0, height: Math.max(2, y1 - y0), "data-lo": lo, "data-hi": hi }));
      }
      group.append(svg("rect", { class: "pc-hit", x: -HIT, width: 2 * HIT, y: g.top - 4, height: g.bottom - g.top + 8 }));
      return group;
    });
    this.svg.setAttribute("width", g.w);
    this.svg.setAttribute("height", g.h);
    clear(this.svg).append(...nodes);
    this.root.dataset.brushed = String(Array.from(this.brushes.values()).filter((r) => r.length).length);
  }

  // ---- brushing
  _down(e) {
    const group = e.target.closest(".pc-axis");
    if (!group || !e.target.closest(".pc-hit, .pc-brush")) return;
    e.preventDefault();
    const axis = this.axes[Number(group.dataset.index)];
    const g = this._geom();
    const py = e.clientY - this.svg.getBoundingClientRect().top;
    const v = this._value(axis, py, g);
    const current = (this.brushes.get(axis.id) || [])[0];
    const move = current && v >= current[0] && v <= current[1];
    this.drag = { axis, g, y0: py, v0: v, moved: false, move, start: current ? current.slice() : null };
    this.svg.setPointerCapture(e.pointerId);
  }

  _move(e) {
    const d = this.drag;
    if (!d) return;
    const py = Math.min(d.g.bottom, Math.max(d.g.top, e.clientY - this.svg.getBoundingClientRect().top));
    if (Math.abs(py - d.y0) > 2) d.moved = true;
    if (!d.moved) return;
    const v = this._value(d.axis, py, d.g);
    const [lo, hi] = d.axis.range;
    let range;
    if (d.move) {
      const span = d.start[1] - d.start[0];
      const a = Math.min(Math.max(d.start[0] + (v - d.v0), lo), hi - span);
      range = [a, a + span];
    } else range = [Math.min(d.v0, v), Math.max(d.v0, v)];
    this.brushes.set(d.axis.id, [range]);
    this.schedule();
  }

  _up(e) {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    if (this.svg.hasPointerCapture(e.pointerId)) this.svg.releasePointerCapture(e.pointerId);
    if (!d.moved) this.brushes.delete(d.axis.id); // a click on an axis clears its brush
    // Drawn now, not on the next frame: the brush rectangles show the final range by the time
    // onBrush publishes the new filtering (the dashboard's data-filter-gen).
    cancelAnimationFrame(this.frame);
    this.draw();
    this.onBrush(new Map(this.brushes));
  }

  // ---- hover
  _nearest(e) {
    const rect = this.root.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const g = this._geom();
    if (this.axes.length < 2 || x < g.xs[0] || x > g.xs[g.xs.length - 1]) return null;
    let i = 0;
    while (i < g.xs.length - 2 && x > g.xs[i + 1]) i++;
    const t = (x - g.xs[i]) / (g.xs[i + 1] - g.xs[i] || 1);
    const [a, b] = [this.axes[i], this.axes[i + 1]];
    let best = null;
    let bestD = 6;
    for (const s of this.sessions) {
      if (!this.inBrush(s)) continue;
      const va = a.plot(s);
      const vb = b.plot(s);
      const ya = this._y(a, va === null ? a.range[0] : va, g);
      const yb = this._y(b, vb === null ? b.range[0] : vb, g);
      const dist = Math.abs(ya + (yb - ya) * t - y);
      if (dist < bestD) [best, bestD] = [s, dist];
    }
    return best ? { s: best, x, y } : null;
  }

  _hover(e) {
    if (this.drag || e.target.closest(".pc-hit, .pc-brush")) return this._setHover(null);
    const found = this._nearest(e);
    this._setHover(found ? found.s : null);
    if (found) {
      this.tip.textContent = found.s.name;
      this.tip.style.left = `${found.x + 12}px`;
      this.tip.style.top = `${found.y + 8}px`;
    }
  }

  _setHover(s) {
    this.tip.hidden = !s;
    this.root.classList.toggle("pc-pointing", Boolean(s));
    if (s === this.hover) return;
    this.hover = s;
    this.schedule();
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.resize.disconnect();
    window.removeEventListener("tbkit-theme", this.onTheme);
    clear(this.root);
  }
}
