// The Scalars dashboard: a grid of charts, one per scalar tag, grouped by tag prefix.
import { getJSON } from "../../api.js";
import { CardGrid } from "../../cardgrid.js";
import { chartControls } from "../../settings.js";
import { groupControls } from "../../groups.js";
import { downloadAllLink } from "../../timeseries.js";
import { el, clear, compileFilter, debounce } from "../../util.js";

/** {run: {tag: info}} -> [{kind: "scalars", tag, runs}] */
function entries(answer) {
  const byTag = new Map();
  for (const [run, tags] of Object.entries(answer)) {
    for (const tag of Object.keys(tags)) {
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(run);
    }
  }
  return Array.from(byTag, ([tag, runs]) => ({ kind: "scalars", tag, runs }));
}

export function mount(root, ctx) {
  const gridRoot = el("div");
  const grid = new CardGrid(gridRoot, ctx, { pinning: false, storeKey: "scalars" });
  const tagInput = el("input", {
    type: "search",
    class: "tag-filter",
    placeholder: "Filter tags (regex)",
    "aria-label": "Filter tags (regex)",
    value: grid.tagFilter,
    spellcheck: "false",
  });
  const dl = downloadAllLink(ctx, () => grid.tagFilter);
  tagInput.addEventListener(
    "input",
    debounce(() => {
      tagInput.classList.toggle("invalid", compileFilter(tagInput.value).invalid);
      grid.setFilter(tagInput.value, "scalars");
      dl.update();
    }, 150),
  );
  clear(root).append(
    el(
      "div",
      { class: "toolbar" },
      el("div", { class: "controls" }, tagInput),
      chartControls(ctx.settings, el),
      groupControls(ctx),
      dl.link,
    ),
    gridRoot,
  );
  const refresh = async () => grid.setTags(entries(await getJSON("data/plugin/scalars/tags")));
  refresh().catch(ctx.showError);
  return { refresh, destroy: () => grid.destroy() };
}
