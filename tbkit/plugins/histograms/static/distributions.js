// The Distributions dashboard (plotly): TensorBoard's nine percentile lines per step drawn
// as nested bands (min–max, 7–93 %, 16–84 %, 31–69 %) around the median.
import { baseLayout, mountPlotlyGrid, plotlyCard, rgba } from "./plotcommon.js";

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
  const layout = () => baseLayout({ xaxis: { title: { text: "step", font: { size: 10 } } } });
  const makeCard = (run, tag, info, color) =>
    plotlyCard({
      kind: "distribution",
      run,
      tag,
      info,
      color,
      route: "data/plugin/histograms/distributions",
      query: {},
      plots,
      plotlyReady,
      figure: (data, col) => ({ traces: traces(data, col), layout: layout() }),
    });
  return mountPlotlyGrid(root, ctx, { storeKey: "distributions", makeCard }, plots, plotlyReady).api;
}
