// The Distributions dashboard (plotly): TensorBoard's nine percentile lines per step drawn
// as nested bands (min–max, 7–93 %, 16–84 %, 31–69 %) around the median.
import { getJSON } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { el } from "../../util.js";
import { CONFIG, baseLayout, followTheme, rgba } from "./plotcommon.js";

const BANDS = [
  [0, 8, 0.12],
  [1, 7, 0.2],
  [2, 6, 0.3],
  [3, 5, 0.42],
];

function traces(dist, color) {
  const steps = dist.map((d) => d.step);
  const line = (k) => dist.map((d) => d.values[k]);
  const out = [];
  for (const [lo, hi, alpha] of BANDS) {
    out.push({ type: "scatter", mode: "lines", x: steps, y: line(hi), line: { width: 0, color }, hoverinfo: "skip" });
    out.push({
      type: "scatter",
      mode: "lines",
      x: steps,
      y: line(lo),
      fill: "tonexty",
      fillcolor: rgba(color, alpha),
      line: { width: 0, color },
      hoverinfo: "skip",
    });
  }
  out.push({
    type: "scatter",
    mode: "lines",
    x: steps,
    y: line(4),
    line: { width: 1.5, color },
    customdata: dist.map((d) => d.values),
    hovertemplate: "step %{x}<br>median %{y:.4g}<br>min %{customdata[0]:.4g} max %{customdata[8]:.4g}<extra></extra>",
  });
  return out;
}

export function mount(root, ctx) {
  const plots = new Set();
  const plotlyReady = ctx.loadPlotly();
  const makeCard = (run, tag, info, color) => {
    const frame = cardFrame("distribution", run, tag, color, info);
    const plot = el("div", { class: "plot" });
    frame.body.append(plot);
    let data = null;
    let col = color;
    const draw = async () => {
      const Plotly = await plotlyReady;
      if (!data) return;
      if (!data.length) {
        frame.note.textContent = "No data.";
        return;
      }
      await Plotly.react(plot, traces(data, col), baseLayout({ xaxis: { title: { text: "step", font: { size: 10 } } } }), CONFIG);
      plots.add(plot);
      plot.dataset.ready = "1";
      plot.dataset.steps = String(data.length);
    };
    return {
      element: frame.element,
      async load() {
        try {
          data = await getJSON("data/plugin/histograms/distributions", { run, tag });
          frame.note.textContent = "";
          await draw();
        } catch (err) {
          frame.note.textContent = "Could not load: " + err.message;
        }
      },
      recolor(c) {
        col = c;
        frame.swatch.style.background = c;
        draw();
      },
      destroy() {
        plots.delete(plot);
        if (window.Plotly) window.Plotly.purge(plot);
      },
    };
  };
  const grid = new RunTagGrid(root, ctx, { storeKey: "distributions", tagsRoute: "data/plugin/histograms/tags", makeCard });
  const stopTheme = followTheme(() => plots);
  plotlyReady.catch(ctx.showError);
  grid.refresh().catch(ctx.showError);
  return {
    refresh: () => grid.refresh(),
    destroy() {
      stopTheme();
      grid.destroy();
    },
  };
}
