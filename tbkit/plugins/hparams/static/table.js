// The sessions table: one row per session (run), hyperparameter columns, metric columns
// with last/min/max, status; sortable headers; pages of rows (a thousand rows of dozens of
// cells cost the browser a long layout); rows dimmed when the run selector deselects their
// run; a click opens the session.
import { el, clear, formatCount, formatValue, store } from "../../util.js";
import { cellValue } from "./model.js";

const PAGE_SIZES = [25, 100, 500];

function cellText(v) {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return formatValue(v);
  return String(v);
}

export class SessionTable {
  /**
   * @param {HTMLElement} container
   * @param {{onOpen: Function, onSort: Function, color: Function}} hooks
   */
  constructor(container, { onOpen, onSort, color }) {
    this.onOpen = onOpen;
    this.onSort = onSort;
    this.color = color;
    this.rows = new Map(); // session name -> tr, of the page shown
    this.byName = new Map();
    this.page = 0;
    this.pageSize = PAGE_SIZES.includes(store.get("hparams.pageSize", 100)) ? store.get("hparams.pageSize", 100) : 100;
    this.table = el("table", { class: "hparams-table", dataset: { rows: "0", total: "0" } });
    this.wrap = el("div", { class: "hparams-table-wrap" }, this.table);
    this.prev = el("button", { type: "button", class: "small page-prev", text: "‹", "aria-label": "Previous page" });
    this.next = el("button", { type: "button", class: "small page-next", text: "›", "aria-label": "Next page" });
    this.range = el("span", { class: "muted num page-range" });
    this.size = el(
      "select",
      { class: "page-size", "aria-label": "Rows per page" },
      ...PAGE_SIZES.map((n) => el("option", { value: String(n), text: `${n} rows`, selected: n === this.pageSize })),
    );
    this.pager = el("div", { class: "table-pager" }, this.prev, this.range, this.next, this.size);
    container.append(this.wrap, this.pager);
    this.prev.addEventListener("click", () => this._goto(this.page - 1));
    this.next.addEventListener("click", () => this._goto(this.page + 1));
    this.size.addEventListener("change", () => {
      this.pageSize = Number(this.size.value);
      store.set("hparams.pageSize", this.pageSize);
      this._goto(0);
    });
    this.table.addEventListener("click", (e) => this._click(e));
    this.table.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.target.matches("tr[data-run]")) this._open(e.target);
    });
  }

  _click(e) {
    const th = e.target.closest("th[data-sort-key]");
    if (th) {
      this.onSort(th.dataset.sortKey, th.dataset.sortAgg || "last");
      return;
    }
    const tr = e.target.closest("tr[data-run]");
    if (tr) this._open(tr);
  }

  _open(tr) {
    const s = this.byName.get(tr.dataset.run);
    if (s) this.onOpen(s);
  }

  _goto(page) {
    this.page = page;
    if (this.last) this.render(this.last.sessions, this.last.view, true);
  }

  /**
   * Show `sessions` (filtered and sorted) a page at a time. `view`: {hparams, metrics (shown
   * columns), aggs (shown metric values), sort, selected(run), open (session name)}.
   * The first page unless `keepPage`.
   */
  render(sessions, view, keepPage = false) {
    this.last = { sessions, view };
    const pages = Math.max(1, Math.ceil(sessions.length / this.pageSize));
    this.page = keepPage ? Math.min(Math.max(0, this.page), pages - 1) : 0;
    const first = this.page * this.pageSize;
    const slice = sessions.slice(first, first + this.pageSize);
    this.byName = new Map(slice.map((s) => [s.name, s]));
    const { hparams, metrics, aggs, sort } = view;
    const sortable = (text, key, agg, attrs = {}) => {
      const active = sort && sort.key === key && (!agg || sort.agg === agg);
      return el(
        "th",
        {
          ...attrs,
          class: "sortable" + (active ? " sorted" : ""),
          dataset: { sortKey: key, ...(agg ? { sortAgg: agg } : {}) },
          "aria-sort": active ? (sort.desc ? "descending" : "ascending") : "none",
          title: "Sort by " + text,
        },
        el("span", { text }),
        el("span", { class: "sort-mark", text: active ? (sort.desc ? " ▼" : " ▲") : "" }),
      );
    };
    const two = metrics.length > 0 && aggs.length > 0;
    const span = two ? 2 : 1;
    const head1 = el(
      "tr",
      {},
      sortable("Session", "name", null, { rowspan: span }),
      sortable("Status", "status", null, { rowspan: span }),
      ...hparams.map((c) => sortable(c.label, c.key, null, { rowspan: span, class: "hp" })),
      ...(two ? metrics.map((c) => el("th", { colspan: aggs.length, class: "metric-group", text: c.label, title: c.name })) : []),
    );
    const head2 = two ? el("tr", {}, ...metrics.flatMap((c) => aggs.map((a) => sortable(a, c.key, a)))) : null;
    const body = el("tbody");
    this.rows.clear();
    for (const s of slice) {
      const on = view.selected(s.run);
      const tr = el(
        "tr",
        {
          tabindex: "0",
          class: (on ? "" : "deselected") + (s.name === view.open ? " open" : ""),
          dataset: { run: s.name, status: s.status, selected: on ? "1" : "0" },
        },
        el(
          "td",
          { class: "session-name", title: s.name },
          el("span", { class: "swatch", style: `background:${this.color(s.run)}` }),
          el("span", { text: s.name }),
        ),
        el("td", { class: "status status-" + s.status, text: s.status }),
        ...hparams.map((c) => {
          const v = cellValue(c, s);
          return el("td", { class: (typeof v === "number" ? "num" : "") + (v === null ? " missing" : ""), text: cellText(v) });
        }),
        ...metrics.flatMap((c) =>
          aggs.map((a) => {
            const v = cellValue(c, s, a);
            return el("td", { class: "num" + (v === null ? " missing" : ""), text: cellText(v) });
          }),
        ),
      );
      this.rows.set(s.name, tr);
      body.append(tr);
    }
    clear(this.table).append(el("thead", {}, head1, head2), body);
    this.table.dataset.rows = String(slice.length);
    this.table.dataset.total = String(sessions.length);
    this.table.dataset.page = String(this.page);
    this.range.textContent = sessions.length
      ? `${formatCount(first + 1)}–${formatCount(first + slice.length)} of ${formatCount(sessions.length)}`
      : "no sessions";
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= pages - 1;
    this.pager.hidden = sessions.length <= PAGE_SIZES[0];
  }

  /** Dim the rows whose run `selected(run)` rejects; recolour the swatches. */
  reflectSelection(selected) {
    for (const [name, tr] of this.rows) {
      const s = this.byName.get(name);
      const on = selected(s.run);
      tr.classList.toggle("deselected", !on);
      tr.dataset.selected = on ? "1" : "0";
      tr.firstChild.firstChild.style.background = this.color(s.run);
    }
  }

  /** Mark the open session's row. */
  markOpen(name) {
    for (const [n, tr] of this.rows) tr.classList.toggle("open", n === name);
  }
}
