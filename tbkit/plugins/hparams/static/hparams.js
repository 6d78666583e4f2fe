// The HParams dashboard: a sortable, filterable table of sessions (one row per run), a
// brushable parallel-coordinates view, a scatter-plot matrix (plotly, loaded on this tab only,
// when the matrix is opened), filters, a session panel with the metrics' curves, and the run
// selector kept in step.
import { getJSON, loadStyle } from "../../api.js";
import { el, clear, compileFilter, debounce, formatCount, store } from "../../util.js";
import { brushPredicate, makeAxis } from "./axes.js";
import { renderFilters } from "./filters.js";
import { AGGS, STATUSES, buildColumns, emptyFilters, filtersActive, makePredicate, sessionRuns, sortSessions } from "./model.js";
import { CONFIG, matrixFigure } from "./matrix.js";
import { ParallelCoordinates } from "./parcoords.js";
import { SessionPanel } from "./session.js";
import { SessionTable } from "./table.js";

const PREFS = "hparams.view";

function loadPrefs() {
  const p = store.get(PREFS, {});
  return {
    hidden: new Set(Array.isArray(p.hidden) ? p.hidden : []),
    log: p.log && typeof p.log === "object" ? p.log : {},
    aggs: Array.isArray(p.aggs) ? p.aggs.filter((a) => AGGS.includes(a)) : AGGS.slice(),
    axisAgg: AGGS.includes(p.axisAgg) ? p.axisAgg : "last",
    colorBy: typeof p.colorBy === "string" ? p.colorBy : null,
    sort: p.sort && typeof p.sort.key === "string" ? p.sort : null,
  };
}

export function mount(root, ctx) {
  const style = loadStyle(new URL("./hparams.css", import.meta.url));
  let plotlyReady = null; // loaded when the scatter matrix is first opened
  const prefs = loadPrefs();
  const savePrefs = () => store.set(PREFS, { ...prefs, hidden: Array.from(prefs.hidden) });

  let experiment = null;
  let sessions = [];
  let columns = { hparams: [], metrics: [], all: [] };
  let filters = emptyFilters();
  let brushes = new Map(); // axis id -> [[lo, hi], …] in plotted units
  let axes = [];
  let shown = []; // sessions passing filters and brushes
  let shownAtClick = []; // the sessions of the drawn scatter matrix, in point order
  let lastAnswer = "";
  let firstLoad = true;
  let destroyed = false;
  let generation = 0;

  // ---- the page
  const nameInput = el("input", {
    type: "search",
    class: "session-filter",
    placeholder: "Filter sessions (regex)",
    "aria-label": "Filter sessions (regex)",
    spellcheck: "false",
  });
  const statusBoxes = STATUSES.map((st) => {
    const box = el("input", { type: "checkbox", checked: true, dataset: { status: st } });
    box.addEventListener("change", () => {
      if (box.checked) filters.statuses.add(st);
      else filters.statuses.delete(st);
      update(true);
    });
    return el("label", { class: "inline" }, box, el("span", { text: st }));
  });
  const axisAgg = el(
    "select",
    { class: "axis-agg", "aria-label": "Metric value on the plots", title: "Metric value on the plots and in metric filters" },
    ...AGGS.map((a) => el("option", { value: a, text: `plot ${a}`, selected: a === prefs.axisAgg })),
  );
  const colorBy = el("select", { class: "color-by", "aria-label": "Colour by" });
  const columnsMenu = el("details", { class: "columns-menu" }, el("summary", { text: "Columns" }), el("div", { class: "columns-list" }));
  const reset = el("button", { type: "button", class: "small reset-filters", text: "Reset filters" });
  const selectRuns = el("button", {
    type: "button",
    class: "small select-runs",
    text: "Select these runs",
    title: "Select the shown sessions' runs in the run selector and deselect the others",
  });
  const count = el("span", { class: "muted session-count num" });
  const filterBox = el("div", { class: "filters" });
  const filtersDetails = el("details", { class: "filters-details", open: true }, el("summary", { text: "Filters" }), filterBox);
  const parcoords = el("div", { class: "parcoords", dataset: { ready: "0" } });
  const splom = el("div", { class: "plot splom", dataset: { ready: "0" } });
  const splomDetails = el("details", { class: "splom-details" }, el("summary", { text: "Scatter plot matrix" }), splom);
  const tableBox = el("div", { class: "table-box" });
  const message = el("div", { class: "empty", hidden: true });
  const main = el(
    "div",
    { class: "hparams" },
    el(
      "div",
      { class: "toolbar" },
      el("div", { class: "controls" }, nameInput, el("span", { class: "statuses" }, ...statusBoxes), axisAgg, colorBy, columnsMenu, reset, selectRuns),
      count,
    ),
    message,
    filtersDetails,
    parcoords,
    splomDetails,
    tableBox,
  );
  clear(root).append(main);
  Object.assign(root.dataset, { ready: "0", sessions: "0", shown: "0", brushed: "0", filterGen: "0" });

  const table = new SessionTable(tableBox, {
    onOpen: (s) => openSession(s),
    onSort: (key, agg) => {
      const same = prefs.sort && prefs.sort.key === key && prefs.sort.agg === agg;
      prefs.sort = { key, agg, desc: same ? !prefs.sort.desc : false };
      savePrefs();
      renderTable(false);
    },
    color: (run) => ctx.runs.color(run),
  });
  const panel = new SessionPanel(root, ctx, { onClose: () => closeSession() });
  const pc = new ParallelCoordinates(parcoords, {
    onBrush: (next) => {
      brushes = next;
      update(false);
    },
    onOpen: (s) => openSession(s),
  });

  // ---- columns, axes, figures
  const visible = (list) => list.filter((c) => !prefs.hidden.has(c.key));
  const logOf = (c) => (c.key in prefs.log ? Boolean(prefs.log[c.key]) : c.defaultLog);
  const axisOf = (c) => makeAxis(c, sessions, { agg: c.kind === "metric" ? prefs.axisAgg : "last", log: logOf(c) });
  const colorAxis = () => {
    const c = columns.all.find((x) => x.key === prefs.colorBy);
    return c ? axisOf(c) : null;
  };

  function buildAxes() {
    axes = [...visible(columns.hparams), ...visible(columns.metrics)].map(axisOf);
    const ids = new Set(axes.map((a) => a.id));
    for (const id of Array.from(brushes.keys())) if (!ids.has(id)) brushes.delete(id);
  }

  function renderColumnsMenu() {
    const list = columnsMenu.querySelector(".columns-list");
    const row = (c) => {
      const show = el("input", { type: "checkbox", checked: !prefs.hidden.has(c.key), dataset: { column: c.key, role: "show" } });
      show.addEventListener("change", () => {
        if (show.checked) prefs.hidden.delete(c.key);
        else prefs.hidden.add(c.key);
        savePrefs();
        rebuild();
      });
      const parts = [el("label", { class: "inline col-name", title: c.name }, show, el("span", { text: c.label }))];
      if (c.numeric && c.positive) {
        const log = el("input", { type: "checkbox", checked: logOf(c), dataset: { column: c.key, role: "log" } });
        log.addEventListener("change", () => {
          prefs.log[c.key] = log.checked;
          savePrefs();
          rebuild();
        });
        parts.push(el("label", { class: "inline log", title: "Logarithmic axis" }, log, el("span", { text: "log" })));
      }
      return el("div", { class: "col-row", dataset: { column: c.key } }, ...parts);
    };
    const aggBoxes = AGGS.map((a) => {
      const box = el("input", { type: "checkbox", checked: prefs.aggs.includes(a), dataset: { agg: a } });
      box.addEventListener("change", () => {
        prefs.aggs = AGGS.filter((x) => (x === a ? box.checked : prefs.aggs.includes(x)));
        savePrefs();
        renderTable(true);
      });
      return el("label", { class: "inline" }, box, el("span", { text: a }));
    });
    clear(list).append(
      el("div", { class: "col-head", text: "Hyperparameters" }),
      ...columns.hparams.map(row),
      el("div", { class: "col-head", text: "Metrics" }),
      ...columns.metrics.map(row),
      el("div", { class: "col-head", text: "Metric values in the table" }),
      el("div", { class: "col-row" }, ...aggBoxes),
    );
  }

  function renderColorBy() {
    if (prefs.colorBy === null || !columns.all.some((c) => c.key === prefs.colorBy)) {
      prefs.colorBy = columns.metrics.length ? columns.metrics[0].key : "";
    }
    clear(colorBy).append(
      el("option", { value: "", text: "colour: none", selected: prefs.colorBy === "" }),
      ...columns.all.map((c) => el("option", { value: c.key, text: "colour: " + c.label, selected: c.key === prefs.colorBy })),
    );
  }

  /** The shown sessions, sorted, in the table (on the same page when `keepPage`). */
  function renderTable(keepPage) {
    const view = {
      hparams: visible(columns.hparams),
      metrics: visible(columns.metrics),
      aggs: prefs.aggs,
      sort: prefs.sort,
      selected: selectedTest(),
      open: panel.session,
    };
    table.render(sortSessions(shown.slice(), columns, prefs.sort), view, keepPage);
  }

  function selectedTest() {
    const active = new Set(ctx.runs.active());
    return (run) => active.has(run);
  }

  /**
   * Apply filters and brushes: the table always (back to its first page unless `keepPage`),
   * the parallel coordinates when `redrawParcoords`.
   */
  function update(redrawParcoords, keepPage = false) {
    const pass = makePredicate(columns, filters, prefs.axisAgg);
    const base = sessions.filter(pass);
    const inBrush = brushPredicate(axes, brushes);
    shown = base.filter(inBrush);
    renderTable(keepPage);
    const n = shown.length;
    count.textContent = `${formatCount(n)} of ${formatCount(sessions.length)} sessions`;
    reset.disabled = !filtersActive(filters) && brushes.size === 0;
    Object.assign(root.dataset, { shown: String(n), brushed: String(brushes.size), filterGen: String(++generation) });
    if (redrawParcoords) {
      parcoords.hidden = axes.length === 0;
      pc.setData({ axes, sessions: base, brushes, colorAxis: colorAxis() });
    }
    return splomDetails.open ? drawSplom() : Promise.resolve();
  }

  async function drawSplom() {
    if (!plotlyReady) plotlyReady = ctx.loadPlotly();
    const Plotly = await plotlyReady;
    if (destroyed) return;
    const h = axes.filter((a) => a.column.kind === "hparam");
    const m = axes.filter((a) => a.column.kind === "metric");
    if (!h.length || !m.length) {
      Plotly.purge(splom);
      clear(splom).append(el("div", { class: "muted matrix-note", text: "Show at least one hyperparameter and one metric." }));
      Object.assign(splom.dataset, { ready: "1", points: "0" });
      return;
    }
    for (const note of splom.querySelectorAll(".matrix-note")) note.remove();
    splom.style.height = `${Math.max(240, 60 + 170 * m.length)}px`;
    const { data, layout } = matrixFigure(h, m, shown, colorAxis());
    await Plotly.react(splom, data, layout, CONFIG);
    splom.removeAllListeners("plotly_click"); // purge (closing the matrix) drops them too
    splom.on("plotly_click", (e) => {
      const p = e && e.points && e.points[0];
      const s = p && shownAtClick[p.customdata];
      if (s) openSession(s);
    });
    shownAtClick = shown;
    Object.assign(splom.dataset, { ready: "1", points: String(shown.length), columns: String(h.length), rows: String(m.length) });
  }

  /** Columns, axes, table and plots again (after new data or a column/axis change). */
  function rebuild(keepPage = false) {
    buildAxes();
    return update(true, keepPage);
  }

  // ---- sessions and the run selector
  function openSession(s) {
    panel.open(s, columns.metrics);
    table.markOpen(s.name);
  }

  function closeSession() {
    panel.close();
    table.markOpen(null);
  }

  selectRuns.addEventListener("click", () => {
    const known = new Set(ctx.runs.runs.map((r) => r.name));
    const on = new Set(shown.flatMap(sessionRuns).filter((r) => known.has(r)));
    const off = sessions.flatMap(sessionRuns).filter((r) => known.has(r) && !on.has(r));
    ctx.runs.setSelection(Array.from(on), off);
  });

  const onRuns = (e) => {
    const what = e.detail && e.detail.what;
    table.reflectSelection(selectedTest());
    if (what === "colors") panel.recolor();
  };
  ctx.runs.addEventListener("change", onRuns);

  // ---- controls
  nameInput.addEventListener(
    "input",
    debounce(() => {
      nameInput.classList.toggle("invalid", compileFilter(nameInput.value).invalid);
      filters.name = nameInput.value;
      update(true);
    }, 150),
  );
  axisAgg.addEventListener("change", () => {
    prefs.axisAgg = axisAgg.value;
    savePrefs();
    rebuild();
  });
  colorBy.addEventListener("change", () => {
    prefs.colorBy = colorBy.value;
    savePrefs();
    update(true);
  });
  reset.addEventListener("click", () => {
    filters = emptyFilters();
    brushes = new Map();
    nameInput.value = "";
    nameInput.classList.remove("invalid");
    for (const label of statusBoxes) label.firstChild.checked = true;
    renderFilters(filterBox, columns, filters, () => update(true));
    update(true);
  });
  splomDetails.addEventListener("toggle", () => {
    if (splomDetails.open) drawSplom().catch(ctx.showError);
    else if (window.Plotly) window.Plotly.purge(splom);
  });
  const onTheme = () => {
    // The parallel coordinates follow the theme by themselves; plotly needs the new colours.
    if (experiment && splomDetails.open) drawSplom().catch(ctx.showError);
  };
  window.addEventListener("tbkit-theme", onTheme);

  // ---- data
  async function load() {
    const [exp, list] = await Promise.all([getJSON("data/plugin/hparams/experiment"), getJSON("data/plugin/hparams/sessions")]);
    if (destroyed) return;
    const answer = JSON.stringify([exp, list]);
    if (answer === lastAnswer) return;
    lastAnswer = answer;
    experiment = exp;
    sessions = list;
    columns = buildColumns(exp, list);
    root.dataset.sessions = String(sessions.length);
    message.classList.remove("error");
    message.hidden = sessions.length > 0;
    message.textContent = "No hparams sessions yet: log them with add_hparams (the page updates as runs write).";
    renderColumnsMenu();
    renderColorBy();
    renderFilters(filterBox, columns, filters, () => update(true));
    if (firstLoad && sessions.length) {
      filtersDetails.open = columns.all.length <= 8; // many columns: closed at first
      firstLoad = false;
    }
    await style;
    await rebuild(true);
    if (panel.session) {
      const s = sessions.find((x) => x.name === panel.session);
      if (s) openSession(s);
      else closeSession();
    }
    root.dataset.ready = "1";
  }

  const refresh = () =>
    load().catch((err) => {
      message.textContent = "Could not load the sessions: " + err.message;
      message.hidden = false;
      message.classList.add("error");
    });
  refresh();

  return {
    refresh,
    destroy() {
      destroyed = true;
      ctx.runs.removeEventListener("change", onRuns);
      window.removeEventListener("tbkit-theme", onTheme);
      panel.destroy();
      pc.destroy();
      if (window.Plotly) window.Plotly.purge(splom);
    },
  };
}
