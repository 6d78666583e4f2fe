// A grid of tag cards that never holds every tag: the server searches and pages the cards
// (data/plugin/timeseries/cards), the page keeps one placeholder block per page of whole grid
// rows, and only the blocks on or near the screen hold cards. A block scrolled far away gives
// its cards back (keeping its height, so the page does not jump); each card fetches its data
// when it scrolls into view. Pinned cards come first (pinning: true), then one section per tag group.
import { getJSON, postJSON, url } from "../../api.js";
import { maximizeButton } from "../../cardtools.js";
import { ScalarCard } from "../../scalarcard.js";
import { HistogramCard, ImageCard } from "../../mediacards.js";
import { el, clear, debounce, lazyLoader, store } from "../../util.js";

const CARD = { scalars: ScalarCard, histograms: HistogramCard, images: ImageCard };
const ROUTE = "data/plugin/timeseries/cards";
const ROWS = 3; // grid rows a page
const ROW_GUESS = 290; // px a row of cards takes before one has been measured
const NEAR = "100% 0px"; // blocks within a screen of the view are filled …
const FAR = "250% 0px"; // … and emptied once more than this far away

/** The nearest scrolling ancestor of `node` (the root of the observers), or null (the viewport). */
function scroller(node) {
  for (let n = node.parentElement; n; n = n.parentElement) {
    const o = getComputedStyle(n).overflowY;
    if (o === "auto" || o === "scroll") return n;
  }
  return null;
}

export const keyOf = (kind, tag) => kind + "\u0000" + tag;

export class PagedCardGrid {
  /**
   * @param {HTMLElement} root
   * @param {object} ctx the shell's context {runs, settings, showError}
   * @param {{storeKey: string, pinning?: boolean, kind?: string}} options `kind`: only that kind (no kind filter)
   */
  constructor(root, ctx, options) {
    this.root = root;
    this.ctx = ctx;
    this.options = options;
    this.pinned = new Set(options.pinning ? store.get(options.storeKey + ".pinned", []) : []);
    this.tagFilter = store.get(options.storeKey + ".tagFilter", "");
    this.kind = options.kind || store.get(options.storeKey + ".kind", "all");
    this.blocks = []; // {page, element, data, cards: Map key -> entry, filled, height}
    this.live = new Map(); // key -> entry of every card in the DOM
    this.byElement = new WeakMap();
    this.generation = 0; // bumped by every new search: late answers of an older one are dropped
    this.columns = 0;
    this.rowHeight = ROW_GUESS;
    this.container = el("div", { class: "card-sections paged" });
    this.status = el("div", { class: "paged-status muted" });
    root.append(this.container, this.status);
    this.lazy = lazyLoader((node) => {
      const entry = this.byElement.get(node);
      if (entry) entry.card.load();
    });
    this.onSettings = (e) => {
      for (const { card, kind } of this.live.values()) {
        if (kind !== "scalars") continue;
        if (e.detail.key === "smoothing" || e.detail.key.startsWith("group")) this.lazy.markDirty(card.element);
        else card.applyOptions();
      }
    };
    this.onRuns = (e) => {
      const what = e.detail && e.detail.what;
      for (const { card } of this.live.values()) {
        if (what === "colors") card.recolor();
        else this.lazy.markDirty(card.element);
      }
    };
    ctx.settings.addEventListener("change", this.onSettings);
    ctx.runs.addEventListener("change", this.onRuns);
    this.onResize = debounce(() => {
      if (this.container.isConnected && this.measureColumns() !== this.columns) this.search();
    }, 200);
    window.addEventListener("resize", this.onResize);
  }

  destroy() {
    this.generation++;
    this.ctx.settings.removeEventListener("change", this.onSettings);
    this.ctx.runs.removeEventListener("change", this.onRuns);
    window.removeEventListener("resize", this.onResize);
    this.disconnect();
    this.lazy.disconnect();
  }

  disconnect() {
    if (this.near) this.near.disconnect();
    if (this.far) this.far.disconnect();
    for (const block of this.blocks) this.empty(block);
  }

  setFilter(tagFilter, kind) {
    this.tagFilter = tagFilter;
    store.set(this.options.storeKey + ".tagFilter", tagFilter);
    if (!this.options.kind) {
      this.kind = kind;
      store.set(this.options.storeKey + ".kind", kind);
    }
    return this.search();
  }

  /** How many cards a grid row holds at the current width (what the CSS grid makes of it). */
  measureColumns() {
    const probe = el("div", { class: "card-grid", style: "visibility:hidden;height:0" });
    this.container.append(probe);
    const tracks = getComputedStyle(probe).gridTemplateColumns.split(" ").filter((t) => t && t !== "none");
    probe.remove();
    return Math.max(1, tracks.length);
  }

  /** The request for one page of the current search. */
  async fetchPage(page) {
    const params = { regex: this.tagFilter || undefined, kind: this.kind, columns: this.columns, rows: ROWS, page };
    const pinned = Array.from(this.pinned, (k) => k.split("\u0000"));
    if (pinned.length) params.pinned = JSON.stringify(pinned);
    if (url(ROUTE, params).length < 1800) return getJSON(ROUTE, params);
    return postJSON(ROUTE, { ...params, pinned });
  }

  /** A new search (filter, kind, pins or width changed): back to the top, blocks rebuilt. */
  async search() {
    const generation = ++this.generation;
    this.columns = this.measureColumns();
    let first;
    try {
      first = await this.fetchPage(0);
    } catch (err) {
      if (generation !== this.generation) return;
      this.disconnect();
      this.near = this.far = null; // the next refresh searches again
      this.blocks = [];
      clear(this.container);
      this.showStatus(err);
      return;
    }
    if (generation !== this.generation) return;
    this.disconnect();
    this.blocks = [];
    clear(this.container);
    const scroll = scroller(this.root);
    const observe = (margin, fn) => new IntersectionObserver((entries) => entries.forEach(fn), { root: scroll, rootMargin: margin });
    this.near = observe(NEAR, (e) => e.isIntersecting && this.fill(this.blockOf(e.target)));
    this.far = observe(FAR, (e) => !e.isIntersecting && this.empty(this.blockOf(e.target)));
    this.resize(first.pages);
    if (this.blocks.length) this.blocks[0].data = first;
    this.showStatus(null, first);
    if (scroll) scroll.scrollTop = 0;
    // The first block is on screen at the top: its cards now, not a frame later when the
    // observer reports it (it finds the block filled then).
    if (this.blocks.length) this.fill(this.blocks[0]);
  }

  blockOf(node) {
    return this.blocks[Number(node.dataset.page)];
  }

  /** Have `pages` blocks (new ones empty, at their estimated height). */
  resize(pages) {
    while (this.blocks.length > pages) {
      const block = this.blocks.pop();
      this.empty(block);
      this.near.unobserve(block.element);
      this.far.unobserve(block.element);
      block.element.remove();
    }
    const added = [];
    for (let page = this.blocks.length; page < pages; page++) {
      const element = el("div", { class: "paged-block", dataset: { page: String(page) } });
      element.style.height = this.rowHeight * ROWS + "px";
      const block = { page, element, data: null, cards: new Map(), filled: false, height: 0 };
      this.blocks.push(block);
      added.push(element);
    }
    this.container.append(...added);
    for (const element of added) {
      this.near.observe(element);
      this.far.observe(element);
    }
  }

  showStatus(err, answer) {
    clear(this.status);
    if (err) {
      this.status.append(el("div", { class: "empty error", text: "Could not list the cards: " + (err.message || err) }));
      return;
    }
    if (!answer.total) {
      const text = answer.unfiltered ? "No cards match the filter." : "No data yet: the page updates as runs write.";
      this.status.append(el("div", { class: "empty", text }));
    }
    this.container.dataset.total = String(answer.total);
    this.container.dataset.pages = String(answer.pages);
  }

  /** Put a block's cards in the DOM (fetching its page first when needed). */
  async fill(block) {
    if (!block || block.filled || block.loading) return;
    const generation = this.generation;
    if (!block.data) {
      block.loading = true;
      try {
        block.data = await this.fetchPage(block.page);
      } catch (err) {
        this.ctx.showError(err);
        return;
      } finally {
        block.loading = false;
      }
      if (generation !== this.generation) return;
    }
    if (block.filled) return;
    block.filled = true;
    this.render(block);
  }

  render(block) {
    const { cards, sections } = block.data;
    const bySection = new Map(sections.map((s) => [s.index, { ...s, entries: [] }]));
    for (const c of cards) {
      const key = keyOf(c.kind, c.tag);
      let entry = block.cards.get(key);
      if (!entry) {
        entry = { kind: c.kind, tag: c.tag, runs: c.runs };
        const extras = this.options.pinning ? [this.pinButton(key)] : [];
        if (c.kind !== "scalars") extras.push(maximizeButton()); // a scalar card has its own, after its tools
        entry.card = new CARD[c.kind](c.tag, this.ctx, () => entry.runs, extras);
        block.cards.set(key, entry);
        this.live.set(key, entry);
        this.byElement.set(entry.card.element, entry);
        this.lazy.observe(entry.card.element);
      }
      bySection.get(c.section).entries.push(entry);
    }
    const parts = [];
    for (const s of bySection.values()) {
      const cls = "card-section " + (s.pinned ? "pinned" : "group") + (s.first ? "" : " continued");
      const title = s.first
        ? el("h2", { class: "section-title" }, el("span", { text: s.name }), el("span", { class: "muted count", text: String(s.count) }))
        : null;
      parts.push(el("section", { class: cls, dataset: { group: s.name } }, title, el("div", { class: "card-grid" }, ...s.entries.map((e) => e.card.element))));
    }
    clear(block.element).append(...parts);
    block.element.style.height = "";
    const height = block.element.offsetHeight;
    if (block.data.rows && height) this.rowHeight = Math.max(100, Math.round(height / block.data.rows));
  }

  /** Give a block's cards back, keeping its height. */
  empty(block) {
    if (!block || !block.filled) return;
    block.element.style.height = block.element.offsetHeight + "px";
    for (const [key, entry] of block.cards) {
      this.lazy.unobserve(entry.card.element);
      entry.card.destroy();
      if (this.live.get(key) === entry) this.live.delete(key);
    }
    block.cards.clear();
    clear(block.element);
    block.filled = false;
  }

  /** New data on the server: the page count and the filled blocks' cards again, in place. */
  async refresh() {
    if (!this.near) return this.search();
    const generation = this.generation;
    const first = await this.fetchPage(0);
    if (generation !== this.generation) return;
    this.resize(first.pages);
    this.showStatus(null, first);
    for (const block of this.blocks) {
      if (!block.filled) {
        block.data = block.page === 0 ? first : null;
        continue;
      }
      const data = block.page === 0 ? first : await this.fetchPage(block.page);
      if (generation !== this.generation) return;
      const same = data.cards.length === block.cards.size && data.cards.every((c) => block.cards.has(keyOf(c.kind, c.tag)));
      block.data = data;
      if (same) {
        for (const c of data.cards) {
          const entry = block.cards.get(keyOf(c.kind, c.tag));
          entry.runs = c.runs;
          this.lazy.markDirty(entry.card.element);
        }
        continue;
      }
      this.empty(block);
      block.filled = true;
      this.render(block);
    }
  }

  pinButton(key) {
    const btn = el("button", { type: "button", class: "pin icon", "aria-label": "Pin card", title: "Pin to the top" });
    const on = this.pinned.has(key);
    btn.textContent = on ? "★" : "☆";
    btn.setAttribute("aria-pressed", on ? "true" : "false");
    btn.addEventListener("click", () => {
      if (this.pinned.has(key)) this.pinned.delete(key);
      else this.pinned.add(key);
      store.set(this.options.storeKey + ".pinned", Array.from(this.pinned));
      this.search();
    });
    return btn;
  }
}
