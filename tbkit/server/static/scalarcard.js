// A card with one scalar chart: one request for every active run that has the tag,
// refetched at full resolution for the zoomed step range.
import { fetchScalars, url } from "./api.js";
import { LineChart } from "./chart.js";
import { el, clear } from "./util.js";

const POINTS = 1000;

/** Download links (CSV and JSON of the full-resolution series) for each run of a tag. */
export function downloadMenu(tag, runsFn, route = "data/plugin/scalars/download") {
  const list = el("div", { class: "download-list" });
  const menu = el("details", { class: "downloads" }, el("summary", { title: "Download data", text: "⤓" }), list);
  menu.addEventListener("toggle", () => {
    if (!menu.open) return;
    const rows = runsFn().map((run) =>
      el(
        "div",
        { class: "download-row" },
        el("span", { class: "run-label", text: run, title: run }),
        el("a", { href: url(route, { run, tag, format: "csv" }), download: "", text: "CSV" }),
        el("a", { href: url(route, { run, tag, format: "json" }), download: "", text: "JSON" }),
      ),
    );
    clear(list).append(...(rows.length ? rows : [el("div", { class: "muted", text: "No run selected." })]));
  });
  return menu;
}

export class ScalarCard {
  /**
   * @param {string} tag
   * @param {{runs: import('./runs.js').RunStore, settings: import('./settings.js').Settings}} ctx
   * @param {() => string[]} tagRuns runs that have this tag
   * @param {HTMLElement} [header] extra header elements (pin button)
   */
  constructor(tag, ctx, tagRuns, headerExtras = []) {
    this.tag = tag;
    this.ctx = ctx;
    this.tagRuns = tagRuns;
    this.zoom = null;
    this.abort = null;
    this.body = el("div", { class: "card-body" });
    this.element = el(
      "section",
      { class: "card scalar-card", dataset: { tag, kind: "scalars" } },
      el(
        "header",
        { class: "card-header" },
        el("h3", { class: "card-title", text: tag, title: tag }),
        el("span", { class: "badge", text: "scalar" }),
        downloadMenu(tag, () => this.runs()),
        ...headerExtras,
      ),
      this.body,
    );
    this.chart = new LineChart(this.body, { onZoom: (range) => this.onZoom(range) });
  }

  runs() {
    const have = new Set(this.tagRuns());
    return this.ctx.runs.active().filter((r) => have.has(r));
  }

  onZoom(range) {
    this.zoom = range;
    this.load();
  }

  /** Fetch and draw. */
  async load() {
    if (this.abort) this.abort.abort();
    const abort = new AbortController();
    this.abort = abort;
    const runs = this.runs();
    const smoothing = this.ctx.settings.get("smoothing");
    if (!runs.length) {
      this.chart.setSeries([], this.ctx.settings.chartOptions());
      return;
    }
    try {
      const data = await fetchScalars({
        tag: this.tag,
        runs,
        points: POINTS,
        smoothing,
        minStep: this.zoom ? this.zoom.minStep : undefined,
        maxStep: this.zoom ? this.zoom.maxStep : undefined,
        signal: abort.signal,
      });
      if (abort.signal.aborted) return;
      const series = runs
        .filter((r) => data[r])
        .map((r) => ({ name: r, color: this.ctx.runs.color(r), start: this.ctx.runs.startTime(r), ...data[r] }));
      this.element.classList.remove("error");
      this.chart.setSeries(series, this.ctx.settings.chartOptions());
    } catch (err) {
      if (err.name === "AbortError") return;
      this.element.classList.add("error");
      this.chart.note.textContent = "Could not load: " + err.message;
    }
  }

  /** Settings that need no refetch (axis, log, outliers). */
  applyOptions() {
    this.chart.setOptions(this.ctx.settings.chartOptions());
  }

  /** Colours changed: recolour without refetching. */
  recolor() {
    for (const s of this.chart.series) s.color = this.ctx.runs.color(s.name);
    this.chart.schedule();
  }

  destroy() {
    if (this.abort) this.abort.abort();
    this.chart.destroy();
    this.element.remove();
  }
}
