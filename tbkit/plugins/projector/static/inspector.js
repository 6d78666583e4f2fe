// The Projector's right panel: the selected point, its metadata and thumbnail, its nearest neighbours,
// and the points matching the search.
import { el, clear, formatCount, formatValue } from "../../util.js";
import { thumbnail } from "./sprites.js";

const MAX_MATCHES_LISTED = 100;

export class Inspector {
  /** `onPick(index)` selects a point; `onNeighbors({k, metric})` asks for neighbours again. */
  constructor({ onPick, onNeighbors, onClear, k, metric }) {
    this.onPick = onPick;
    this.selectedBox = el("div", { class: "pj-selected", dataset: { index: "" } }, el("div", { class: "muted", text: "Click a point, or a search result, to inspect it." }));
    this.kInput = el("input", { type: "number", class: "pj-k", min: "1", max: "1000", value: String(k), "aria-label": "Number of neighbours" });
    this.metric = el(
      "select",
      { class: "pj-metric", "aria-label": "Distance" },
      el("option", { value: "cosine", text: "cosine" }),
      el("option", { value: "euclidean", text: "euclidean" }),
    );
    this.metric.value = metric;
    const changed = () => onNeighbors({ k: Math.max(1, Math.min(1000, Number(this.kInput.value) || 10)), metric: this.metric.value });
    this.kInput.addEventListener("change", changed);
    this.metric.addEventListener("change", changed);
    this.neighborsNote = el("div", { class: "pj-note muted" });
    this.neighbors = el("ol", { class: "pj-neighbors", dataset: { index: "", count: "0" } });
    this.matchesHead = el("div", { class: "pj-head" });
    this.matches = el("ol", { class: "pj-matches" });
    this.clearButton = el("button", { type: "button", class: "small pj-clear", text: "Clear selection", on: { click: onClear } });
    this.element = el(
      "aside",
      { class: "pj-inspector", "aria-label": "Inspector" },
      el("div", { class: "pj-head" }, "Selected point ", this.clearButton),
      this.selectedBox,
      el("div", { class: "pj-head" }, "Nearest neighbours"),
      el("div", { class: "pj-row" }, el("label", { class: "inline" }, "k ", this.kInput), el("label", { class: "inline" }, "distance ", this.metric)),
      this.neighborsNote,
      this.neighbors,
      this.matchesHead,
      this.matches,
    );
  }

  _pointButton(i, ctx, extra) {
    return el(
      "button",
      { type: "button", class: "pj-point", dataset: { index: String(i) }, on: { click: () => this.onPick(i) } },
      ctx.sprite ? thumbnail(ctx.sprite, i, 28) : null,
      el("span", { class: "pj-point-index muted num", text: `#${i}` }),
      el("span", { class: "pj-point-label", text: ctx.label(i) }),
      extra || null,
    );
  }

  /** Show point `i` (or nothing when null): its label, metadata and thumbnail. */
  showSelected(i, ctx) {
    this.selectedBox.dataset.index = i === null ? "" : String(i);
    this.clearButton.hidden = i === null;
    if (i === null) {
      clear(this.selectedBox).append(el("div", { class: "muted", text: "Click a point, or a search result, to inspect it." }));
      clear(this.neighbors);
      this.neighbors.dataset.index = "";
      this.neighbors.dataset.count = "0";
      this.neighborsNote.textContent = "";
      return;
    }
    const rows = ctx.columns.map((name, c) => el("tr", {}, el("th", { text: name }), el("td", { text: ctx.values[c][i] })));
    const parts = [el("div", { class: "pj-selected-title" }, el("strong", { text: `#${i}` }), " ", el("span", { text: ctx.label(i) }))];
    if (ctx.sprite) parts.push(thumbnail(ctx.sprite, i, 72));
    if (rows.length) parts.push(el("table", { class: "pj-meta" }, el("tbody", {}, ...rows)));
    clear(this.selectedBox).append(...parts);
    this.neighborsNote.textContent = "Loading…";
  }

  /** List the neighbours of `index`: [{index, distance}], nearest first; `missing`: how many are not drawn. */
  showNeighbors(index, found, metric, ctx, missing) {
    clear(this.neighbors).append(
      ...found.map((nb, rank) =>
        el(
          "li",
          { class: "pj-neighbor", dataset: { index: String(nb.index), distance: String(nb.distance), rank: String(rank) } },
          this._pointButton(nb.index, ctx, el("span", { class: "pj-distance num", text: formatValue(nb.distance) })),
        ),
      ),
    );
    this.neighbors.dataset.index = String(index);
    this.neighbors.dataset.count = String(found.length);
    this.neighbors.dataset.metric = metric;
    this.neighborsNote.textContent =
      `${metric} distance in all dimensions` + (missing ? `; ${formatCount(missing)} not in the layout's sample` : "");
  }

  neighborsFailed(message) {
    this.neighborsNote.textContent = "Could not load: " + message;
  }

  /** The points matching the search (null: no search). */
  showMatches(matches, ctx) {
    clear(this.matches);
    if (matches === null) {
      this.matchesHead.textContent = "";
      return;
    }
    const list = Array.from(matches);
    this.matchesHead.textContent =
      `${formatCount(list.length)} matching point${list.length === 1 ? "" : "s"}` +
      (list.length > MAX_MATCHES_LISTED ? ` (first ${MAX_MATCHES_LISTED} listed)` : "");
    this.matches.append(...list.slice(0, MAX_MATCHES_LISTED).map((i) => el("li", { class: "pj-match" }, this._pointButton(i, ctx))));
  }
}
