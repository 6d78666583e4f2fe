// The sessions table: one row per session (run), hyperparameter columns, metric columns
// with last/min/max, status; sortable headers; rows hidden by the filters, dimmed when the
// run selector deselects their run; a click opens the session.
import { el, clear, formatValue } from "../../util.js";
import { cellValue } from "./model.js";

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
    this.rows = new Map(); // session name -> tr
    this.table = el("table", { class: "hparams-table", dataset: { rows: "0", total: "0" } });
    this.wrap = el("div", { class: "hparams-table-wrap" }, this.table);
    container.append(this.wrap);
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

  /**
   * Build the table. `view`: {hparams, metrics (shown columns), aggs (shown metric values), sort}.
   * Rows come in `sessions` order.
   */
  render(sessions, view) {
    this.byName = new Map(sessions.map((s) => [s.name, s]));
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
    const head1 = el(
      "tr",
      {},
      sortable("Session", "name", null, { rowspan: two ? 2 : 1 }),
      sortable("Status", "status", null, { rowspan: two ? 2 : 1 }),
      ...hparams.map((c) => sortable(c.label, c.key, null, { rowspan: two ? 2 : 1, class: "hp" })),
      ...(two ? metrics.map((c) => el("th", { colspan: aggs.length, class: "metric-group", text: c.label, title: c.name })) : []),
    );
    const head2 = two ? el("tr", {}, ...metrics.flatMap((c) => aggs.map((a) => sortable(a, c.key, a)))) : null;
    const body = el("tbody");
    this.rows.clear();
    for (const s of sessions) {
      const tr = el(
        "tr",
        { tabindex: "0", dataset: { run: s.name, status: s.status } },
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
    this.body = body;
    this.table.dataset.total = String(sessions.length);
  }

  /** Show the rows `shown(session)` accepts; returns how many are shown. */
  filter(shown) {
    let n = 0;
    for (const [name, tr] of this.rows) {
      const ok = shown(this.byName.get(name));
      tr.hidden = !ok;
      if (ok) n++;
    }
    this.table.dataset.rows = String(n);
    return n;
  }

  /** Put the rows in the order of `sessions`. */
  order(sessions) {
    const frag = document.createDocumentFragment();
    for (const s of sessions) {
      const tr = this.rows.get(s.name);
      if (tr) frag.append(tr);
    }
    this.body.append(frag);
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
