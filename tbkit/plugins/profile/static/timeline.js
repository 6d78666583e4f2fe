// A first-party Canvas2D trace timeline: one track per thread, nested events stacked by depth.
// Wheel zooms around the pointer, drag pans (both ways), click selects, double-click resets;
// W/S zoom, A/D pan and the arrow keys scroll when the canvas has focus.
//
// Speed: events arrive as columns sorted by track then start, so each track's visible slice
// is found by binary search (on start, and on a running maximum of ends); events narrower than
// a pixel are not drawn one by one but merged into a per-row coverage bar.
import { niceTicks } from "../../ticks.js";
import { cssVar } from "../../util.js";

const GUTTER = 170; // px: track names
const AXIS = 22; // px: the time axis
const ROW = 18; // px per nesting level
const TRACK_PAD = 6; // px above and below a track's rows
const MIN_SPAN = 0.001; // µs: the deepest zoom
const PICK_PX = 3; // px of tolerance when clicking narrow events

/** Microseconds as "12.5 µs", "3.2 ms", "1.25 s". */
export function formatTime(us) {
  const a = Math.abs(us);
  const fmt = (v) => String(Number(v.toPrecision(4)));
  if (a >= 1e6) return fmt(us / 1e6) + " s";
  if (a >= 1e3) return fmt(us / 1e3) + " ms";
  return fmt(us) + " µs";
}

/** The first index in [lo, hi) of ascending `a` whose value is > v. */
function upperBound(a, v, lo, hi) {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function hashHue(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) % 360;
}

export class Timeline {
  /**
   * @param {HTMLElement} element the container (gets the canvas and the data-* test hooks)
   * @param {{onSelect?: Function, onHover?: Function}} options
   *   onSelect(index or -1), onHover(index or -1, clientX, clientY)
   */
  constructor(element, options = {}) {
    this.element = element;
    this.options = options;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "timeline-canvas";
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("aria-label", "Trace timeline: wheel to zoom, drag to pan, click an event to select it");
    element.append(this.canvas);
    element.dataset.ready = "0";
    Object.defineProperty(element, "timeline", { value: this, configurable: true }); // for tests and the console
    this.data = null;
    this.selected = -1;
    this.highlight = -1; // a name index drawn in colour while the others fade
    this.lo = 0;
    this.hi = 1;
    this.scrollY = 0;
    this.frame = 0;
    this.width = 0;
    this.height = 0;
    this.bindEvents();
    this.resizeObs = new ResizeObserver(() => this.schedule());
    this.resizeObs.observe(element);
    this.onTheme = () => {
      this.palette();
      this.schedule();
    };
    window.addEventListener("tbkit-theme", this.onTheme);
  }

  /** Show a trace: the answer of /data/plugin/profile/timeline. */
  setData(answer) {
    const n = answer.ts.length;
    const ts = Float64Array.from(answer.ts);
    const dur = Float64Array.from(answer.dur);
    const ends = new Float64Array(n); // running maximum of ends within each track
    let top = 0;
    const tracks = answer.tracks.map((t) => {
      let m = -Infinity;
      for (let i = t.first; i < t.first + t.count; i++) {
        m = Math.max(m, ts[i] + dur[i]);
        ends[i] = m;
      }
      const height = t.depth * ROW + 2 * TRACK_PAD;
      const out = { ...t, top, height };
      top += height;
      return out;
    });
    this.data = {
      n,
      ts,
      dur,
      ends,
      name: Int32Array.from(answer.name),
      depth: Int32Array.from(answer.depth),
      names: answer.names,
      tracks,
      span: Math.max(answer.span_us, MIN_SPAN),
      contentHeight: top,
      maxDepth: tracks.reduce((m, t) => Math.max(m, t.depth), 1),
    };
    this.selected = -1;
    this.highlight = -1;
    this.scrollY = 0;
    this.palette();
    this.element.style.height = Math.max(120, Math.min(top + AXIS + 2, 460)) + "px";
    this.element.dataset.events = String(n);
    this.element.dataset.tracks = String(tracks.length);
    this.element.dataset.selected = "";
    this.resetView();
  }

  /** Zoom out to the whole trace. */
  resetView() {
    if (!this.data) return;
    const pad = this.data.span * 0.01;
    this.setRange(-pad, this.data.span + pad);
  }

  /** Show [lo, hi] (µs from the trace's start), a little padded. */
  zoomTo(lo, hi) {
    const pad = Math.max((hi - lo) * 0.05, MIN_SPAN);
    this.setRange(lo - pad, hi + pad);
  }

  setRange(lo, hi) {
    if (!this.data) return;
    const full = this.data.span * 1.2;
    let span = Math.min(Math.max(hi - lo, MIN_SPAN), full);
    const min = -this.data.span * 0.1;
    const max = this.data.span * 1.1;
    lo = Math.min(Math.max(lo, min), max - span);
    if (lo < min) {
      lo = min;
      span = Math.min(span, max - min);
    }
    this.lo = lo;
    this.hi = lo + span;
    this.schedule();
  }

  /** Select event `index` (-1: none) and scroll its track into view. */
  select(index) {
    this.selected = index;
    this.element.dataset.selected = index >= 0 ? String(index) : "";
    if (index >= 0 && this.data) {
      const y = this.rowTop(index);
      const visible = this.height - AXIS;
      if (y < this.scrollY || y + ROW > this.scrollY + visible) this.scrollTo(y - visible / 3);
    }
    this.schedule();
  }

  /** Draw events named `nameIndex` in colour and the others faded (-1: all in colour). */
  setHighlight(nameIndex) {
    this.highlight = nameIndex;
    this.schedule();
  }

  /** Client coordinates of the middle of event `index`'s visible part, or null when off view. */
  positionOf(index) {
    if (!this.data) return null;
    const { ts, dur } = this.data;
    const scale = (this.width - GUTTER) / (this.hi - this.lo);
    const a = Math.max(ts[index], this.lo);
    const b = Math.min(ts[index] + dur[index], this.hi);
    if (b < a) return null;
    const y = AXIS + this.rowTop(index) - this.scrollY + ROW / 2;
    if (y < AXIS || y > this.height) return null;
    const rect = this.canvas.getBoundingClientRect();
    return { x: rect.left + GUTTER + ((a + b) / 2 - this.lo) * scale, y: rect.top + y };
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.resizeObs.disconnect();
    window.removeEventListener("tbkit-theme", this.onTheme);
    window.removeEventListener("mousemove", this.onDragMove);
    window.removeEventListener("mouseup", this.onDragEnd);
  }

  // ------------------------------------------------------------------ internals
  rowTop(index) {
    const d = this.data;
    const track = d.tracks[this.trackOf(index)];
    return track.top + TRACK_PAD + d.depth[index] * ROW;
  }

  trackOf(index) {
    const tracks = this.data.tracks;
    let lo = 0;
    let hi = tracks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (tracks[mid].first <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  scrollTo(y) {
    const max = Math.max(0, (this.data ? this.data.contentHeight : 0) - (this.height - AXIS));
    this.scrollY = Math.min(Math.max(0, y), max);
    this.schedule();
  }

  palette() {
    const dark = document.documentElement.dataset.theme === "dark";
    this.colors = {
      text: cssVar("--chart-text") || "#555",
      grid: cssVar("--chart-grid") || "#ddd",
      bg: cssVar("--card-bg") || "#fff",
      fg: cssVar("--fg") || "#000",
      accent: cssVar("--accent") || "#f57c00",
      coverage: dark ? "rgba(200, 205, 215, 0.45)" : "rgba(90, 100, 115, 0.45)",
      label: dark ? "#101214" : "#1b1e22",
    };
    if (!this.data) return;
    const [s, l] = dark ? [45, 48] : [60, 72];
    this.fills = this.data.names.map((text) => `hsl(${hashHue(text)}, ${s}%, ${l}%)`);
    this.faded = dark ? "rgba(120, 125, 135, 0.35)" : "rgba(160, 165, 175, 0.35)";
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** The event under canvas point (x, y), or -1. */
  hit(x, y) {
    const d = this.data;
    if (!d || x < GUTTER || y < AXIS) return -1;
    const cy = y - AXIS + this.scrollY;
    const tracks = d.tracks;
    let k = 0;
    while (k < tracks.length && tracks[k].top + tracks[k].height <= cy) k++;
    if (k >= tracks.length) return -1;
    const track = tracks[k];
    const level = Math.floor((cy - track.top - TRACK_PAD) / ROW);
    if (level < 0 || level >= track.depth) return -1;
    const scale = (this.width - GUTTER) / (this.hi - this.lo);
    const t = this.lo + (x - GUTTER) / scale;
    const tol = PICK_PX / scale;
    const end = track.first + track.count;
    const i0 = upperBound(d.ends, t - tol, track.first, end);
    const i1 = upperBound(d.ts, t + tol, track.first, end);
    let best = -1;
    let bestDist = Infinity;
    for (let i = i0; i < i1; i++) {
      if (d.depth[i] !== level) continue;
      const a = d.ts[i];
      const b = a + d.dur[i];
      const dist = t < a ? a - t : t > b ? t - b : 0;
      // Inside: prefer the shortest event; near: the closest.
      const score = dist === 0 ? -1 / (1 + d.dur[i]) : dist;
      if (dist <= tol && score < bestDist) {
        best = i;
        bestDist = score;
      }
    }
    return best;
  }

  bindEvents() {
    const c = this.canvas;
    const local = (e) => {
      const r = c.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    c.addEventListener(
      "wheel",
      (e) => {
        if (!this.data) return;
        e.preventDefault();
        const [x] = local(e);
        const scale = (this.width - GUTTER) / (this.hi - this.lo);
        if (e.shiftKey) {
          this.scrollTo(this.scrollY + (e.deltaY || e.deltaX));
          return;
        }
        if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          this.setRange(this.lo + e.deltaX / scale, this.hi + e.deltaX / scale);
          return;
        }
        const unit = e.deltaMode === 1 ? 30 : e.deltaMode === 2 ? 300 : 1;
        const factor = Math.exp(e.deltaY * unit * 0.002);
        const anchor = this.lo + (Math.max(x, GUTTER) - GUTTER) / scale;
        this.setRange(anchor - (anchor - this.lo) * factor, anchor + (this.hi - anchor) * factor);
      },
      { passive: false },
    );
    let drag = null;
    this.onDragMove = (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      const scale = (this.width - GUTTER) / (drag.hi - drag.lo);
      this.setRange(drag.lo - dx / scale, drag.hi - dx / scale);
      this.scrollTo(drag.scrollY - dy);
    };
    this.onDragEnd = (e) => {
      window.removeEventListener("mousemove", this.onDragMove);
      window.removeEventListener("mouseup", this.onDragEnd);
      const was = drag;
      drag = null;
      c.classList.remove("dragging");
      if (was && !was.moved) {
        const [x, y] = local(e);
        const index = this.hit(x, y);
        this.select(index);
        if (this.options.onSelect) this.options.onSelect(index);
      }
    };
    c.addEventListener("mousedown", (e) => {
      if (e.button !== 0 || !this.data) return;
      drag = { x: e.clientX, y: e.clientY, lo: this.lo, hi: this.hi, scrollY: this.scrollY, moved: false };
      c.classList.add("dragging");
      window.addEventListener("mousemove", this.onDragMove);
      window.addEventListener("mouseup", this.onDragEnd);
    });
    c.addEventListener("mousemove", (e) => {
      if (drag || !this.data) return;
      const [x, y] = local(e);
      const index = this.hit(x, y);
      c.classList.toggle("over-event", index >= 0);
      if (this.options.onHover) this.options.onHover(index, e.clientX, e.clientY);
    });
    c.addEventListener("mouseleave", () => {
      if (this.options.onHover) this.options.onHover(-1, 0, 0);
    });
    c.addEventListener("dblclick", () => this.resetView());
    c.addEventListener("keydown", (e) => {
      if (!this.data || e.ctrlKey || e.metaKey || e.altKey) return;
      const span = this.hi - this.lo;
      const mid = (this.lo + this.hi) / 2;
      const keys = {
        w: () => this.setRange(mid - span * 0.35, mid + span * 0.35),
        s: () => this.setRange(mid - span * 0.7, mid + span * 0.7),
        a: () => this.setRange(this.lo - span * 0.15, this.hi - span * 0.15),
        d: () => this.setRange(this.lo + span * 0.15, this.hi + span * 0.15),
        ArrowUp: () => this.scrollTo(this.scrollY - ROW * 3),
        ArrowDown: () => this.scrollTo(this.scrollY + ROW * 3),
        Escape: () => {
          this.select(-1);
          if (this.options.onSelect) this.options.onSelect(-1);
        },
      };
      const action = keys[e.key.length === 1 ? e.key.toLowerCase() : e.key];
      if (action) {
        e.preventDefault();
        action();
      }
    });
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = this.element.clientWidth;
    const h = this.element.clientHeight;
    if (w !== this.width || h !== this.height || this.canvas.width !== Math.round(w * dpr)) {
      this.width = w;
      this.height = h;
      this.canvas.width = Math.round(w * dpr);
      this.canvas.height = Math.round(h * dpr);
      this.canvas.style.width = w + "px";
      this.canvas.style.height = h + "px";
      if (this.data) this.scrollTo(this.scrollY);
    }
    return dpr;
  }

  draw() {
    const dpr = this.resize();
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    if (!this.data || this.width <= GUTTER) return;
    const stats = this.drawTracks(ctx);
    this.drawAxis(ctx);
    this.drawGutter(ctx);
    const el = this.element.dataset;
    el.drawn = String(stats.drawn);
    el.merged = String(stats.merged);
    el.range = `${this.lo},${this.hi}`;
    el.ready = "1";
  }

  drawTracks(ctx) {
    const d = this.data;
    const c = this.colors;
    const plotW = this.width - GUTTER;
    const scale = plotW / (this.hi - this.lo);
    const lo = this.lo;
    const hi = this.hi;
    const cols = Math.ceil(plotW) + 1;
    if (!this.coverage || this.coverage.length < cols * d.maxDepth) this.coverage = new Uint8Array(cols * d.maxDepth);
    const cover = this.coverage;
    let drawn = 0;
    let merged = 0;
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, AXIS, plotW, this.height - AXIS);
    ctx.clip();
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    for (const track of d.tracks) {
      const top = AXIS + track.top - this.scrollY;
      if (top + track.height < AXIS || top > this.height) continue;
      ctx.fillStyle = c.grid;
      ctx.fillRect(GUTTER, top + track.height - 1, plotW, 1);
      const end = track.first + track.count;
      const i0 = upperBound(d.ends, lo, track.first, end); // the first event ending after lo
      const i1 = upperBound(d.ts, hi, i0, end); // past the last event starting before hi
      cover.fill(0, 0, cols * track.depth);
      for (let i = i0; i < i1; i++) {
        const a = d.ts[i];
        const b = a + d.dur[i];
        if (b < lo) continue;
        const x0 = (a - lo) * scale;
        const x1 = (b - lo) * scale;
        const level = d.depth[i];
        if (x1 - x0 < 1) {
          const px = Math.min(cols - 1, Math.max(0, Math.floor(x0)));
          cover[level * cols + px] = 1;
          merged++;
          continue;
        }
        const y = top + TRACK_PAD + level * ROW;
        const left = Math.max(x0, -2);
        const w = Math.min(x1, plotW + 2) - left;
        const name = d.name[i];
        ctx.fillStyle = this.highlight < 0 || this.highlight === name ? this.fills[name] : this.faded;
        ctx.fillRect(GUTTER + left, y, w, ROW - 1);
        drawn++;
        if (w > 36) {
          ctx.fillStyle = c.label;
          ctx.save();
          ctx.beginPath();
          ctx.rect(GUTTER + left + 2, y, w - 4, ROW - 1);
          ctx.clip();
          ctx.fillText(d.names[name], GUTTER + left + 3, y + ROW / 2);
          ctx.restore();
        }
      }
      ctx.fillStyle = c.coverage;
      for (let level = 0; level < track.depth; level++) {
        const y = top + TRACK_PAD + level * ROW + 3;
        const row = level * cols;
        let start = -1;
        for (let px = 0; px <= cols; px++) {
          const on = px < cols && cover[row + px] === 1;
          if (on && start < 0) start = px;
          else if (!on && start >= 0) {
            ctx.fillRect(GUTTER + start, y, px - start, ROW - 7);
            start = -1;
          }
        }
      }
    }
    if (this.selected >= 0) this.drawSelected(ctx, scale);
    ctx.restore();
    return { drawn, merged };
  }

  drawSelected(ctx, scale) {
    const d = this.data;
    const i = this.selected;
    const y = AXIS + this.rowTop(i) - this.scrollY;
    const x0 = GUTTER + (d.ts[i] - this.lo) * scale;
    const w = Math.max(d.dur[i] * scale, 3);
    ctx.strokeStyle = this.colors.fg;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - (w === 3 ? 1.5 : 0), y + 1, w, ROW - 3);
  }

  drawAxis(ctx) {
    const c = this.colors;
    const plotW = this.width - GUTTER;
    const scale = plotW / (this.hi - this.lo);
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, this.width, AXIS);
    ctx.fillStyle = c.grid;
    ctx.fillRect(0, AXIS - 1, this.width, 1);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.fillStyle = c.text;
    for (const t of niceTicks(this.lo, this.hi, Math.max(2, Math.floor(plotW / 110)))) {
      const x = GUTTER + (t - this.lo) * scale;
      ctx.fillRect(x, AXIS - 6, 1, 5);
      ctx.fillText(formatTime(t), x + 3, AXIS / 2 - 1);
    }
  }

  drawGutter(ctx) {
    const c = this.colors;
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, AXIS, GUTTER, this.height - AXIS);
    ctx.fillStyle = c.grid;
    ctx.fillRect(GUTTER - 1, 0, 1, this.height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS, GUTTER - 6, this.height - AXIS);
    ctx.clip();
    ctx.font = "11.5px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    for (const track of this.data.tracks) {
      const top = AXIS + track.top - this.scrollY;
      if (top + track.height < AXIS || top > this.height) continue;
      ctx.fillStyle = c.grid;
      ctx.fillRect(0, top + track.height - 1, GUTTER, 1);
      ctx.fillStyle = c.fg;
      ctx.fillText(track.name, 6, top + TRACK_PAD + ROW / 2);
    }
    ctx.restore();
    const visible = this.height - AXIS;
    if (this.data.contentHeight > visible) {
      // A slim scroll indicator on the right edge.
      const h = Math.max(20, (visible * visible) / this.data.contentHeight);
      const y = AXIS + (this.scrollY / (this.data.contentHeight - visible)) * (visible - h);
      ctx.fillStyle = c.coverage;
      ctx.fillRect(this.width - 5, y, 4, h);
    }
  }
}
