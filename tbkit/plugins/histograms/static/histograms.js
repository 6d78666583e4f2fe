// The Histograms dashboard (plotly): per run and tag, the histograms over steps, in offset
// mode (a ridgeline, newest in front) or overlay mode (every step on one axis).
import { el, store, formatValue } from "../../util.js";
import { baseLayout, mountPlotlyGrid, plotlyCard, rgba } from "./plotcommon.js";

const POINTS = 50;

function offsetTraces(hists, color) {
  const n = hists.length;
  let cmax = 0;
  for (const h of hists) for (const b of h.buckets) cmax = Math.max(cmax, b[2]);
  const s0 = hists[0].step;
  const s1 = hists[n - 1].step;
  const height = n > 1 ? ((s1 - s0) / (n - 1)) * 2.5 : 1; // a ridge overlaps ~2.5 rows
  return hists.map((h, i) => {
    const xs = [];
    const ys = [];
    const text = [];
    const first = h.buckets[0];
    const last = h.buckets[h.buckets.length - 1];
    if (first) {
      xs.push(first[0]);
      ys.push(h.step);
      text.push("");
    }
    for (const [l, r, c] of h.buckets) {
      xs.push((l + r) / 2);
      ys.push(h.step - (cmax > 0 ? (c / cmax) * height : 0));
      text.push(`step ${h.step}<br>[${formatValue(l)}, ${formatValue(r)}): ${formatValue(c)}`);
    }
    if (last) {
      xs.push(last[1]);
      ys.push(h.step);
      text.push("");
    }
    const frac = n > 1 ? i / (n - 1) : 1;
    return {
      type: "scatter",
      mode: "lines",
      x: xs,
      y: ys,
      text,
      hoverinfo: "text",
      fill: "toself",
      fillcolor: rgba(color, 0.08 + 0.3 * frac),
      line: { color: rgba(color, 0.35 + 0.65 * frac), width: 1 },
    };
  });
}

function overlayTraces(hists, color) {
  const n = hists.length;
  return hists.map((h, i) => {
    const frac = n > 1 ? i / (n - 1) : 1;
    return {
      type: "scatter",
      mode: "lines",
      x: h.buckets.map((b) => (b[0] + b[1]) / 2),
      y: h.buckets.map((b) => b[2]),
      name: `step ${h.step}`,
      hovertemplate: `step ${h.step}<br>%{x:.4g}: %{y:.4g}<extra></extra>`,
      line: { color: rgba(color, 0.15 + 0.85 * frac), width: i === n - 1 ? 2 : 1 },
    };
  });
}

export function mount(root, ctx) {
  let mode = store.get("histograms.mode", "offset");
  const plots = new Set();
  const select = el(
    "select",
    { class: "hist-mode", "aria-label": "Histogram mode" },
    el("option", { value: "offset", text: "Offset" }),
    el("option", { value: "overlay", text: "Overlay" }),
  );
  select.value = mode;
  const plotlyReady = ctx.loadPlotly();

  const makeCard = (run, tag, info, color) =>
    plotlyCard({
      kind: "histogram",
      run,
      tag,
      info,
      color,
      route: "data/plugin/histograms/histograms",
      query: { points: POINTS },
      plots,
      plotlyReady,
      figure: (data, col) => {
        const offset = mode === "offset";
        const layout = baseLayout({
          xaxis: {},
          yaxis: offset ? { autorange: "reversed", title: { text: "step", font: { size: 10 } } } : {},
        });
        const traces = offset ? offsetTraces(data, col) : overlayTraces(data, col);
        return { traces, layout, dataset: { mode } };
      },
    });

  const { grid, api } = mountPlotlyGrid(
    root,
    ctx,
    { storeKey: "histograms", makeCard, controls: [el("label", { class: "inline" }, "Mode ", select)] },
    plots,
    plotlyReady,
  );
  select.addEventListener("change", () => {
    mode = select.value;
    store.set("histograms.mode", mode);
    for (const card of grid.cards.values()) if (card.redraw) card.redraw();
  });
  return api;
}
