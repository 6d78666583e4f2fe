// The view in the URL, so that it can be shared and survives a reload:
//   #<dashboard>?smoothing=0.6&x=step&logy=1&outliers=1&runfilter=<regex>&tags=<regex>&hide=<run>&hide=…
// The run selection is written as whichever list has fewer names: `run=` (only these runs are shown)
// or `hide=` (these runs are hidden); neither means every run is shown. A bare `#<dashboard>`
// (an old link) keeps the view remembered in the browser; a hash with a query sets the whole
// view, its missing keys meaning the defaults. The URL follows every change (replaceState).

const X_AXES = ["step", "relative", "wall"];

/** `#tab?query` → {tab, params} (params null without a query). */
export function parseHash(hash) {
  const h = String(hash || "").replace(/^#/, "");
  const q = h.indexOf("?");
  let tab = (q < 0 ? h : h.slice(0, q)).split("/")[0] || "";
  try {
    tab = decodeURIComponent(tab);
  } catch (_) {
    tab = "";
  }
  return { tab, params: q < 0 ? null : new URLSearchParams(h.slice(q + 1)) };
}

/** The view a query holds: {smoothing, xAxis, logY, ignoreOutliers, runFilter, tagFilter, only, hide}. */
export function readView(params) {
  const s = Number(params.get("smoothing"));
  const x = params.get("x");
  return {
    smoothing: params.has("smoothing") && Number.isFinite(s) ? Math.min(0.999, Math.max(0, s)) : 0.6,
    xAxis: X_AXES.includes(x) ? x : "step",
    logY: params.get("logy") === "1",
    ignoreOutliers: params.get("outliers") === "1",
    runFilter: params.get("runfilter") || "",
    tagFilter: params.get("tags") || "",
    only: params.has("run") ? params.getAll("run") : null,
    hide: params.getAll("hide"),
  };
}

/** The query of the current view (smoothing and x axis always, the rest when not the default). */
export function viewQuery({ settings, runs, tagFilter }) {
  const p = new URLSearchParams();
  p.set("smoothing", String(settings.get("smoothing")));
  p.set("x", settings.get("xAxis"));
  if (settings.get("logY")) p.set("logy", "1");
  if (settings.get("ignoreOutliers")) p.set("outliers", "1");
  if (runs.filter) p.set("runfilter", runs.filter);
  if (tagFilter) p.set("tags", tagFilter);
  const names = runs.runs.map((r) => r.name);
  const shown = names.filter((n) => runs.isSelected(n));
  const hidden = names.filter((n) => !runs.isSelected(n));
  if (hidden.length) {
    if (shown.length < hidden.length) for (const n of shown) p.append("run", n);
    else for (const n of hidden) p.append("hide", n);
  }
  return p.toString();
}

/** The hash of a dashboard and its view. */
export function viewHash(tab, query) {
  return "#" + encodeURIComponent(tab) + (query ? "?" + query : "");
}

/**
 * Apply a view's settings and run filter (what needs no run list), and remember its tag filter
 * for `tab` (the dashboards read it from the store under `<tab>.tagFilter` when they mount).
 */
export function applySettings(view, { settings, runs, store }, tab) {
  settings.set("smoothing", view.smoothing);
  settings.set("xAxis", view.xAxis);
  settings.set("logY", view.logY);
  settings.set("ignoreOutliers", view.ignoreOutliers);
  if (runs.filter !== view.runFilter) runs.setFilter(view.runFilter);
  if (tab) store.set(tab + ".tagFilter", view.tagFilter);
}

/**
 * Apply a view's run selection to the runs known now. Returns false when no run is known yet
 * and the view lists the runs to show (the caller tries again when runs arrive).
 */
export function applySelection(view, runs) {
  const names = runs.runs.map((r) => r.name);
  if (view.only && !names.length) return false;
  runs.deselected.clear(); // what the browser remembered gives way to the view
  if (view.only) {
    const keep = new Set(view.only);
    runs.setSelection(
      names.filter((n) => keep.has(n)),
      names.filter((n) => !keep.has(n)),
    );
    return true;
  }
  const hide = new Set(view.hide);
  runs.setSelection(
    names.filter((n) => !hide.has(n)),
    view.hide,
  );
  return true;
}
