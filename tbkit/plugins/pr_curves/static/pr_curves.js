// The PR Curves dashboard (plotly, 2-D SVG): per run and tag, the precision-recall curve of
// the step the card's slider picks; the tooltip gives the threshold and TP/FP/TN/FN there.
import { el } from "../../util.js";
import { baseLayout, mountPlotlyGrid, plotlyCard } from "../histograms/plotcommon.js";

const HOVER =
  "threshold %{customdata[0]:.3f}<br>precision %{y:.4f}<br>recall %{x:.4f}" +
  "<br>TP %{customdata[1]} · FP %{customdata[2]}<br>TN %{customdata[3]} · FN %{customdata[4]}<extra></extra>";

function curveTrace(c, color) {
  return {
    type: "scatter",
    mode: "lines",
    x: c.recall,
    y: c.precision,
    customdata: c.thresholds.map((t, i) => [t, c.tp[i], c.fp[i], c.tn[i], c.fn[i]]),
    hovertemplate: HOVER,
    line: { color, width: 2, shape: "linear" },
  };
}

/** One card: a plotly card (shared helper) with a step slider under the plot. */
function makeCard(run, tag, info, color, plots, plotlyReady) {
  const stepInput = el("input", { type: "range", class: "pr-step", min: "0", max: "0", step: "1", value: "0", "aria-label": "step" });
  const stepLabel = el("span", { class: "step-label num" });
  let steps = [];
  let followLast = true;
  const card = plotlyCard({
    kind: "pr-curve",
    run,
    tag,
    info,
    color,
    route: "data/plugin/pr_curves/pr_curves",
    query: {},
    plots,
    plotlyReady,
    figure: (data, col) => {
      const current = steps[Number(stepInput.value)];
      steps = data.map((c) => c.step);
      stepInput.max = String(Math.max(0, steps.length - 1));
      stepInput.hidden = steps.length < 2;
      const keep = steps.indexOf(current);
      const index = followLast || keep < 0 ? steps.length - 1 : keep;
      stepInput.value = String(index);
      const c = data[index];
      stepLabel.textContent = `step ${c.step} (${index + 1}/${steps.length})`;
      card.element.dataset.step = String(c.step);
      const layout = baseLayout({
        xaxis: { range: [0, 1.02], title: { text: "recall", font: { size: 10 } } },
        yaxis: { range: [0, 1.02], title: { text: "precision", font: { size: 10 } } },
      });
      return { traces: [curveTrace(c, col)], layout, dataset: { curves: "1", points: String(c.recall.length), step: String(c.step) } };
    },
  });
  stepInput.addEventListener("input", () => {
    followLast = Number(stepInput.value) === steps.length - 1;
    card.redraw();
  });
  card.element.querySelector(".card-body").append(el("div", { class: "step-row" }, stepInput, stepLabel));
  return card;
}

export function mount(root, ctx) {
  const plots = new Set();
  const plotlyReady = ctx.loadPlotly();
  const { api } = mountPlotlyGrid(
    root,
    ctx,
    {
      storeKey: "pr_curves",
      tagsRoute: "data/plugin/pr_curves/tags",
      makeCard: (run, tag, info, color) => makeCard(run, tag, info, color, plots, plotlyReady),
    },
    plots,
    plotlyReady,
  );
  return api;
}
