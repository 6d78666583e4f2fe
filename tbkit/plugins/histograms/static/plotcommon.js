// Plotly helpers shared by the Histograms and Distributions dashboards.
import { getJSON } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { cssVar, el } from "../../util.js";

/** "#rrggbb" + alpha -> "rgba(...)". */
export function rgba(hex, alpha) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(hex));
  if (!m) return `rgba(128,128,128,${alpha})`;
  return `rgba(${parseInt(m[1], 16)},${parseInt(m[2], 16)},${parseInt(m[3], 16)},${alpha})`;
}

/** A compact plotly layout in the page's theme. */
export function baseLayout(extra = {}) {
  const text = cssVar("--chart-text") || "#555";
  const grid = cssVar("--chart-grid") || "#e6e8eb";
  const axis = { gridcolor: grid, zerolinecolor: grid, linecolor: grid, tickfont: { size: 10 }, automargin: true };
  return {
    margin: { l: 44, r: 10, t: 6, b: 30 },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { color: text, size: 11, family: "system-ui, sans-serif" },
    showlegend: false,
    hovermode: "closest",
    hoverlabel: { font: { size: 11 } },
    ...extra,
    xaxis: { ...axis, ...(extra.xaxis || {}) },
    yaxis: { ...axis, ...(extra.yaxis || {}) },
  };
}

export const CONFIG = { displayModeBar: false, responsive: true, displaylogo: false };

/** Keep plots in the page's theme: re-layout on theme changes. Returns a function to stop. */
export function followTheme(plots) {
  const onTheme = () => {
    const layout = baseLayout();
    for (const div of plots()) {
      if (!div.isConnected || !div.data) continue;
      window.Plotly.relayout(div, {
        "font.color": layout.font.color,
        "xaxis.gridcolor": layout.xaxis.gridcolor,
        "yaxis.gridcolor": layout.yaxis.gridcolor,
        "xaxis.zerolinecolor": layout.xaxis.gridcolor,
        "yaxis.zerolinecolor": layout.yaxis.gridcolor,
        "xaxis.linecolor": layout.xaxis.gridcolor,
        "yaxis.linecolor": layout.yaxis.gridcolor,
      });
    }
  };
  window.addEventListener("tbkit-theme", onTheme);
  return () => window.removeEventListener("tbkit-theme", onTheme);
}

/**
 * A run x tag card holding one plotly figure. It fetches `route` with `query`, then draws
 * `figure(data, color)` = {traces, layout, dataset} once plotly is loaded; it recolours,
 * redraws (e.g. after a mode change) and frees its plot. `plots` collects the drawn plots.
 */
export function plotlyCard({ kind, run, tag, info, color, route, query, plots, plotlyReady, figure }) {
  const frame = cardFrame(kind, run, tag, color, info);
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
    const { traces, layout, dataset = {} } = figure(data, col);
    await Plotly.react(plot, traces, layout, CONFIG);
    plots.add(plot);
    Object.assign(plot.dataset, { ready: "1", steps: String(data.length), ...dataset });
  };
  return {
    element: frame.element,
    async load() {
      try {
        data = await getJSON(route, { run, tag, ...query });
        frame.note.textContent = "";
        await draw();
      } catch (err) {
        frame.note.textContent = "Could not load: " + err.message;
      }
    },
    redraw: draw,
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
}

/** The grid of plotly cards of a dashboard, following the theme; returns {grid, api}. */
export function mountPlotlyGrid(root, ctx, options, plots, plotlyReady) {
  const grid = new RunTagGrid(root, ctx, { tagsRoute: "data/plugin/histograms/tags", ...options });
  const stopTheme = followTheme(() => plots);
  plotlyReady.catch(ctx.showError);
  grid.refresh().catch(ctx.showError);
  const api = {
    refresh: () => grid.refresh(),
    destroy() {
      stopTheme();
      grid.destroy();
    },
  };
  return { grid, api };
}
