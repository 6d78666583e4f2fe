// A first-party Canvas2D line chart (see FRONTEND.md): polylines decimated to min/max per
// pixel column, nice axes, hover crosshair + tooltip, drag-to-zoom on x, double-click reset,
// log y, outlier-ignoring y range, smoothed line over a faint raw line, NaN/inf markers,
// and optional bands (a filled lower–upper area under a line: run groups, margin charts).
// State for tests is exposed on the chart element as data-* attributes.
import { niceTicks, logTicks, timeTicks } from "./ticks.js";
import { el, cssVar, formatValue, formatStep, formatDuration, formatWall, formatCount } from "./util.js";
import { showTooltip, hideTooltip } from "./tooltip.js";
import { drawBand, drawMarkers, drawPolyline, lowerBound, nearestIndex } from "./chartdraw.js";

const PAD = { top: 8, right: 12, bottom: 22 };
const FONT = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
const BAND_ALPHA = 0.2; // opacity of a band's fill

/**
 * Series input: {name, color, step[], wall_time[], value[] (null = non-finite), smoothed[]|null,
 * nonfinite{}, total, shown, start}. Kept as typed arrays only (the JSON arrays are dropped).
 * Optional: band {step[], wall_time[], lower[], upper[]} (filled under the line, in its colour),
 * count[] (shown in the tooltip), kind ("run", "group", "member"...), faint (a thin pale line),
 * hover (false: left out of the tooltip).
 */
function prepare(s, xAxis) {
  const n = s.step.length;
  const step = Float64Array.from(s.step);
  const wall = Float64Array.from(s.wall_time);
  const y = new Float64Array(n);
  const sm = s.smoothed ? new Float64Array(n) : null;
  for (let i = 0; i < n; i++) {
    const v = s.value[i];
    y[i] = v === null ? NaN : v;
    if (sm) sm[i] = s.smoothed[i] === null ? NaN : s.smoothed[i];
  }
  const nf = [];
  for (const [k, kind] of Object.entries(s.nonfinite || {})) nf.push([Number(k), kind]);
  const out = { name: s.name, color: s.color, step, wall, y, sm, nf, start: s.start ?? (n ? wall[0] : 0), x: step };
  out.kind = s.kind || "run";
  out.faint = Boolean(s.faint);
  out.hover = s.hover !== false;
  out.count = s.count ? Float64Array.from(s.count) : null;
  out.band = s.band ? prepareBand(s.band) : null;
  setX(out, xAxis);
  return out;
}

/** A band's typed arrays (null = non-finite). */
function prepareBand(b) {
  const num = (a) => Float64Array.from(a, (v) => (v === null ? NaN : v));
  const step = Float64Array.from(b.step);
  return { step, wall: Float64Array.from(b.wall_time || []), lower: num(b.lower), upper: num(b.upper), x: step };
}

/** x coordinates for an axis kind: the step array itself for steps, else wall times (minus `start`). */
function xValues(step, wall, start, xAxis) {
  if (xAxis === "step") return step;
  const n = step.length;
  const x = new Float64Array(n);
  const off = xAxis === "relative" ? start : 0;
  for (let i = 0; i < n; i++) x[i] = (i < wall.length ? wall[i] : NaN) - off;
  return x;
}

/** Set the x coordinates of a prepared series (and of its band) for an axis kind. */
function setX(s, xAxis) {
  s.x = xValues(s.step, s.wall, s.start, xAxis);
  if (s.band) s.band.x = xValues(s.band.step, s.band.wall, s.start, xAxis);
}

export class LineChart {
  /** @param {HTMLElement} container  @param {{onZoom?: Function}} options */
  constructor(container, options = {}) {
    this.onZoom = options.onZoom || null;
    this.canvas = el("canvas", { class: "chart-canvas" });
    this.overlay = el("canvas", { class: "chart-overlay" });
    this.note = el("div", { class: "chart-note" });
    this.root = el("div", { class: "chart", dataset: { ready: "0", series: "0", points: "0" } }, this.canvas, this.overlay);
    container.append(this.root, this.note);
    this.series = [];
    this.hasData = false; // no setSeries yet: frames drawn before it are not `ready`
    this.opts = { xAxis: "step", logY: false, ignoreOutliers: false, smoothing: false, nameHeader: "Run" };
    this.view = null; // {x0, x1} when zoomed
    this.visible = false;
    this.pending = false;
    this.frame = 0;
    this.drag = null;
    this.geom = null;
    this.hoverX = null; // the x under the pointer (axis units), null when away
    this._bind();
  }

  _bind() {
    this.resizeObs = new ResizeObserver(() => this.schedule());
    this.resizeObs.observe(this.root);
    this.io = new IntersectionObserver((es) => {
      this.visible = es[es.length - 1].isIntersecting;
      if (this.visible && this.pending) this.schedule();
    });
    this.io.observe(this.root);
    this.onTheme = () => this.schedule();
    window.addEventListener("tbkit-theme", this.onTheme);
    const ov = this.overlay;
    ov.addEventListener("mousemove", (e) => this._hover(e));
    ov.addEventListener("mouseleave", () => {
      if (!this.drag) this._clearOverlay();
      hideTooltip();
      this._emitHover(null);
    });
    ov.addEventListener("mousedown", (e) => {
      if (e.button !== 0 || !this.geom) return;
      const x = this._localX(e);
      this.drag = { x0: x, x1: x };
      const up = (ev) => {
        window.removeEventListener("mouseup", up);
        this._endDrag(ev);
      };
      window.addEventListener("mouseup", up);
      e.preventDefault();
    });
    ov.addEventListener("dblclick", () => this.resetZoom());
  }

  destroy() {
    window.removeEventListener("tbkit-theme", this.onTheme);
    this.resizeObs.disconnect();
    this.io.disconnect();
    cancelAnimationFrame(this.frame);
    hideTooltip();
    this.root.remove();
    this.note.remove();
  }

  /** Replace the data. Keeps the zoom unless `resetView`. */
  setSeries(series, opts = {}, resetView = false) {
    Object.assign(this.opts, opts);
    this.series = series.map((s) => prepare(s, this.opts.xAxis));
    this.hasData = true;
    if (resetView) this.view = null;
    const shown = series.reduce((a, s) => a + (s.shown ?? s.step.length), 0);
    const total = series.reduce((a, s) => a + (s.total ?? s.step.length), 0);
    this.note.textContent = shown < total ? `${formatCount(shown)} of ${formatCount(total)} points` : "";
    this.root.dataset.shown = String(shown);
    this.root.dataset.total = String(total);
    this.schedule();
  }

  setOptions(opts) {
    const xChanged = opts.xAxis && opts.xAxis !== this.opts.xAxis;
    Object.assign(this.opts, opts);
    if (xChanged) {
      if (this.view && this.onZoom) this.onZoom(null);
      this.view = null;
      for (const s of this.series) setX(s, this.opts.xAxis);
    }
    this.schedule();
  }

  resetZoom() {
    const wasZoomed = this.view !== null;
    this.view = null;
    this.schedule();
    if (wasZoomed && this.onZoom) this.onZoom(null);
  }

  /** Redraw on the next animation frame (only when on screen). */
  schedule() {
    this.pending = true;
    if (!this.visible || this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.visible) return;
      this.pending = false;
      this.draw();
    });
  }

  _extent() {
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const s of this.series) {
      for (const xs of s.band ? [s.x, s.band.x] : [s.x]) {
        if (!xs.length) continue;
        x0 = Math.min(x0, xs[0]);
        x1 = Math.max(x1, xs[xs.length - 1]);
      }
    }
    if (this.view) return [this.view.x0, this.view.x1];
    if (!Number.isFinite(x0)) return [0, 1];
    if (x0 === x1) return [x0 - 1, x1 + 1];
    return [x0, x1];
  }

  _yRange(x0, x1) {
    const { logY, ignoreOutliers, smoothing } = this.opts;
    let lo = Infinity;
    let hi = -Infinity;
    let count = 0;
    const values = ignoreOutliers ? [] : null;
    const parts = [];
    for (const s of this.series) {
      parts.push([s.x, smoothing && s.sm ? [s.y, s.sm] : [s.y]]);
      if (s.band) parts.push([s.band.x, [s.band.lower, s.band.upper]]);
    }
    for (const [xs, arrs] of parts) {
      const i0 = lowerBound(xs, x0);
      const i1 = lowerBound(xs, x1 + 1e-9 * Math.abs(x1) + 1e-12);
      for (const a of arrs) {
        for (let i = i0; i < i1; i++) {
          let v = a[i];
          if (!Number.isFinite(v)) continue;
          if (logY) {
            if (v <= 0) continue;
            v = Math.log10(v);
          }
          if (values) values.push(v);
          if (v < lo) lo = v;
          if (v > hi) hi = v;
          count++;
        }
      }
    }
    if (values && values.length > 20) {
      const sorted = Float64Array.from(values).sort();
      lo = sorted[Math.floor(0.05 * (sorted.length - 1))];
      hi = sorted[Math.ceil(0.95 * (sorted.length - 1))];
    }
    if (!count) return logY ? [0, 1] : [0, 1];
    if (lo === hi) {
      const d = Math.abs(lo) * 0.1 || 1;
      return [lo - d, hi + d];
    }
    const pad = (hi - lo) * 0.05;
    return [lo - pad, hi + pad];
  }

  _formatX(v, span) {
    const ax = this.opts.xAxis;
    if (ax === "step") return formatStep(Math.round(v * 1000) / 1000);
    if (ax === "relative") return formatDuration(v);
    return formatWall(v, span);
  }

  draw() {
    const dpr = window.devicePixelRatio || 1;
    const w = this.root.clientWidth;
    const h = this.root.clientHeight;
    if (!w || !h) return;
    for (const c of [this.canvas, this.overlay]) {
      if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
        c.width = Math.round(w * dpr);
        c.height = Math.round(h * dpr);
      }
    }
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = FONT;
    const text = cssVar("--chart-text") || "#555";
    const grid = cssVar("--chart-grid") || "#ddd";

    const [x0, x1] = this._extent();
    const [y0, y1] = this._yRange(x0, x1);
    const { logY } = this.opts;
    const yTicks = logY ? logTicks(y0, y1) : niceTicks(y0, y1, Math.max(2, Math.floor(h / 40)));
    const yLabel = (t) => formatValue(logY ? 10 ** t : t);
    let left = 0;
    for (const t of yTicks) left = Math.max(left, ctx.measureText(yLabel(t)).width);
    left = Math.ceil(left) + 10;
    const pw = Math.max(10, w - left - PAD.right);
    const ph = Math.max(10, h - PAD.top - PAD.bottom);
    const sx = pw / (x1 - x0);
    const sy = ph / (y1 - y0);
    this.geom = { left, top: PAD.top, pw, ph, x0, x1, y0, y1, sx, sy };

    // grid + labels
    ctx.strokeStyle = grid;
    ctx.fillStyle = text;
    ctx.lineWidth = 1;
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    ctx.beginPath();
    for (const t of yTicks) {
      const py = Math.round(PAD.top + (y1 - t) * sy) + 0.5;
      ctx.moveTo(left, py);
      ctx.lineTo(left + pw, py);
      ctx.fillText(yLabel(t), left - 5, py);
    }
    const nx = Math.max(2, Math.floor(pw / 70));
    const xa = this.opts.xAxis;
    const xTicks = xa === "step" ? niceTicks(x0, x1, nx, 1) : timeTicks(x0, x1, nx);
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const t of xTicks) {
      const px = Math.round(left + (t - x0) * sx) + 0.5;
      ctx.moveTo(px, PAD.top);
      ctx.lineTo(px, PAD.top + ph);
      ctx.fillText(this._formatX(t, x1 - x0), px, PAD.top + ph + 5);
    }
    ctx.stroke();
    this.geom.xTicks = xTicks; // kept for the SVG export (chartexport.js)
    this.geom.yTicks = yTicks;

    // series
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, PAD.top, pw, ph);
    ctx.clip();
    ctx.lineJoin = "round";
    let points = 0;
    let drawn = 0;
    let bands = 0;
    let bandPoints = 0;
    for (const s of this.series) {
      if (!s.band) continue;
      const b = s.band;
      const j0 = Math.max(0, lowerBound(b.x, x0) - 1);
      const j1 = Math.min(b.x.length, lowerBound(b.x, x1) + 1);
      if (j1 <= j0) continue;
      ctx.fillStyle = s.color;
      ctx.globalAlpha = BAND_ALPHA;
      const n = drawBand(ctx, this.geom, this.opts.logY, b.x, b.lower, b.upper, j0, j1);
      if (n) bands++;
      bandPoints += n;
    }
    ctx.globalAlpha = 1;
    const order = this.series.filter((s) => s.faint).concat(this.series.filter((s) => !s.faint));
    for (const s of order) {
      const i0 = Math.max(0, lowerBound(s.x, x0) - 1);
      const i1 = Math.min(s.x.length, lowerBound(s.x, x1) + 1);
      if (i1 <= i0) continue;
      drawn++;
      ctx.strokeStyle = s.color;
      ctx.fillStyle = s.color;
      if (s.faint) {
        ctx.globalAlpha = 0.35;
        ctx.lineWidth = 1;
        points += drawPolyline(ctx, this.geom, this.opts.logY, s.x, s.y, i0, i1);
        ctx.globalAlpha = 1;
        continue;
      }
      const smooth = this.opts.smoothing && s.sm;
      ctx.globalAlpha = smooth ? 0.25 : 1;
      ctx.lineWidth = smooth ? 1 : 1.5;
      points += drawPolyline(ctx, this.geom, this.opts.logY, s.x, s.y, i0, i1);
      if (smooth) {
        ctx.globalAlpha = 1;
        ctx.lineWidth = 1.5;
        drawPolyline(ctx, this.geom, this.opts.logY, s.x, s.sm, i0, i1);
      }
      ctx.globalAlpha = 1;
      drawMarkers(ctx, this.geom, s, i0, i1);
    }
    ctx.restore();

    const d = this.root.dataset;
    d.series = String(drawn);
    d.points = String(points);
    d.bands = String(bands);
    d.bandPoints = String(bandPoints);
    d.xRange = `${x0},${x1}`;
    d.yRange = logY ? `${10 ** y0},${10 ** y1}` : `${y0},${y1}`;
    d.xAxis = xa;
    d.logY = logY ? "1" : "0";
    d.zoomed = this.view ? "1" : "0";
    d.ready = this.hasData ? "1" : "0";
    this.root.dispatchEvent(new CustomEvent("chart-drawn", { bubbles: true }));
  }

  _localX(e) {
    const r = this.overlay.getBoundingClientRect();
    return e.clientX - r.left;
  }

  _clearOverlay() {
    const ctx = this.overlay.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.overlay.width, this.overlay.height);
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  }

  _hover(e) {
    const g = this.geom;
    if (!g) return;
    const ctx = this._clearOverlay();
    const mx = Math.min(Math.max(this._localX(e), g.left), g.left + g.pw);
    if (this.drag) {
      this.drag.x1 = mx;
      ctx.fillStyle = cssVar("--chart-select") || "rgba(80,120,255,0.15)";
      const a = Math.min(this.drag.x0, mx);
      ctx.fillRect(a, g.top, Math.abs(mx - this.drag.x0), g.ph);
      hideTooltip();
      return;
    }
    const xv = g.x0 + (mx - g.left) / g.sx;
    this._emitHover(xv);
    ctx.strokeStyle = cssVar("--chart-text") || "#666";
    ctx.globalAlpha = 0.5;
    ctx.beginPath();
    ctx.moveTo(Math.round(mx) + 0.5, g.top);
    ctx.lineTo(Math.round(mx) + 0.5, g.top + g.ph);
    ctx.stroke();
    ctx.globalAlpha = 1;
    const rows = [];
    for (const s of this.series) {
      if (!s.x.length || !s.hover) continue;
      const i = nearestIndex(s.x, xv);
      if (s.x[i] < g.x0 || s.x[i] > g.x1) continue;
      const shownV = this.opts.smoothing && s.sm ? s.sm[i] : s.y[i];
      const nf = s.nf.find((p) => p[0] === i);
      rows.push({
        name: s.name,
        color: s.color,
        value: nf ? { nan: NaN, inf: Infinity, "-inf": -Infinity }[nf[1]] : s.y[i],
        smoothed: this.opts.smoothing && s.sm ? s.sm[i] : null,
        step: s.step[i],
        wall: s.wall[i],
        relative: s.wall[i] - s.start,
        sortKey: Number.isFinite(shownV) ? shownV : -Infinity,
        ...this._bandAt(s, i),
      });
      let v = shownV;
      if (this.opts.logY) v = v > 0 ? Math.log10(v) : NaN;
      if (Number.isFinite(v) && v >= g.y0 && v <= g.y1) {
        ctx.fillStyle = s.color;
        ctx.beginPath();
        ctx.arc(g.left + (s.x[i] - g.x0) * g.sx, g.top + (g.y1 - v) * g.sy, 3, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    rows.sort((a, b) => b.sortKey - a.sortKey);
    showTooltip(e.clientX, e.clientY, rows, this.opts.smoothing, this.opts.nameHeader);
  }

  /** Tell listeners (the value table) the x under the pointer: "chart-hover" {x}, x null when away. */
  _emitHover(x) {
    if (x === this.hoverX) return;
    this.hoverX = x;
    this.root.dispatchEvent(new CustomEvent("chart-hover", { detail: { x } }));
  }

  /** The band's lower/upper (and the count) at point `i` of a series: {} without a band. */
  _bandAt(s, i) {
    if (!s.band) return {};
    const b = s.band;
    const j = nearestIndex(b.x, s.x[i]);
    const out = j < 0 ? {} : { lower: b.lower[j], upper: b.upper[j] };
    if (s.count) out.count = s.count[i];
    return out;
  }

  _endDrag(e) {
    const d = this.drag;
    this.drag = null;
    this._clearOverlay();
    if (!d || !this.geom) return;
    const g = this.geom;
    const a = Math.min(d.x0, d.x1);
    const b = Math.max(d.x0, d.x1);
    if (b - a < 5) return;
    const x0 = g.x0 + (a - g.left) / g.sx;
    const x1 = g.x0 + (b - g.left) / g.sx;
    this.view = { x0, x1 };
    this.schedule();
    if (this.onZoom) this.onZoom(this._stepRange(x0, x1));
    void e;
  }

  /** The step range covered by [x0, x1] on the current x axis. */
  _stepRange(x0, x1) {
    if (this.opts.xAxis === "step") return { minStep: Math.floor(x0), maxStep: Math.ceil(x1) };
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of this.series) {
      const i0 = Math.max(0, lowerBound(s.x, x0) - 1);
      const i1 = Math.min(s.x.length - 1, lowerBound(s.x, x1));
      if (i1 < i0) continue;
      lo = Math.min(lo, s.step[i0]);
      hi = Math.max(hi, s.step[i1]);
    }
    return Number.isFinite(lo) ? { minStep: lo, maxStep: hi } : null;
  }
}
