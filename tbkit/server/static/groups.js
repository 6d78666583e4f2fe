// Run groups in the scalar charts: the "Group runs" control (none / by regex capture / by hparam /
// by hand; mean or median; ±std or min–max band; members shown or not) and the requests of a
// grouped chart. The server groups with tbkit.aggregate, so the page equals the library.
import { getJSON, postJSON, url, loadStyle } from "./api.js";
import { el, clear, compileFilter, debounce } from "./util.js";

const MODES = [
  ["none", "None"],
  ["regex", "By regex capture"],
  ["hparam", "By hparam"],
  ["manual", "By hand"],
];

/** Python-only regex syntax the browser's RegExp rejects: named groups (?P<…>, (?P=…) and inline flags. */
function pythonOnly(pattern) {
  return /\(\?P[<=]|\(\?[aiLmsux]+[:)]/.test(pattern);
}

/** The request parameters of the current grouping ({stat, band, group_by | groups}), or null. */
export function groupQuery(settings) {
  const mode = settings.get("groupMode");
  const base = { stat: settings.get("groupStat"), band: settings.get("groupBand") };
  if (mode === "regex" && settings.get("groupRegex")) return { ...base, group_by: settings.get("groupRegex") };
  if (mode === "hparam" && settings.get("groupHparam")) return { ...base, group_by: "hparam:" + settings.get("groupHparam") };
  if (mode === "manual") return { ...base, groups: settings.get("groupManual") || {} };
  return null;
}

/** POST data/plugin/scalars/groups: {group: {color, members, step, value, lower, upper, count, ...}}. */
export function fetchGroups({ tag, runs, points, smoothing, minStep, maxStep, query, signal }) {
  const body = { tag, runs, points, smoothing, ...query };
  if (minStep !== undefined && minStep !== null) body.min_step = minStep;
  if (maxStep !== undefined && maxStep !== null) body.max_step = maxStep;
  return postJSON("data/plugin/scalars/groups", body, { signal });
}

/** The URL of the full-resolution group rows of a tag as CSV or JSON. */
export function groupDownloadUrl(tag, runs, query, format) {
  // Comma-separated runs, or a JSON list when a run name holds a comma.
  const listed = runs.some((r) => r.includes(",")) ? JSON.stringify(runs) : runs;
  const params = { tag, runs: listed, stat: query.stat, band: query.band, format };
  if (query.group_by !== undefined) params.group_by = query.group_by;
  else params.groups = JSON.stringify(query.groups);
  return url("data/plugin/scalars/groups_download", params);
}

/** A short description of the grouping for labels: "mean ± std", "median, min–max". */
export function groupLabel(query) {
  return query.stat + (query.band === "std" ? " ± std" : ", min–max");
}

/**
 * The "Group runs" control for a toolbar: a <details> panel writing the group* settings.
 * @param {{runs: import('./runs.js').RunStore, settings: import('./settings.js').Settings}} ctx
 */
export function groupControls(ctx) {
  loadStyle(new URL("./groups.css", import.meta.url)).catch(() => {});
  const s = ctx.settings;
  const select = (cls, label, options, value) => {
    const node = el("select", { class: cls, "aria-label": label }, ...options.map(([v, t]) => el("option", { value: v, text: t })));
    node.value = value;
    return node;
  };
  const mode = select("group-mode", "Group runs", MODES, s.get("groupMode"));
  const regex = el("input", {
    type: "text",
    class: "group-regex",
    placeholder: "(.*)_seed\\d+",
    "aria-label": "Group regex (its first capture group names the group)",
    title: "A regex searched in each run name; its first capture group names the group",
    value: s.get("groupRegex"),
    spellcheck: "false",
  });
  const hparam = el("select", { class: "group-hparam", "aria-label": "Hyperparameter" });
  const manual = el("div", { class: "group-manual" });
  const stat = select("group-stat", "Line", [["mean", "Mean"], ["median", "Median"]], s.get("groupStat"));
  const band = select("group-band", "Band", [["std", "± std"], ["minmax", "Min–max"]], s.get("groupBand"));
  const members = el("input", { type: "checkbox", class: "group-members", checked: s.get("groupMembers") });
  const state = el("span", { class: "group-state muted" });
  const rows = {
    regex: el("label", { class: "group-row" }, "Regex ", regex),
    hparam: el("label", { class: "group-row" }, "Hparam ", hparam),
    manual: el("div", { class: "group-row" }, el("div", { class: "muted", text: "Group name per run (empty: on its own)" }), manual),
  };
  const panel = el(
    "div",
    { class: "group-panel" },
    el("label", { class: "group-row" }, "Group ", mode),
    rows.regex,
    rows.hparam,
    rows.manual,
    el("div", { class: "group-row" }, el("label", { class: "inline" }, "Line ", stat), el("label", { class: "inline" }, "Band ", band)),
    el("label", { class: "group-row inline" }, members, "Show members"),
  );
  const details = el("details", { class: "group-runs" }, el("summary", { title: "Group runs: one line and band per group" }, "Group runs", state), panel);

  let hparamsLoaded = false;
  const loadHparams = async () => {
    if (hparamsLoaded) return;
    hparamsLoaded = true;
    try {
      const names = (await getJSON("data/plugin/scalars/group_options")).hparams;
      const current = s.get("groupHparam");
      const all = current && !names.includes(current) ? [current, ...names] : names;
      clear(hparam).append(el("option", { value: "", text: all.length ? "(choose)" : "(no hparams)" }), ...all.map((n) => el("option", { value: n, text: n })));
      hparam.value = current || "";
    } catch (_) {
      hparamsLoaded = false;
    }
  };
  const renderManual = () => {
    const mapping = s.get("groupManual") || {};
    const inputs = ctx.runs.runs.map((r) => {
      const input = el("input", {
        type: "text",
        class: "group-name",
        value: mapping[r.name] || "",
        placeholder: "group",
        "aria-label": "group of run " + r.name,
        dataset: { run: r.name },
        spellcheck: "false",
      });
      input.addEventListener("change", () => {
        const next = { ...(s.get("groupManual") || {}) };
        if (input.value.trim()) next[r.name] = input.value.trim();
        else delete next[r.name];
        s.set("groupManual", next);
      });
      return el("label", { class: "group-manual-row", title: r.name }, el("span", { class: "run-label", text: r.name }), input);
    });
    clear(manual).append(...(inputs.length ? inputs : [el("div", { class: "muted", text: "No runs yet." })]));
  };
  const sync = () => {
    const m = mode.value;
    for (const [k, node] of Object.entries(rows)) node.hidden = k !== m;
    const active = m !== "none";
    state.textContent = active ? ": " + MODES.find((x) => x[0] === m)[1].replace(/^By /, "by ") : "";
    details.classList.toggle("active", active);
    details.dataset.mode = m;
    if (m === "hparam") loadHparams();
    if (m === "manual") renderManual();
  };
  mode.addEventListener("change", () => {
    s.set("groupMode", mode.value);
    sync();
  });
  regex.addEventListener(
    "input",
    debounce(() => {
      // Python's syntax is the server's; hold back only what neither dialect could parse (a half-typed group).
      const bad = !pythonOnly(regex.value) && compileFilter(regex.value).invalid;
      regex.classList.toggle("invalid", bad);
      if (!bad) s.set("groupRegex", regex.value);
    }, 300),
  );
  hparam.addEventListener("change", () => s.set("groupHparam", hparam.value));
  stat.addEventListener("change", () => s.set("groupStat", stat.value));
  band.addEventListener("change", () => s.set("groupBand", band.value));
  members.addEventListener("change", () => s.set("groupMembers", members.checked));
  details.addEventListener("toggle", () => {
    if (details.open) sync();
  });
  sync();
  return details;
}
