// The landing page: one card per tag for scalars, histograms and images together.
import { getJSON, url } from "./api.js";
import { CardGrid } from "./cardgrid.js";
import { chartControls } from "./settings.js";
import { groupControls } from "./groups.js";
import { el, clear, compileFilter, debounce, escapeRegex } from "./util.js";

/** Flatten the timeseries tags answer into [{kind, tag, runs}]. */
export function tagEntries(answer) {
  const out = [];
  for (const [tag, runs] of Object.entries(answer.scalars || {})) out.push({ kind: "scalars", tag, runs });
  for (const [tag, runs] of Object.entries(answer.histograms || {})) out.push({ kind: "histograms", tag, runs });
  for (const [tag, info] of Object.entries(answer.images || {})) out.push({ kind: "images", tag, runs: info.runs || [] });
  return out;
}

/** A link to the zip of every visible run × scalar tag as CSV. */
export function downloadAllLink(ctx, tagFilterFn) {
  const link = el("a", { class: "button download-all", download: "", text: "Download all (zip)", title: "Every visible run × scalar tag as CSV" });
  const update = () => {
    const runs = ctx.runs.active();
    const runsRe = runs.length ? "^(" + runs.map(escapeRegex).join("|") + ")$" : "^$";
    link.href = url("data/plugin/scalars/download_all", { runs: runsRe, tags: tagFilterFn() || ".*" });
  };
  link.addEventListener("mousedown", update);
  link.addEventListener("focus", update);
  update();
  return { link, update };
}

/** Mount the time-series dashboard into `root`. */
export function mount(root, ctx) {
  const grid0 = el("div");
  const tagInput = el("input", {
    type: "search",
    class: "tag-filter",
    placeholder: "Filter tags (regex)",
    "aria-label": "Filter tags (regex)",
    list: "ts-tag-list",
    spellcheck: "false",
  });
  const datalist = el("datalist", { id: "ts-tag-list" });
  const kind = el(
    "select",
    { class: "kind-filter", "aria-label": "Kind" },
    el("option", { value: "all", text: "All kinds" }),
    el("option", { value: "scalars", text: "Scalars" }),
    el("option", { value: "histograms", text: "Histograms" }),
    el("option", { value: "images", text: "Images" }),
  );
  const grid = new CardGrid(grid0, ctx, { pinning: true, storeKey: "timeseries" });
  tagInput.value = grid.tagFilter;
  kind.value = grid.kind;
  const dl = downloadAllLink(ctx, () => grid.tagFilter);
  const apply = () => {
    tagInput.classList.toggle("invalid", compileFilter(tagInput.value).invalid);
    grid.setFilter(tagInput.value, kind.value);
    dl.update();
  };
  tagInput.addEventListener("input", debounce(apply, 150));
  kind.addEventListener("change", apply);
  clear(root).append(
    el(
      "div",
      { class: "toolbar" },
      el("div", { class: "controls" }, tagInput, datalist, kind),
      chartControls(ctx.settings, el),
      groupControls(ctx),
      dl.link,
    ),
    grid0,
  );

  const refresh = async () => {
    const answer = await getJSON("data/plugin/timeseries/tags");
    grid.setTags(tagEntries(answer));
    clear(datalist).append(...grid.tags().map((t) => el("option", { value: t })));
  };
  const onRuns = () => dl.update();
  ctx.runs.addEventListener("change", onRuns);
  refresh().catch(ctx.showError);
  return {
    refresh,
    destroy() {
      ctx.runs.removeEventListener("change", onRuns);
      grid.destroy();
    },
  };
}
