// The Profile dashboard: for one trace (run, session, worker) a Canvas timeline of its events,
// the selected event's details, a sortable operator table and the step times.
import { getJSON, loadStyle } from "../../api.js";
import { el, clear, compileFilter, debounce, formatCount, store } from "../../util.js";
import { safeColor } from "../../tooltip.js";
import { Timeline, formatTime } from "./timeline.js";

const ROUTE = "data/plugin/profile/";
const MAX_ROWS = 500; // operator table rows rendered
const COLUMNS = [
  ["name", "Name", "text"],
  ["category", "Category", "text"],
  ["count", "Calls", "num"],
  ["total_us", "Total", "num"],
  ["self_us", "Self", "num"],
  ["self_share", "Self %", "num"],
];

function option(value, text) {
  return el("option", { value, text });
}

/** Keep a <select>'s options equal to `values`, choosing `wanted` when present, else the first. */
function fillSelect(select, values, wanted, label = (v) => v) {
  clear(select).append(...values.map((v) => option(v, label(v))));
  select.disabled = values.length === 0;
  select.value = values.includes(wanted) ? wanted : values[0] || "";
  return select.value;
}

export function mount(root, ctx) {
  loadStyle(new URL("./profile.css", import.meta.url)).catch(ctx.showError);
  let listing = {};
  let shown = null; // {run, session, worker, size}
  let token = 0;
  let ops = [];
  let opSort = store.get("profile.opSort", { key: "self_us", desc: true });
  let names = [];
  const choice = store.get("profile.trace", {});

  const runSelect = el("select", { class: "profile-run", "aria-label": "Run" });
  const sessionSelect = el("select", { class: "profile-session", "aria-label": "Session" });
  const workerSelect = el("select", { class: "profile-worker", "aria-label": "Worker" });
  const summary = el("span", { class: "profile-summary muted" });
  const toolbar = el(
    "div",
    { class: "toolbar" },
    el(
      "div",
      { class: "controls" },
      el("label", { class: "inline" }, "Run ", runSelect),
      el("label", { class: "inline" }, "Session ", sessionSelect),
      el("label", { class: "inline" }, "Worker ", workerSelect),
      summary,
    ),
  );

  // ---- timeline
  const hover = el("span", { class: "timeline-hover" });
  const swatch = el("span", { class: "swatch" });
  const title = el("h3", { class: "card-title", text: "Trace" });
  const timelineEl = el("div", { class: "timeline" });
  const note = el("div", { class: "chart-note timeline-note" });
  const resetButton = el("button", { class: "small", type: "button", text: "Reset zoom", title: "Show the whole trace (double-click)" });
  const timelineCard = el(
    "section",
    { class: "card timeline-card" },
    el("header", { class: "card-header" }, swatch, title, hover, resetButton),
    timelineEl,
    note,
  );
  const details = el("section", { class: "card event-details", dataset: { index: "" } });
  const timeline = new Timeline(timelineEl, {
    onSelect: (index) => showDetails(index),
    onHover: (index) => {
      hover.textContent = index >= 0 ? `${names[timeline.data.name[index]]} · ${formatTime(timeline.data.dur[index])}` : "";
    },
  });
  resetButton.addEventListener("click", () => timeline.resetView());

  // ---- operator table
  const opFilter = el("input", { type: "search", class: "op-filter", placeholder: "Filter ops (regex)", "aria-label": "Filter operators (regex)", spellcheck: "false" });
  const catSelect = el("select", { class: "op-category", "aria-label": "Category" });
  const opNote = el("div", { class: "chart-note op-note" });
  const opHead = el("tr");
  const opBody = el("tbody");
  const opTable = el("table", { class: "op-table" }, el("thead", {}, opHead), opBody);
  const opCard = el(
    "section",
    { class: "card op-card" },
    el("header", { class: "card-header" }, el("h3", { class: "card-title", text: "Operators" }), opFilter, catSelect),
    el("div", { class: "op-scroll" }, opTable),
    opNote,
  );
  opFilter.addEventListener(
    "input",
    debounce(() => {
      opFilter.classList.toggle("invalid", compileFilter(opFilter.value).invalid);
      renderOps();
    }, 150),
  );
  catSelect.addEventListener("change", renderOps);

  // ---- step times
  const steps = el("div", { class: "step-times", dataset: { steps: "0" } });
  const stepCard = el("section", { class: "card step-card" }, el("header", { class: "card-header" }, el("h3", { class: "card-title", text: "Step time" })), steps);

  const body = el("div", { class: "profile-body" }, timelineCard, details, el("div", { class: "profile-grid" }, opCard, stepCard));
  const empty = el("div", { class: "empty", text: "No profiler traces in the selected runs." });
  clear(root).append(toolbar, body, empty);
  root.classList.add("profile-dashboard");
  showDetails(-1);

  // ---------------------------------------------------------------- choosing a trace
  function entries() {
    const active = new Set(ctx.runs.active());
    return Object.keys(listing).filter((run) => active.has(run));
  }

  function chosen() {
    const list = listing[runSelect.value] || [];
    return list.find((e) => e.session === sessionSelect.value && e.worker === workerSelect.value) || null;
  }

  function updateSelects() {
    const runs = entries();
    root.dataset.traces = String(runs.reduce((n, r) => n + listing[r].length, 0));
    const run = fillSelect(runSelect, runs, runSelect.value || choice.run);
    const list = listing[run] || [];
    const sessions = [...new Set(list.map((e) => e.session))];
    const session = fillSelect(sessionSelect, sessions, sessionSelect.value || choice.session);
    const workers = list.filter((e) => e.session === session).map((e) => e.worker);
    fillSelect(workerSelect, workers, workerSelect.value || choice.worker);
    swatch.style.background = run ? safeColor(ctx.runs.color(run)) : "transparent";
    body.hidden = runs.length === 0;
    empty.hidden = runs.length > 0;
    const entry = chosen();
    if (!entry) {
      shown = null;
      root.dataset.ready = runs.length === 0 ? "1" : "0";
      return;
    }
    if (!shown || shown.run !== run || shown.session !== entry.session || shown.worker !== entry.worker || shown.size !== entry.size) {
      load({ run, ...entry });
    }
  }

  function onSelectChange(which) {
    return () => {
      if (which === "run") sessionSelect.value = workerSelect.value = "";
      if (which === "session") workerSelect.value = "";
      Object.assign(choice, { run: runSelect.value, session: sessionSelect.value, worker: workerSelect.value });
      updateSelects();
      const entry = chosen();
      if (entry) store.set("profile.trace", { run: runSelect.value, session: entry.session, worker: entry.worker });
    };
  }
  runSelect.addEventListener("change", onSelectChange("run"));
  sessionSelect.addEventListener("change", onSelectChange("session"));
  workerSelect.addEventListener("change", onSelectChange("worker"));

  // ---------------------------------------------------------------- loading one trace
  async function load(entry) {
    const mine = ++token;
    shown = entry;
    root.dataset.ready = "0";
    const query = { run: entry.run, session: entry.session, worker: entry.worker };
    Object.assign(root.dataset, query);
    title.textContent = `${entry.run} · ${entry.session} · ${entry.worker}`;
    title.title = title.textContent;
    note.textContent = "Loading…";
    timelineCard.classList.remove("error");
    const parts = [
      getJSON(ROUTE + "timeline", query).then((t) => {
        if (mine !== token) return;
        names = t.names;
        timeline.setData(t);
        showDetails(-1);
        summary.textContent = `${formatCount(t.events)} events · ${t.tracks.length} tracks · ${formatTime(t.span_us)}`;
        note.textContent = timelineNote(t);
      }),
      getJSON(ROUTE + "ops", query).then((answer) => {
        if (mine !== token) return;
        ops = answer.ops;
        const cats = [...new Set(ops.map((r) => r.category))].sort();
        fillSelect(catSelect, ["", ...cats], catSelect.value, (c) => (c === "" ? "All categories" : c || "(none)"));
        renderOps();
      }),
      getJSON(ROUTE + "steps", query).then((answer) => {
        if (mine === token) renderSteps(answer);
      }),
    ];
    try {
      await Promise.all(parts);
      if (mine === token) root.dataset.ready = "1";
    } catch (err) {
      if (mine !== token) return;
      timelineCard.classList.add("error");
      note.textContent = "Could not load the trace: " + err.message;
      root.dataset.ready = "1";
    }
  }

  function timelineNote(t) {
    const skipped = Object.entries(t.skipped)
      .map(([ph, n]) => `${formatCount(n)} “${ph}”`)
      .join(", ");
    const bits = ["Wheel: zoom · drag: pan · click: details · double-click: reset · W/S/A/D"];
    if (skipped) bits.push(`not drawn: ${skipped}`);
    if (t.unclosed) bits.push(`${formatCount(t.unclosed)} unfinished (drawn to the end)`);
    return bits.join(" · ");
  }

  // ---------------------------------------------------------------- event details
  async function showDetails(index) {
    details.dataset.index = index >= 0 ? String(index) : "";
    details.dataset.ready = "0";
    if (index < 0 || !shown) {
      clear(details).append(el("div", { class: "muted details-hint", text: "Click an event in the timeline to see its details." }));
      details.dataset.ready = "1";
      return;
    }
    const query = { run: shown.run, session: shown.session, worker: shown.worker, index };
    try {
      const d = await getJSON(ROUTE + "event", query);
      if (details.dataset.index !== String(index)) return;
      const rows = [
        ["Category", d.category || "–"],
        ["Track", d.track_name],
        ["Start", formatTime(d.ts_us)],
        ["Duration", formatTime(d.dur_us)],
        ["Self time", formatTime(d.self_us)],
        ["Depth", String(d.depth)],
        ["Phase", d.phase],
      ];
      const args = Object.entries(d.args || {});
      const zoom = el("button", { class: "small", type: "button", text: "Zoom to event" });
      zoom.addEventListener("click", () => timeline.zoomTo(d.ts_us, d.ts_us + d.dur_us));
      clear(details).append(
        el("header", { class: "card-header" }, el("h3", { class: "card-title event-name", text: d.name, title: d.name }), zoom),
        el("div", { class: "event-facts" }, ...rows.map(([k, v]) => el("span", { class: "fact", dataset: { key: k } }, el("span", { class: "fact-key", text: k }), el("span", { class: "fact-value", text: v })))),
        args.length
          ? el(
              "table",
              { class: "details-table args-table" },
              el("tbody", {}, ...args.map(([k, v]) => el("tr", {}, el("th", { text: k }), el("td", { text: typeof v === "object" ? JSON.stringify(v) : String(v) })))),
            )
          : el("div", { class: "muted", text: "No args." }),
      );
      Object.assign(details.dataset, { name: d.name, dur: String(d.dur_us), self: String(d.self_us), ready: "1" });
    } catch (err) {
      clear(details).append(el("div", { class: "error", text: "Could not load the event: " + err.message }));
      details.dataset.ready = "1";
    }
  }

  // ---------------------------------------------------------------- operator table
  function renderOps() {
    const { re } = compileFilter(opFilter.value);
    const cat = catSelect.value;
    const selfSum = ops.reduce((s, r) => s + r.self_us, 0) || 1;
    const rows = ops
      .filter((r) => (!re || re.test(r.name)) && (!cat || r.category === cat))
      .map((r) => ({ ...r, self_share: r.self_us / selfSum }));
    const { key, desc } = opSort;
    const sign = desc ? -1 : 1;
    rows.sort((a, b) => {
      const x = a[key];
      const y = b[key];
      const c = typeof x === "string" ? x.localeCompare(y) : x - y;
      return sign * c || a.name.localeCompare(b.name);
    });
    clear(opHead).append(
      ...COLUMNS.map(([k, label, kind]) => {
        const mark = k === key ? (desc ? " ▼" : " ▲") : "";
        const button = el("button", { type: "button", class: "sort", text: label + mark, dataset: { sort: k } });
        button.addEventListener("click", () => {
          opSort = { key: k, desc: k === key ? !desc : kind === "num" };
          store.set("profile.opSort", opSort);
          renderOps();
        });
        return el("th", { class: kind, "aria-sort": k === key ? (desc ? "descending" : "ascending") : null }, button);
      }),
    );
    const shownRows = rows.slice(0, MAX_ROWS);
    clear(opBody).append(
      ...shownRows.map((r) => {
        const tr = el(
          "tr",
          { dataset: { name: r.name, category: r.category, count: String(r.count), total: String(r.total_us), self: String(r.self_us) } },
          el("td", { class: "op-name", text: r.name, title: r.name }),
          el("td", { text: r.category || "–" }),
          el("td", { class: "num", text: formatCount(r.count) }),
          el("td", { class: "num", text: formatTime(r.total_us) }),
          el("td", { class: "num", text: formatTime(r.self_us) }),
          el("td", { class: "num", text: (100 * r.self_share).toFixed(1) + " %" }),
        );
        tr.addEventListener("click", () => {
          const on = tr.classList.contains("highlighted");
          for (const other of opBody.querySelectorAll("tr.highlighted")) other.classList.remove("highlighted");
          tr.classList.toggle("highlighted", !on);
          timeline.setHighlight(on ? -1 : names.indexOf(r.name));
        });
        return tr;
      }),
    );
    opTable.dataset.rows = String(rows.length);
    opNote.textContent =
      (rows.length > MAX_ROWS ? `${formatCount(MAX_ROWS)} of ${formatCount(rows.length)} ops shown · ` : "") +
      "click a row to highlight its events; self time excludes nested events";
  }

  // ---------------------------------------------------------------- step times
  function renderSteps(answer) {
    steps.dataset.steps = String(answer.steps.length);
    if (!answer.steps.length) {
      clear(steps).append(el("div", { class: "muted step-note", text: answer.note }));
      return;
    }
    const s = answer.summary;
    const longest = s.max_us || 1;
    clear(steps).append(
      el("div", { class: "step-summary", text: `${s.count} steps · mean ${formatTime(s.mean_us)} · min ${formatTime(s.min_us)} · max ${formatTime(s.max_us)}` }),
      ...answer.steps.map((step) => {
        const row = el(
          "button",
          { type: "button", class: "step-row", title: "Zoom the timeline to this step", dataset: { step: String(step.step), dur: String(step.dur_us) } },
          el("span", { class: "step-label", text: `#${step.step}` }),
          el("span", { class: "step-bar" }, el("span", { class: "step-fill", style: `width:${((100 * step.dur_us) / longest).toFixed(2)}%` })),
          el("span", { class: "step-dur num", text: formatTime(step.dur_us) }),
        );
        row.addEventListener("click", () => timeline.zoomTo(step.ts_us, step.ts_us + step.dur_us));
        return row;
      }),
    );
  }

  // ---------------------------------------------------------------- life cycle
  async function refresh() {
    listing = await getJSON(ROUTE + "traces");
    updateSelects();
  }
  const onRuns = (e) => {
    if (e.detail && e.detail.what === "colors") {
      if (runSelect.value) swatch.style.background = safeColor(ctx.runs.color(runSelect.value));
    } else updateSelects();
  };
  ctx.runs.addEventListener("change", onRuns);
  refresh().catch(ctx.showError);
  return {
    refresh,
    destroy() {
      token++;
      ctx.runs.removeEventListener("change", onRuns);
      timeline.destroy();
    },
  };
}
