// The Scalars dashboard: one chart per scalar tag, grouped by tag prefix. The tag filter is a
// regex searched on the server; the grid holds only the cards near the screen.
import { loadStyle } from "../../api.js";
import { chartControls } from "../../settings.js";
import { groupControls } from "../../groups.js";
import { el, clear } from "../../util.js";
import { PagedCardGrid } from "../timeseries/pagedgrid.js";
import { downloadAllLink, tagFilterBox } from "../timeseries/timeseries.js";

export function mount(root, ctx) {
  loadStyle(new URL("../timeseries/timeseries.css", import.meta.url)).catch(ctx.showError);
  const gridRoot = el("div");
  const grid = new PagedCardGrid(gridRoot, ctx, { pinning: false, storeKey: "scalars", kind: "scalars" });
  const dl = downloadAllLink(ctx, () => grid.tagFilter);
  const filter = tagFilterBox(grid.tagFilter, () => "scalars", (pattern) => {
    grid.setFilter(pattern, "scalars");
    dl.update();
  }, "scalars-tag-list");
  clear(root).append(
    el(
      "div",
      { class: "toolbar" },
      el("div", { class: "controls" }, filter.input, filter.datalist),
      chartControls(ctx.settings, el),
      groupControls(ctx),
      dl.link,
    ),
    gridRoot,
  );
  grid.search();
  return { refresh: () => grid.refresh(), destroy: () => grid.destroy() };
}
