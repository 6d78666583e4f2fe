// The Custom Scalars dashboard: the categories and charts of the logged layout (merged over runs).
// A multiline chart draws one line per run and tag its regexes match; a margin chart draws each
// run's value line over a band between its lower and upper tags (the line chart's bands).
// The points per series are the server's (--samples_per_plugin scalars=N, else 1000).
import { getJSON, postJSON, loadStyle } from "../../api.js";
import { LineChart } from "../../chart.js";
import { chartControls } from "../../settings.js";
import { el, clear, lazyLoader } from "../../util.js";

/** One chart of the layout: a card with a LineChart, loaded when scrolled into view. */
class LayoutChart {
  constructor(spec, ctx) {
    this.spec = spec;
    this.ctx = ctx;
    this.abort = null;
    const what = spec.kind === "margin" ? spec.series.map((s) => s.value).join(", ") : spec.tags.join(", ");
    this.body = el("div", { class: "card-body" });
    this.element = el(
      "section",
      { class: "card custom-chart", dataset: { kind: spec.kind, title: spec.title } },
      el(
        "header",
        { class: "card-header" },
        el("h3", { class: "card-title", text: spec.title, title: spec.title }),
        el("span", { class: "badge", text: spec.kind }),
      ),
      el("div", { class: "custom-tags muted", text: what, title: what }),
      this.body,
    );
    this.chart = new LineChart(this.body);
  }

  async load() {
    if (this.abort) this.abort.abort();
    const abort = new AbortController();
    this.abort = abort;
    const runs = this.ctx.runs.active();
    const smoothing = this.ctx.settings.get("smoothing");
    try {
      const series = runs.length ? await (this.spec.kind === "margin" ? this.margin(runs, smoothing, abort.signal) : this.multiline(runs, smoothing, abort.signal)) : [];
      if (abort.signal.aborted) return;
      this.element.classList.remove("error");
      this.element.dataset.lines = String(series.length);
      this.chart.setSeries(series, { ...this.ctx.settings.chartOptions(), nameHeader: "Run" });
    } catch (err) {
      if (err.name === "AbortError") return;
      this.element.classList.add("error");
      this.chart.note.textContent = "Could not load: " + err.message;
    }
  }

  /** One series per (run, matching tag); run colours when the chart has a single tag. */
  async multiline(runs, smoothing, signal) {
    const answer = await postJSON("data/plugin/custom_scalars/scalars", { tags: this.spec.tags, runs, smoothing }, { signal });
    const tags = new Set(Object.values(answer.series).flatMap((t) => Object.keys(t)));
    this.element.dataset.invalid = String(answer.invalid.length);
    const out = [];
    for (const run of runs) {
      for (const [tag, data] of Object.entries(answer.series[run] || {})) {
        const color = tags.size === 1 ? this.ctx.runs.color(run) : data.color;
        out.push({ ...data, name: tags.size === 1 ? run : `${run} · ${tag}`, color, run, start: this.ctx.runs.startTime(run) });
      }
    }
    return out;
  }

  /** Per run and margin series: the value line with its lower–upper band, in the run's colour. */
  async margin(runs, smoothing, signal) {
    const several = this.spec.series.length > 1;
    const answers = await Promise.all(
      this.spec.series.map((s) => postJSON("data/plugin/custom_scalars/margin", { ...s, runs, smoothing }, { signal })),
    );
    const out = [];
    answers.forEach((answer, k) => {
      for (const run of runs) {
        const data = answer[run];
        if (!data) continue;
        const name = several ? `${run} · ${this.spec.series[k].value}` : run;
        out.push({ ...data, band: data.band || null, name, color: this.ctx.runs.color(run), run, start: this.ctx.runs.startTime(run) });
      }
    });
    return out;
  }

  applyOptions() {
    this.chart.setOptions(this.ctx.settings.chartOptions());
  }

  destroy() {
    if (this.abort) this.abort.abort();
    this.chart.destroy();
    this.element.remove();
  }
}

export function mount(root, ctx) {
  loadStyle(new URL("./custom_scalars.css", import.meta.url)).catch(() => {});
  const sections = el("div", { class: "custom-sections" });
  clear(root).append(el("div", { class: "toolbar" }, chartControls(ctx.settings, el)), sections);
  let charts = [];
  let layoutKey = "";
  const lazy = lazyLoader((node) => {
    const c = charts.find((x) => x.element === node);
    if (c) c.load();
  });

  const render = (layout) => {
    for (const c of charts) {
      lazy.unobserve(c.element);
      c.destroy();
    }
    charts = [];
    const parts = layout.categories.map((cat) => {
      const cards = cat.charts.map((spec) => new LayoutChart(spec, ctx));
      charts.push(...cards);
      return el(
        "details",
        { class: "card-section custom-category", open: !cat.closed, dataset: { category: cat.title } },
        el("summary", { class: "section-title" }, el("span", { text: cat.title }), el("span", { class: "muted count", text: String(cards.length) })),
        el("div", { class: "card-grid" }, ...cards.map((c) => c.element)),
      );
    });
    clear(sections).append(...parts);
    if (!parts.length) sections.append(el("div", { class: "empty", text: "No custom scalars layout was logged." }));
    for (const c of charts) lazy.observe(c.element);
    root.dataset.categories = String(layout.categories.length);
    root.dataset.charts = String(charts.length);
  };

  const refresh = async () => {
    const layout = await getJSON("data/plugin/custom_scalars/layout");
    const key = JSON.stringify(layout.categories);
    if (key !== layoutKey) {
      layoutKey = key;
      render(layout);
    } else for (const c of charts) lazy.markDirty(c.element);
    root.dataset.ready = "1";
  };
  const onSettings = (e) => {
    for (const c of charts) {
      if (e.detail.key === "smoothing") lazy.markDirty(c.element);
      else c.applyOptions();
    }
  };
  const onRuns = () => {
    for (const c of charts) lazy.markDirty(c.element); // selection or colours: redraw from the server's answer
  };
  ctx.settings.addEventListener("change", onSettings);
  ctx.runs.addEventListener("change", onRuns);
  refresh().catch(ctx.showError);
  return {
    refresh,
    destroy() {
      ctx.settings.removeEventListener("change", onSettings);
      ctx.runs.removeEventListener("change", onRuns);
      lazy.disconnect();
      for (const c of charts) c.destroy();
      charts = [];
    },
  };
}
