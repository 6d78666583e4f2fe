// The Audio dashboard: per run and tag, a player per step (newest first) with its label.
import { getJSON, url } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { el, clear, safeFragment } from "../../util.js";

/** A clip's length as "0.10 s", "12.5 s" or "3:07" (from the WAV header, known before playing). */
export function clipLength(seconds) {
  if (!(seconds >= 0)) return "";
  if (seconds < 10) return seconds.toFixed(2) + " s";
  if (seconds < 60) return seconds.toFixed(1) + " s";
  const m = Math.floor(seconds / 60);
  const sec = Math.floor(seconds % 60);
  return `${m}:${String(sec).padStart(2, "0")}`;
}

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
                    { class: "audio-sample", dataset: { duration: e.duration == null ? "" : String(e.duration) } },
                    el("audio", {
                      controls: true,
                      preload: "metadata", // the player shows the clip's length before it plays
                      src: url("data/plugin/audio/individualAudio", { blob_key: e.blob_key }),
                      "aria-label": `${tag} ${run} step ${step} sample ${i}`,
                    }),
                    el("div", { class: "step-head audio-meta" },
                      e.duration == null ? null : el("span", { class: "audio-duration num", text: clipLength(e.duration) }),
                      e.sample_rate ? el("span", { class: "audio-rate", text: `${e.duration == null ? "" : " · "}${e.sample_rate} Hz` }) : null),
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
