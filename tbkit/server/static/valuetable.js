// The values of a line chart (chart.js) at one step, as a table under it: one row per line the
// tooltip would show (run or group), at the point nearest the pointer, or at each line's last
// point while the pointer is away. Every cell is text (textContent).
import { nearestIndex } from "./chartdraw.js";
import { safeColor } from "./tooltip.js";
import { el, clear, formatDuration, formatValue } from "./util.js";

const NONFINITE = { nan: NaN, inf: Infinity, "-inf": -Infinity };

// Local date and time to the second (what toLocaleString gives), made once: a formatter is costly.
const WALL = new Intl.DateTimeFormat([], {
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric",
  hour12: false,
});

/** A wall time (seconds) as local date and time, to the second. */
function wallText(seconds) {
  return Number.isFinite(seconds) ? WALL.format(new Date(seconds * 1000)) : "–";
}

/** [series, index] of the point each line shows in the table at x `x` (null: last points). */
function pointsAt(chart, x) {
  const out = [];
  for (const s of chart.series) {
    if (!s.hover || !s.x.length) continue;
    out.push([s, x === null ? s.x.length - 1 : nearestIndex(s.x, x)]);
  }
  return out;
}

/** A row of the table: {name, color, smoothed, value, step, relative, wall} of point `i` of `s`. */
function row(s, i, smoothing) {
  const nf = s.nf.find((p) => p[0] === i);
  return {
    name: s.name,
    color: s.color,
    smoothed: smoothing && s.sm ? s.sm[i] : null,
    value: nf ? NONFINITE[nf[1]] : s.y[i],
    step: s.step[i],
    relative: s.wall[i] - s.start,
    wall: s.wall[i],
  };
}

export class ValueTable {
  /** @param {import('./chart.js').LineChart} chart */
  constructor(chart) {
    this.chart = chart;
    this.x = null;
    this.head = el("thead");
    this.rows = el("tbody");
    this.caption = el("div", { class: "value-table-caption muted" });
    this.element = el("div", { class: "value-table", hidden: true }, this.caption, el("table", {}, this.head, this.rows));
    this.frame = 0;
    this.shownKey = null; // what the rows show: redrawn only when it changes
    this.onHover = (e) => {
      this.x = e.detail.x;
      this.schedule();
    };
    this.onDrawn = () => {
      this.shownKey = null; // new data or options
      this.schedule();
    };
    chart.root.addEventListener("chart-hover", this.onHover);
    chart.root.addEventListener("chart-drawn", this.onDrawn);
  }

  get shown() {
    return !this.element.hidden;
  }

  show(on) {
    this.element.hidden = !on;
    this.shownKey = null;
    this.render();
  }

  /** Render on the next animation frame (pointer moves come faster than frames). */
  schedule() {
    if (this.element.hidden || this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  render() {
    if (this.element.hidden) return;
    const chart = this.chart;
    const smoothing = chart.opts.smoothing;
    const points = pointsAt(chart, this.x);
    const key = (this.x === null ? "last" : "at") + points.map(([, i]) => i).join(",");
    if (key === this.shownKey) return;
    this.shownKey = key;
    const cols = [chart.opts.nameHeader || "Run", ...(smoothing ? ["Smoothed"] : []), "Value", "Step", "Relative", "Wall time"];
    clear(this.head).append(el("tr", {}, ...cols.map((c) => el("th", { text: c, scope: "col" }))));
    const rows = points.map(([s, i]) => row(s, i, smoothing));
    this.caption.textContent = this.x === null ? "Last values" : "Values at the pointer";
    this.element.dataset.at = this.x === null ? "last" : "pointer";
    this.element.dataset.rows = String(rows.length);
    clear(this.rows).append(
      ...rows.map((r) =>
        el(
          "tr",
          {},
          el("td", { class: "run-cell" }, el("span", { class: "swatch", style: `background:${safeColor(r.color)}` }), el("span", { class: "run-label", text: r.name })),
          smoothing ? el("td", { class: "num smoothed", text: formatValue(r.smoothed) }) : null,
          el("td", { class: "num value", text: formatValue(r.value) }),
          el("td", { class: "num step", text: String(r.step) }),
          el("td", { class: "num relative", text: formatDuration(r.relative) }),
          el("td", { class: "num wall", text: wallText(r.wall) }),
        ),
      ),
    );
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.chart.root.removeEventListener("chart-hover", this.onHover);
    this.chart.root.removeEventListener("chart-drawn", this.onDrawn);
    this.element.remove();
  }
}
