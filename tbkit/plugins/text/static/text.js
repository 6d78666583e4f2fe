// The Text dashboard: per run and tag, a step list (newest first); choosing a step shows its
// rendered Markdown / table. The HTML was sanitized by the server and is scrubbed again here.
import { getJSON } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { el, clear, safeFragment } from "../../util.js";

export function mount(root, ctx) {
  const makeCard = (run, tag, info, color) => {
    const frame = cardFrame("text", run, tag, color, info);
    const stepSelect = el("select", { class: "step-select", "aria-label": "step" });
    const all = el("option", { value: "all", text: "All steps" });
    const content = el("div", { class: "text-steps" });
    frame.element.querySelector(".card-header").append(stepSelect);
    frame.body.append(content);
    let entries = [];
    const show = () => {
      const choice = stepSelect.value;
      const chosen = choice === "all" ? entries : entries.filter((e) => String(e.step) === choice);
      clear(content).append(
        ...chosen.map((e) =>
          el(
            "div",
            { class: "text-step", dataset: { step: String(e.step) } },
            el("div", { class: "step-head", text: `step ${e.step}` + (e.shape && e.shape.length ? ` · shape [${e.shape.join(", ")}]` : "") }),
            el("div", { class: "text-html" }, safeFragment(e.html)),
          ),
        ),
      );
    };
    stepSelect.addEventListener("change", show);
    return {
      element: frame.element,
      async load() {
        try {
          entries = (await getJSON("data/plugin/text/text", { run, tag })).slice().sort((a, b) => b.step - a.step);
          const keep = stepSelect.value;
          clear(stepSelect).append(all, ...entries.map((e) => el("option", { value: String(e.step), text: `step ${e.step}` })));
          stepSelect.value = entries.some((e) => String(e.step) === keep) ? keep : "all";
          frame.note.textContent = entries.length ? "" : "No text.";
          show();
          frame.element.dataset.ready = "1";
        } catch (err) {
          frame.note.textContent = "Could not load: " + err.message;
        }
      },
      recolor(c) {
        frame.swatch.style.background = c;
      },
    };
  };
  const grid = new RunTagGrid(root, ctx, { storeKey: "text", tagsRoute: "data/plugin/text/tags", makeCard });
  grid.refresh().catch(ctx.showError);
  return { refresh: () => grid.refresh(), destroy: () => grid.destroy() };
}
