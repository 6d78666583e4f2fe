// The Images dashboard: per run and tag, a step slider, every sample of the chosen step,
// an actual-size toggle and brightness/contrast (CSS filters on the page, not the data).
import { getJSON, url } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { el, clear, store } from "../../util.js";

export function mount(root, ctx) {
  const view = { actual: store.get("images.actual", false), brightness: store.get("images.brightness", 1), contrast: store.get("images.contrast", 1) };
  const applyFilters = () => {
    root.style.setProperty("--img-filter", `brightness(${view.brightness}) contrast(${view.contrast})`);
    root.classList.toggle("actual-size", view.actual);
  };
  const actual = el("input", { type: "checkbox", class: "actual-size-toggle", checked: view.actual });
  actual.addEventListener("change", () => {
    view.actual = actual.checked;
    store.set("images.actual", view.actual);
    applyFilters();
  });
  const slider = (key, label) => {
    const input = el("input", { type: "range", min: "0", max: "2", step: "0.05", value: String(view[key]), class: key, "aria-label": label });
    input.addEventListener("input", () => {
      view[key] = Number(input.value);
      store.set("images." + key, view[key]);
      applyFilters();
    });
    input.addEventListener("dblclick", () => {
      input.value = "1";
      input.dispatchEvent(new Event("input"));
    });
    return el("label", { class: "inline", title: "Double-click to reset" }, label + " ", input);
  };

  const makeCard = (run, tag, info, color) => {
    const frame = cardFrame("image", run, tag, color, info);
    const samples = Math.max(1, info.samples || 1);
    const stepInput = el("input", { type: "range", min: "0", max: "0", step: "1", value: "0", "aria-label": "step" });
    const stepLabel = el("span", { class: "step-label num" });
    const gallery = el("div", { class: "samples" });
    frame.body.append(gallery, el("div", { class: "step-row" }, stepInput, stepLabel));
    let steps = [];
    let bySample = [];
    const show = () => {
      const step = steps[Number(stepInput.value)];
      stepLabel.textContent = step === undefined ? "" : `step ${step} (${Number(stepInput.value) + 1}/${steps.length})`;
      stepLabel.title = stepLabel.textContent;
      const figs = [];
      bySample.forEach((entries, i) => {
        const e = entries.find((x) => x.step === step);
        if (!e) return;
        const img = el("img", {
          class: "media-img",
          src: url("data/plugin/images/individualImage", { blob_key: e.blob_key }),
          alt: `${tag} ${run} step ${step} sample ${i}`,
          width: e.width,
          height: e.height,
          decoding: "async",
        });
        figs.push(el("figure", {}, img, samples > 1 ? el("figcaption", { text: `sample ${i + 1}` }) : null));
      });
      clear(gallery).append(...figs);
      frame.element.dataset.step = String(step);
    };
    stepInput.addEventListener("input", show);
    return {
      element: frame.element,
      async load() {
        try {
          bySample = await Promise.all(
            Array.from({ length: samples }, (_, i) => getJSON("data/plugin/images/images", { run, tag, sample: i })),
          );
          const all = new Set();
          for (const entries of bySample) for (const e of entries) all.add(e.step);
          const atEnd = Number(stepInput.value) === steps.length - 1 || !steps.length;
          const current = steps[Number(stepInput.value)];
          steps = Array.from(all).sort((a, b) => a - b);
          stepInput.max = String(Math.max(0, steps.length - 1));
          stepInput.hidden = steps.length < 2;
          const keep = steps.indexOf(current);
          stepInput.value = String(atEnd || keep < 0 ? steps.length - 1 : keep);
          frame.note.textContent = steps.length ? "" : "No images.";
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

  applyFilters();
  const grid = new RunTagGrid(root, ctx, {
    storeKey: "images",
    tagsRoute: "data/plugin/images/tags",
    makeCard,
    controls: [el("label", { class: "inline" }, actual, "Actual size"), slider("brightness", "Brightness"), slider("contrast", "Contrast")],
  });
  grid.refresh().catch(ctx.showError);
  return { refresh: () => grid.refresh(), destroy: () => grid.destroy() };
}
