// The landing page: one card per tag for scalars, histograms and images together. The tag
// filter is a regex searched on the server; the grid holds only the cards near the screen.
import { getJSON, loadStyle, startDownload, url } from "../../api.js";
import { chartControls } from "../../settings.js";
import { groupControls } from "../../groups.js";
import { el, clear, compileFilter, debounce, escapeRegex } from "../../util.js";
import { PagedCardGrid } from "./pagedgrid.js";

const SEARCH = "data/plugin/timeseries/search";
const SUGGESTIONS = 20;

/** Flatten a `data/plugin/timeseries/tags` answer into [{kind, tag, runs}] (for scripts). */
export function tagEntries(answer) {
  const out = [];
  for (const [tag, runs] of Object.entries(answer.scalars || {})) out.push({ kind: "scalars", tag, runs });
  for (const [tag, runs] of Object.entries(answer.histograms || {})) out.push({ kind: "histograms", tag, runs });
  for (const [tag, info] of Object.entries(answer.images || {})) out.push({ kind: "images", tag, runs: info.runs || [] });
  return out;
}

/**
 * A button downloading the zip of every visible run × scalar tag as CSV. The URL (which holds
 * the run names) is built when clicked and never becomes an attribute of the page.
 */
export function downloadAllLink(ctx, tagFilterFn) {
  const href = () => {
    const runs = ctx.runs.active();
    const runsRe = runs.length ? "^(" + runs.map(escapeRegex).join("|") + ")$" : "^$";
    return url("data/plugin/scalars/download_all", { runs: runsRe, tags: tagFilterFn() || ".*" });
  };
  const link = el("button", {
    type: "button",
    class: "button download-all",
    text: "Download all (zip)",
    title: "Every visible run × scalar tag as CSV",
    on: { click: () => startDownload(href()) },
  });
  // Nothing to refresh: the URL is built at each click (kept for callers).
  const update = () => {};
  return { link, update };
}

/**
 * The tag filter box: a regex, checked as it is typed (red when it does not compile), with the
 * first matching tags from the server as suggestions. `onChange(pattern)` after a pause.
 */
export function tagFilterBox(initial, kindFn, onChange, listId) {
  const input = el("input", {
    type: "search",
    class: "tag-filter",
    placeholder: "Filter tags (regex)",
    "aria-label": "Filter tags (regex)",
    list: listId,
    value: initial,
    spellcheck: "false",
  });
  const datalist = el("datalist", { id: listId });
  let asked = 0;
  const suggest = async () => {
    const token = ++asked;
    try {
      const found = await getJSON(SEARCH, { regex: input.value || undefined, kind: kindFn(), limit: SUGGESTIONS });
      if (token === asked) clear(datalist).append(...found.tags.map((t) => el("option", { value: t })));
    } catch (_) {
      /* a pattern the server refuses: the grid says so */
    }
  };
  input.addEventListener(
    "input",
    debounce(() => {
      const invalid = compileFilter(input.value).invalid;
      input.classList.toggle("invalid", invalid);
      if (invalid) return;
      onChange(input.value);
      suggest();
    }, 150),
  );
  input.addEventListener("focus", () => suggest(), { once: true });
  return { input, datalist };
}

/** Mount the time-series dashboard into `root`. */
export function mount(root, ctx) {
  loadStyle(new URL("./timeseries.css", import.meta.url)).catch(ctx.showError);
  const gridRoot = el("div");
  const grid = new PagedCardGrid(gridRoot, ctx, { pinning: true, storeKey: "timeseries" });
  const kind = el(
    "select",
    { class: "kind-filter", "aria-label": "Kind" },
    el("option", { value: "all", text: "All kinds" }),
    el("option", { value: "scalars", text: "Scalars" }),
    el("option", { value: "histograms", text: "Histograms" }),
    el("option", { value: "images", text: "Images" }),
  );
  kind.value = grid.kind;
  const dl = downloadAllLink(ctx, () => grid.tagFilter);
  const filter = tagFilterBox(grid.tagFilter, () => kind.value, (pattern) => {
    grid.setFilter(pattern, kind.value);
    dl.update();
  }, "ts-tag-list");
  kind.addEventListener("change", () => grid.setFilter(grid.tagFilter, kind.value));
  clear(root).append(
    el(
      "div",
      { class: "toolbar" },
      el("div", { class: "controls" }, filter.input, filter.datalist, kind),
      chartControls(ctx.settings, el),
      groupControls(ctx),
      dl.link,
    ),
    gridRoot,
  );
  const onRuns = () => dl.update();
  ctx.runs.addEventListener("change", onRuns);
  grid.search();
  return {
    refresh: () => grid.refresh(),
    destroy() {
      ctx.runs.removeEventListener("change", onRuns);
      grid.destroy();
    },
  };
}
