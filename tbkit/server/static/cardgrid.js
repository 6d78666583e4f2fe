// A page of tag cards: grouped by tag prefix, filtered by a tag regex and a kind, with an
// optional pinned section; each card loads only when scrolled into view.
import { ScalarCard } from "./scalarcard.js";
import { HistogramCard, ImageCard } from "./mediacards.js";
import { el, clear, compileFilter, groupOf, lazyLoader, store } from "./util.js";

const CARD = { scalars: ScalarCard, histograms: HistogramCard, images: ImageCard };
const KIND_ORDER = { scalars: 0, histograms: 1, images: 2 };

export class CardGrid {
  /**
   * @param {HTMLElement} root
   * @param {object} ctx {runs, settings}
   * @param {{pinning?: boolean, storeKey: string}} options
   */
  constructor(root, ctx, options) {
    this.root = root;
    this.ctx = ctx;
    this.options = options;
    this.cards = new Map(); // key -> {card, kind, tag, runs: string[]}
    this.pinned = new Set(options.pinning ? store.get(options.storeKey + ".pinned", []) : []);
    this.tagFilter = store.get(options.storeKey + ".tagFilter", "");
    this.kind = store.get(options.storeKey + ".kind", "all");
    this.lazy = lazyLoader((node) => {
      const entry = this.byElement.get(node);
      if (entry) entry.card.load();
    });
    this.byElement = new WeakMap();
    this.onSettings = (e) => {
      for (const { card, kind } of this.cards.values()) {
        if (kind !== "scalars") continue;
        if (e.detail.key === "smoothing" || e.detail.key.startsWith("group")) this.lazy.markDirty(card.element);
        else card.applyOptions();
      }
    };
    this.onRuns = (e) => {
      const what = e.detail && e.detail.what;
      for (const { card } of this.cards.values()) {
        if (what === "colors") card.recolor();
        else this.lazy.markDirty(card.element);
      }
    };
    ctx.settings.addEventListener("change", this.onSettings);
    ctx.runs.addEventListener("change", this.onRuns);
    this.container = el("div", { class: "card-sections" });
    root.append(this.container);
  }

  destroy() {
    this.ctx.settings.removeEventListener("change", this.onSettings);
    this.ctx.runs.removeEventListener("change", this.onRuns);
    this.lazy.disconnect();
    for (const { card } of this.cards.values()) card.destroy();
    this.cards.clear();
  }

  /** Replace the tag list: entries [{kind, tag, runs}]. Existing cards are kept and marked stale. */
  setTags(entries) {
    const seen = new Set();
    for (const { kind, tag, runs } of entries) {
      const key = kind + "\u0000" + tag;
      seen.add(key);
      const old = this.cards.get(key);
      if (old) {
        old.runs = runs;
        this.lazy.markDirty(old.card.element);
        continue;
      }
      const entry = { kind, tag, runs };
      const extras = this.options.pinning ? [this._pinButton(key)] : [];
      entry.card = new CARD[kind](tag, this.ctx, () => entry.runs, extras);
      this.cards.set(key, entry);
      this.byElement.set(entry.card.element, entry);
      this.lazy.observe(entry.card.element);
    }
    for (const [key, entry] of this.cards) {
      if (seen.has(key)) continue;
      this.lazy.unobserve(entry.card.element);
      entry.card.destroy();
      this.cards.delete(key);
    }
    this.layout();
  }

  tags() {
    return Array.from(new Set(Array.from(this.cards.values(), (c) => c.tag))).sort();
  }

  setFilter(tagFilter, kind) {
    this.tagFilter = tagFilter;
    this.kind = kind;
    store.set(this.options.storeKey + ".tagFilter", tagFilter);
    store.set(this.options.storeKey + ".kind", kind);
    this.layout();
  }

  visibleEntries() {
    const { re } = compileFilter(this.tagFilter);
    return Array.from(this.cards.entries()).filter(
      ([, c]) => (this.kind === "all" || c.kind === this.kind) && (!re || re.test(c.tag)),
    );
  }

  _pinButton(key) {
    const btn = el("button", { type: "button", class: "pin icon", "aria-label": "Pin card", title: "Pin to the top" });
    const sync = () => {
      const on = this.pinned.has(key);
      btn.textContent = on ? "★" : "☆";
      btn.setAttribute("aria-pressed", on ? "true" : "false");
    };
    sync();
    btn.addEventListener("click", () => {
      if (this.pinned.has(key)) this.pinned.delete(key);
      else this.pinned.add(key);
      store.set(this.options.storeKey + ".pinned", Array.from(this.pinned));
      sync();
      this.layout();
    });
    return btn;
  }

  /** Put every card matching the filters in its section (pinned first, then by tag group). */
  layout() {
    const visible = this.visibleEntries().sort(
      ([, a], [, b]) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : KIND_ORDER[a.kind] - KIND_ORDER[b.kind]),
    );
    const pinned = [];
    const groups = new Map();
    for (const [key, entry] of visible) {
      if (this.pinned.has(key)) pinned.push(entry);
      else {
        const g = groupOf(entry.tag);
        if (!groups.has(g)) groups.set(g, []);
        groups.get(g).push(entry);
      }
    }
    const sections = [];
    const section = (title, entries, cls) =>
      el(
        "section",
        { class: "card-section " + cls, dataset: { group: title } },
        el("h2", { class: "section-title" }, el("span", { text: title }), el("span", { class: "muted count", text: String(entries.length) })),
        el("div", { class: "card-grid" }, ...entries.map((e) => e.card.element)),
      );
    if (pinned.length) sections.push(section("Pinned", pinned, "pinned"));
    // Groups with scalars first (the quickest to read), then by name.
    const rank = (entries) => Math.min(...entries.map((e) => KIND_ORDER[e.kind]));
    const ordered = Array.from(groups).sort(([ga, a], [gb, b]) => rank(a) - rank(b) || (ga < gb ? -1 : ga > gb ? 1 : 0));
    for (const [g, entries] of ordered) sections.push(section(g, entries, "group"));
    clear(this.container).append(...sections);
    if (!visible.length) {
      this.container.append(
        el("div", { class: "empty", text: this.cards.size ? "No cards match the filter." : "No data yet: the page updates as runs write." }),
      );
    }
  }
}
