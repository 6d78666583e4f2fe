// A page of one card per (tag, active run), grouped by tag prefix, filtered by a tag regex,
// each card loading when scrolled into view. The per-kind dashboards build on it.
import { getJSON } from "./api.js";
import { el, clear, compileFilter, debounce, groupOf, lazyLoader, store } from "./util.js";
import { safeColor } from "./tooltip.js";
import { maximizeButton } from "./cardtools.js";

/** The common card frame: header with the tag and the run (with its colour), a body and a note. */
export function cardFrame(kind, run, tag, color, info = {}) {
  const body = el("div", { class: "card-body" });
  const note = el("div", { class: "chart-note" });
  const swatch = el("span", { class: "swatch", style: `background:${safeColor(color)}` });
  const title = info.display_name && info.display_name !== tag ? `${info.display_name} (${tag})` : tag;
  const element = el(
    "section",
    { class: `card ${kind}-card`, dataset: { run, tag, kind } },
    el(
      "header",
      { class: "card-header", title: info.description || "" },
      el("h3", { class: "card-title", text: title, title }),
      el("span", { class: "run-tag" }, swatch, el("span", { class: "run-label", text: run, title: run })),
      maximizeButton(),
    ),
    body,
    note,
  );
  return { element, body, note, swatch };
}

export class RunTagGrid {
  /**
   * @param {HTMLElement} root
   * @param {object} ctx the shell's context
   * @param {{storeKey: string, tagsRoute: string, makeCard: Function, controls?: HTMLElement[]}} options
   *   makeCard(run, tag, info) -> {element, load(), destroy?(), recolor?()}
   */
  constructor(root, ctx, options) {
    this.ctx = ctx;
    this.options = options;
    this.tagsAnswer = {};
    this.cards = new Map();
    this.tagFilter = store.get(options.storeKey + ".tagFilter", "");
    this.lazy = lazyLoader((node) => {
      const card = this.byElement.get(node);
      if (card) card.load();
    });
    this.byElement = new WeakMap();
    const input = el("input", {
      type: "search",
      class: "tag-filter",
      placeholder: "Filter tags (regex)",
      "aria-label": "Filter tags (regex)",
      value: this.tagFilter,
      spellcheck: "false",
    });
    input.addEventListener(
      "input",
      debounce(() => {
        input.classList.toggle("invalid", compileFilter(input.value).invalid);
        this.tagFilter = input.value;
        store.set(options.storeKey + ".tagFilter", input.value);
        this.layout();
      }, 150),
    );
    this.container = el("div", { class: "card-sections" });
    clear(root).append(el("div", { class: "toolbar" }, el("div", { class: "controls" }, input, ...(options.controls || []))), this.container);
    this.onRuns = (e) => {
      if (e.detail && e.detail.what === "colors") {
        for (const [key, card] of this.cards) {
          const run = key.split("\u0000")[1];
          if (card.recolor) card.recolor(this.ctx.runs.color(run));
        }
      } else this.layout();
    };
    ctx.runs.addEventListener("change", this.onRuns);
  }

  async refresh() {
    this.tagsAnswer = await getJSON(this.options.tagsRoute);
    for (const card of this.cards.values()) this.lazy.markDirty(card.element);
    this.layout();
  }

  destroy() {
    this.ctx.runs.removeEventListener("change", this.onRuns);
    this.lazy.disconnect();
    for (const card of this.cards.values()) if (card.destroy) card.destroy();
    this.cards.clear();
  }

  layout() {
    const { re } = compileFilter(this.tagFilter);
    const active = this.ctx.runs.active();
    const tags = new Set();
    for (const run of active) for (const tag of Object.keys(this.tagsAnswer[run] || {})) tags.add(tag);
    const groups = new Map();
    const wanted = new Set();
    for (const tag of Array.from(tags).sort()) {
      if (re && !re.test(tag)) continue;
      const g = groupOf(tag);
      if (!groups.has(g)) groups.set(g, []);
      for (const run of active) {
        const info = (this.tagsAnswer[run] || {})[tag];
        if (!info) continue;
        const key = tag + "\u0000" + run;
        wanted.add(key);
        let card = this.cards.get(key);
        if (!card) {
          card = this.options.makeCard(run, tag, info, this.ctx.runs.color(run));
          this.cards.set(key, card);
          this.byElement.set(card.element, card);
          this.lazy.observe(card.element);
        }
        groups.get(g).push(card.element);
      }
    }
    for (const [key, card] of this.cards) {
      if (wanted.has(key)) continue;
      this.lazy.unobserve(card.element);
      if (card.destroy) card.destroy();
      card.element.remove();
      this.cards.delete(key);
    }
    const sections = [];
    for (const [g, elements] of groups) {
      if (!elements.length) continue;
      sections.push(
        el(
          "section",
          { class: "card-section group", dataset: { group: g } },
          el("h2", { class: "section-title" }, el("span", { text: g }), el("span", { class: "muted count", text: String(elements.length) })),
          el("div", { class: "card-grid" }, ...elements),
        ),
      );
    }
    clear(this.container).append(...sections);
    if (!sections.length) {
      const msg = tags.size ? "No tags match the filter." : active.length ? "No data for the selected runs." : "No run selected.";
      this.container.append(el("div", { class: "empty", text: msg }));
    }
  }
}
