// The Audio dashboard: per run and tag, a player per step (newest first) with its label.
import { getJSON, url } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { el, clear, safeFragment } from "../../util.js";

export function mount(root, ctx) {
  const makeCard = (run, tag, info, color) => {
    const frame = cardFrame("audio", run, tag, color, info);
    const samples = Math.max(1, info.samples || 1);
    return {
      element: frame.element,
      async load() {
        try {
          const bySample = await Promise.all(
            Array.from({ length: samples }, (_, i) => getJSON("data/plugin/audio/audio", { run, tag, sample: i })),
          );
          const steps = new Map();
          bySample.forEach((entries, i) => {
            for (const e of entries) {
              if (!steps.has(e.step)) steps.set(e.step, []);
              steps.get(e.step).push([i, e]);
            }
          });
          const rows = Array.from(steps.keys())
            .sort((a, b) => b - a)
            .map((step) =>
              el(
                "div",
                { class: "audio-step", dataset: { step: String(step) } },
                el("div", { class: "step-head", text: `step ${step}` }),
                ...steps.get(step).map(([i, e]) =>
                  el(
                    "div",
                    { class: "audio-sample" },
                    el("audio", {
                      controls: true,
                      preload: "none",
                      src: url("data/plugin/audio/individualAudio", { blob_key: e.blob_key }),
                      "aria-label": `${tag} ${run} step ${step} sample ${i}`,
                    }),
                    e.label ? el("div", { class: "text-html audio-label" }, safeFragment(e.label)) : null,
                  ),
                ),
              ),
            );
          clear(frame.body).append(...rows);
          frame.note.textContent = rows.length ? "" : "No clips.";
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
  const grid = new RunTagGrid(root, ctx, { storeKey: "audio", tagsRoute: "data/plugin/audio/tags", makeCard });
  grid.refresh().catch(ctx.showError);
  return { refresh: () => grid.refresh(), destroy: () => grid.destroy() };
}
