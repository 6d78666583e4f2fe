// Time-series cards for histograms (Canvas2D ridgelines) and images (step slider), one per tag.
import { getJSON, url } from "./api.js";
import { drawOffsetHistograms } from "./histdraw.js";
import { el, clear } from "./util.js";
import { safeColor } from "./tooltip.js";

const MAX_RUNS = 8;

class TagCard {
  constructor(tag, kind, ctx, tagRuns, headerExtras) {
    this.tag = tag;
    this.ctx = ctx;
    this.tagRuns = tagRuns;
    this.body = el("div", { class: "card-body" });
    this.note = el("div", { class: "chart-note" });
    this.element = el(
      "section",
      { class: `card ${kind}-card`, dataset: { tag, kind } },
      el(
        "header",
        { class: "card-header" },
        el("h3", { class: "card-title", text: tag, title: tag }),
        el("span", { class: "badge", text: kind === "histograms" ? "histogram" : "image" }),
        ...headerExtras,
      ),
      this.body,
      this.note,
    );
    this.generation = 0;
  }

  runs() {
    const have = new Set(this.tagRuns());
    return this.ctx.runs.active().filter((r) => have.has(r));
  }

  applyOptions() {}

  recolor() {
    this.load();
  }

  destroy() {
    this.generation++;
    if (this.resize) this.resize.disconnect();
    this.element.remove();
  }

  moreNote(runs) {
    this.note.textContent = runs.length > MAX_RUNS ? `${MAX_RUNS} of ${runs.length} runs shown` : "";
  }
}

export class HistogramCard extends TagCard {
  constructor(tag, ctx, tagRuns, headerExtras = []) {
    super(tag, "histograms", ctx, tagRuns, headerExtras);
    this.cache = new Map();
    this.resize = new ResizeObserver(() => this.redraw());
    this.resize.observe(this.body);
    this.onTheme = () => this.redraw();
    window.addEventListener("tbkit-theme", this.onTheme);
  }

  destroy() {
    window.removeEventListener("tbkit-theme", this.onTheme);
    super.destroy();
  }

  async load() {
    const gen = ++this.generation;
    const runs = this.runs();
    this.moreNote(runs);
    const shown = runs.slice(0, MAX_RUNS);
    try {
      const results = await Promise.all(
        shown.map((run) => getJSON("data/plugin/histograms/histograms", { run, tag: this.tag, points: 30 })),
      );
      if (gen !== this.generation) return;
      this.cache = new Map(shown.map((r, i) => [r, results[i]]));
      clear(this.body);
      for (const run of shown) {
        const canvas = el("canvas", { class: "hist-canvas", dataset: { run } });
        this.body.append(el("div", { class: "hist-row" }, el("div", { class: "run-label", text: run, title: run }), canvas));
      }
      if (!shown.length) this.body.append(el("div", { class: "muted", text: "No selected run has this tag." }));
      this.redraw();
      this.element.dataset.ready = "1";
    } catch (err) {
      this.note.textContent = "Could not load: " + err.message;
    }
  }

  redraw() {
    for (const canvas of this.body.querySelectorAll("canvas")) {
      const run = canvas.dataset.run;
      drawOffsetHistograms(canvas, this.cache.get(run) || [], this.ctx.runs.color(run));
    }
  }

  recolor() {
    this.redraw();
  }
}

export class ImageCard extends TagCard {
  constructor(tag, ctx, tagRuns, headerExtras = []) {
    super(tag, "images", ctx, tagRuns, headerExtras);
  }

  async load() {
    const gen = ++this.generation;
    const runs = this.runs();
    this.moreNote(runs);
    const shown = runs.slice(0, MAX_RUNS);
    try {
      const results = await Promise.all(
        shown.map((run) => getJSON("data/plugin/images/images", { run, tag: this.tag, sample: 0 })),
      );
      if (gen !== this.generation) return;
      clear(this.body);
      shown.forEach((run, i) => this.body.append(imageStepper(run, results[i], this.ctx.runs.color(run))));
      if (!shown.length) this.body.append(el("div", { class: "muted", text: "No selected run has this tag." }));
      this.element.dataset.ready = "1";
    } catch (err) {
      this.note.textContent = "Could not load: " + err.message;
    }
  }
}

/** A run's images of one tag with a step slider (latest step first shown). */
export function imageStepper(run, entries, color, imgClass = "ts-image") {
  const img = el("img", { class: imgClass, alt: `${run} image`, decoding: "async" });
  const label = el("span", { class: "step-label num" });
  const slider = el("input", { type: "range", min: "0", max: String(Math.max(0, entries.length - 1)), step: "1", "aria-label": "step" });
  const show = (i) => {
    const e = entries[i];
    if (!e) return;
    img.src = url("data/plugin/images/individualImage", { blob_key: e.blob_key });
    img.width = e.width;
    img.height = e.height;
    label.textContent = `step ${e.step}`;
    label.title = label.textContent; // the whole label when the card is too narrow for it
  };
  slider.value = String(Math.max(0, entries.length - 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  show(entries.length - 1);
  return el(
    "figure",
    { class: "image-run", dataset: { run } },
    el("figcaption", {}, el("span", { class: "swatch", style: `background:${safeColor(color)}` }), el("span", { class: "run-label", text: run, title: run })),
    entries.length ? img : el("div", { class: "muted", text: "No images." }),
    el("div", { class: "step-row" }, entries.length > 1 ? slider : null, label),
  );
}
