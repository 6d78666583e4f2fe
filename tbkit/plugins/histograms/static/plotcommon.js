// Plotly helpers shared by the Histograms and Distributions dashboards.
import { cssVar } from "../../util.js";

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
