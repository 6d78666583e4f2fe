// Chart settings shared by the time-series and scalars dashboards, remembered in localStorage.
import { store } from "./util.js";

// Run groups (groups.js): mode none/regex/hparam/manual, its regex, hparam and {run: group}, the
// line (mean/median), the band (std/minmax), and whether the members' lines are drawn.
const GROUP_DEFAULTS = {
  groupMode: "none",
  groupRegex: "",
  groupHparam: "",
  groupManual: {},
  groupStat: "mean",
  groupBand: "std",
  groupMembers: false,
};

const DEFAULTS = { smoothing: 0.6, xAxis: "step", logY: false, ignoreOutliers: false, ...GROUP_DEFAULTS };

/** Emits "change" with detail {key, value}. */
export class Settings extends EventTarget {
  constructor() {
    super();
    this.values = { ...DEFAULTS, ...store.get("chart.settings", {}) };
    const s = Number(this.values.smoothing);
    this.values.smoothing = Number.isFinite(s) ? Math.min(0.999, Math.max(0, s)) : DEFAULTS.smoothing;
    if (!["step", "relative", "wall"].includes(this.values.xAxis)) this.values.xAxis = "step";
    if (!["none", "regex", "hparam", "manual"].includes(this.values.groupMode)) this.values.groupMode = "none";
    if (!["mean", "median"].includes(this.values.groupStat)) this.values.groupStat = "mean";
    const manual = this.values.groupManual;
    if (!manual || typeof manual !== "object" || Array.isArray(manual)) this.values.groupManual = {};
    if (!["std", "minmax"].includes(this.values.groupBand)) this.values.groupBand = "std";
  }

  get(key) {
    return this.values[key];
  }

  set(key, value) {
    if (this.values[key] === value) return;
    this.values[key] = value;
    store.set("chart.settings", this.values);
    this.dispatchEvent(new CustomEvent("change", { detail: { key, value } }));
  }

  /** The chart options derived from the settings. */
  chartOptions() {
    const v = this.values;
    return { xAxis: v.xAxis, logY: v.logY, ignoreOutliers: v.ignoreOutliers, smoothing: v.smoothing > 0 };
  }
}

/** Controls for the chart settings: smoothing slider, x axis, log y, ignore outliers. */
export function chartControls(settings, el) {
  const smooth = el("input", {
    type: "range",
    min: "0",
    max: "0.99",
    step: "0.01",
    value: String(settings.get("smoothing")),
    class: "smoothing",
    "aria-label": "Smoothing",
  });
  const smoothOut = el("output", { class: "num", text: settings.get("smoothing").toFixed(2) });
  smooth.addEventListener("input", () => {
    smoothOut.textContent = Number(smooth.value).toFixed(2);
  });
  smooth.addEventListener("change", () => settings.set("smoothing", Number(smooth.value)));
  const xAxis = el(
    "select",
    { class: "x-axis", "aria-label": "Horizontal axis" },
    el("option", { value: "step", text: "Step" }),
    el("option", { value: "relative", text: "Relative" }),
    el("option", { value: "wall", text: "Wall" }),
  );
  xAxis.value = settings.get("xAxis");
  xAxis.addEventListener("change", () => settings.set("xAxis", xAxis.value));
  const check = (key, label) => {
    const box = el("input", { type: "checkbox", checked: settings.get(key), class: key });
    box.addEventListener("change", () => settings.set(key, box.checked));
    return el("label", { class: "inline" }, box, label);
  };
  return el(
    "div",
    { class: "controls chart-controls" },
    el("label", { class: "inline" }, "Smoothing ", smooth, smoothOut),
    el("label", { class: "inline" }, "X ", xAxis),
    check("logY", "Log y"),
    check("ignoreOutliers", "Ignore outliers"),
  );
}
