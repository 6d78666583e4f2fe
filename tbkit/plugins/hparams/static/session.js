// The session panel: a session's hyperparameters, status and one scalar chart per metric
// (the first-party ScalarCard, showing the run holding the metric's series).
import { ScalarCard } from "../../scalarcard.js";
import { el, clear, formatValue } from "../../util.js";
import { valueText } from "./model.js";

/** A run store showing only `runs`, with the shared colours (what a ScalarCard reads). */
function onlyRuns(ctx, runs) {
  return {
    runs: {
      active: () => runs,
      color: (r) => ctx.runs.color(r),
      startTime: (r) => ctx.runs.startTime(r),
    },
    settings: ctx.settings,
  };
}

export class SessionPanel {
  constructor(container, ctx, { onClose }) {
    this.ctx = ctx;
    this.cards = [];
    this.title = el("h3", { class: "session-title" });
    this.info = el("div", { class: "session-info" });
    this.body = el("div", { class: "session-cards" });
    const close = el("button", { type: "button", class: "icon session-close", "aria-label": "Close session", title: "Close", text: "✕" });
    close.addEventListener("click", () => onClose());
    this.element = el(
      "aside",
      { class: "hparams-session", hidden: true, "aria-label": "Session" },
      el("header", { class: "session-head" }, this.title, close),
      this.info,
      this.body,
    );
    container.append(this.element);
    this.onSettings = (e) => this.cards.forEach((c) => (e.detail.key === "smoothing" ? c.load() : c.applyOptions()));
    ctx.settings.addEventListener("change", this.onSettings);
  }

  /** Show `session` with its metrics' curves (`metrics`: the experiment's metric columns). */
  open(session, metrics) {
    this.closeCards();
    this.session = session.name;
    this.element.hidden = false;
    this.element.dataset.run = session.name;
    this.title.textContent = session.name;
    this.title.title = session.name;
    const rows = Object.entries(session.hparams).map(([k, v]) =>
      el("tr", {}, el("th", { text: k }), el("td", { text: typeof v === "number" ? formatValue(v) : valueText(v) })),
    );
    rows.unshift(el("tr", {}, el("th", { text: "status" }), el("td", { text: session.status })));
    clear(this.info).append(el("table", { class: "session-hparams" }, el("tbody", {}, ...rows)));
    const cards = [];
    for (const m of metrics) {
      const entry = session.metrics[m.name];
      if (!entry) continue;
      const card = new ScalarCard(entry.tag, onlyRuns(this.ctx, [entry.run]), () => [entry.run]);
      card.element.dataset.metric = m.name;
      card.element.querySelector(".card-title").textContent = m.label;
      cards.push(card);
    }
    this.cards = cards;
    clear(this.body).append(...cards.map((c) => c.element));
    if (!cards.length) this.body.append(el("div", { class: "muted", text: "No metric values in this session." }));
    for (const c of cards) c.load();
  }

  /** Recolour the open curves (the run colours changed). */
  recolor() {
    this.cards.forEach((c) => c.recolor());
  }

  closeCards() {
    this.cards.forEach((c) => c.destroy());
    this.cards = [];
  }

  close() {
    this.closeCards();
    this.session = null;
    this.element.hidden = true;
    delete this.element.dataset.run;
  }

  destroy() {
    this.ctx.settings.removeEventListener("change", this.onSettings);
    this.closeCards();
    this.element.remove();
  }
}
