// A card with one scalar chart: one request for every active run that has the tag,
// refetched at full resolution for the zoomed step range. With run groups on (groups.js),
// one line and band per group instead (and the members' lines, faint, when asked).
// The requests leave `points` to the server: its default is --samples_per_plugin scalars=N
// (1000 without the flag; every point with scalars=all).
import { fetchScalars, startDownload, url } from "./api.js";
import { LineChart } from "./chart.js";
import { chartPng, chartSvg } from "./chartexport.js";
import { maximizeButton, restoreCard, maximizedCard, safeFileName, saveBlob } from "./cardtools.js";
import { fetchGroups, groupDownloadUrl, groupLabel, groupQuery } from "./groups.js";
import { el, clear } from "./util.js";
import { ValueTable } from "./valuetable.js";

/** A button downloading `hrefFn()` when clicked (the URL holds names: it is never an attribute). */
export function downloadButton(text, hrefFn) {
  return el("button", { type: "button", class: "download-button", text, on: { click: () => startDownload(hrefFn()) } });
}

/**
 * Download links (CSV and JSON of the full-resolution series) for each run of a tag;
 * `extraRows()` may add rows (the groups' file).
 */
export function downloadMenu(tag, runsFn, route = "data/plugin/scalars/download", extraRows = () => []) {
  const list = el("div", { class: "download-list" });
  const menu = el("details", { class: "downloads" }, el("summary", { title: "Download data", text: "⤓" }), list);
  menu.addEventListener("toggle", () => {
    if (!menu.open) return;
    const rows = runsFn().map((run) =>
      el(
        "div",
        { class: "download-row" },
        el("span", { class: "run-label", text: run, title: run }),
        downloadButton("CSV", () => url(route, { run, tag, format: "csv" })),
        downloadButton("JSON", () => url(route, { run, tag, format: "json" })),
      ),
    );
    clear(list).append(...extraRows(), ...(rows.length ? rows : [el("div", { class: "muted", text: "No run selected." })]));
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
    this.tableButton = el("button", {
      type: "button",
      class: "icon table-toggle",
      text: "▦",
      title: "Values at the pointer, as a table",
      "aria-label": "Show the values table",
      "aria-pressed": "false",
    });
    this.element = el(
      "section",
      { class: "card scalar-card", dataset: { tag, kind: "scalars" } },
      el(
        "header",
        { class: "card-header" },
        el("h3", { class: "card-title", text: tag, title: tag }),
        el("span", { class: "badge", text: "scalar" }),
        this.tableButton,
        downloadMenu(tag, () => this.runs(), undefined, () => [this.exportRow(), ...this.groupDownloadRows()]),
        ...headerExtras,
        maximizeButton(),
      ),
      this.body,
    );
    this.chart = new LineChart(this.body, { onZoom: (range) => this.onZoom(range) });
    this.table = new ValueTable(this.chart);
    this.element.append(this.table.element);
    this.tableButton.addEventListener("click", () => {
      this.table.show(!this.table.shown);
      this.tableButton.setAttribute("aria-pressed", this.table.shown ? "true" : "false");
    });
  }

  /** The menu row saving the chart as it is drawn: PNG and SVG files named after the tag. */
  exportRow() {
    const save = (kind) => async () => {
      try {
        const blob =
          kind === "png" ? await chartPng(this.chart, this.tag) : new Blob([chartSvg(this.chart, this.tag)], { type: "image/svg+xml" });
        saveBlob(blob, safeFileName(this.tag, kind));
      } catch (err) {
        this.chart.note.textContent = "Could not export: " + err.message;
      }
    };
    return el(
      "div",
      { class: "export-row" },
      el("span", { class: "export-label", text: "Chart image" }),
      el("button", { type: "button", class: "download-button export-png", text: "PNG", on: { click: save("png") } }),
      el("button", { type: "button", class: "download-button export-svg", text: "SVG", on: { click: save("svg") } }),
    );
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
      delete this.element.dataset.groups;
      this.chart.setSeries([], this.ctx.settings.chartOptions());
      return;
    }
    const grouping = groupQuery(this.ctx.settings);
    try {
      const series = grouping
        ? await this.groupSeries(runs, grouping, smoothing, abort.signal)
        : await this.runSeries(runs, smoothing, abort.signal);
      if (abort.signal.aborted) return;
      if (!grouping) delete this.element.dataset.groups;
      this.element.classList.remove("error");
      this.chart.setSeries(series, { ...this.ctx.settings.chartOptions(), nameHeader: grouping ? "Group" : "Run" });
    } catch (err) {
      if (err.name === "AbortError") return;
      this.element.classList.add("error");
      this.chart.note.textContent = "Could not load: " + err.message;
    }
  }

  /** The step range of the zoom, as request parameters. */
  zoomRange() {
    return { minStep: this.zoom ? this.zoom.minStep : undefined, maxStep: this.zoom ? this.zoom.maxStep : undefined };
  }

  /** One series per run. */
  async runSeries(runs, smoothing, signal) {
    const data = await fetchScalars({ tag: this.tag, runs, smoothing, ...this.zoomRange(), signal });
    return runs
      .filter((r) => data[r])
      .map((r) => ({ name: r, color: this.ctx.runs.color(r), start: this.ctx.runs.startTime(r), ...data[r] }));
  }

  /** One series with a band per group (computed by the server), after its members' faint lines. */
  async groupSeries(runs, query, smoothing, signal) {
    const withMembers = this.ctx.settings.get("groupMembers");
    const range = this.zoomRange();
    const [groups, members] = await Promise.all([
      fetchGroups({ tag: this.tag, runs, smoothing, query, signal, ...range }),
      withMembers ? fetchScalars({ tag: this.tag, runs, smoothing: 0, signal, ...range }) : {},
    ]);
    const series = [];
    for (const [name, g] of Object.entries(groups)) {
      for (const m of withMembers ? g.members : []) {
        if (!members[m]) continue;
        const start = this.ctx.runs.startTime(m);
        series.push({ ...members[m], name: m, color: g.color, kind: "member", faint: true, hover: false, smoothed: null, start });
      }
      const band = { step: g.step, wall_time: g.wall_time, lower: g.lower, upper: g.upper };
      series.push({
        name,
        color: g.color,
        kind: "group",
        step: g.step,
        wall_time: g.wall_time,
        value: g.value,
        smoothed: g.smoothed,
        count: g.count,
        total: g.total,
        shown: g.shown,
        band,
      });
    }
    this.element.dataset.groups = String(Object.keys(groups).length);
    return series;
  }

  /** The download row of the groups' file, when runs are grouped. */
  groupDownloadRows() {
    const query = groupQuery(this.ctx.settings);
    if (!query) return [];
    const runs = this.runs();
    return [
      el(
        "div",
        { class: "download-row group-download" },
        el("span", { class: "run-label", text: "Groups (" + groupLabel(query) + ")" }),
        downloadButton("CSV", () => groupDownloadUrl(this.tag, runs, query, "csv")),
        downloadButton("JSON", () => groupDownloadUrl(this.tag, runs, query, "json")),
      ),
    ];
  }

  /** Settings that need no refetch (axis, log, outliers). */
  applyOptions() {
    this.chart.setOptions(this.ctx.settings.chartOptions());
  }

  /** Colours changed: recolour without refetching. */
  recolor() {
    for (const s of this.chart.series) if (s.kind === "run") s.color = this.ctx.runs.color(s.name);
    this.chart.schedule();
  }

  destroy() {
    if (this.abort) this.abort.abort();
    if (maximizedCard() === this.element) restoreCard();
    this.table.destroy();
    this.chart.destroy();
    this.element.remove();
  }
}
