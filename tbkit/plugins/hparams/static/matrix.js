// The scatter-plot matrix (plotly, SVG scatter subplots: its WebGL splom needs `new Function`,
// which the page's Content-Security-Policy forbids): one column per hyperparameter axis, one row
// per metric axis, one point per shown session, coloured like the parallel coordinates.
import { cssVar, plotlyText } from "../../util.js";

export const CONFIG = { displayModeBar: false, responsive: true, displaylogo: false };

/** The figure: {data, layout}; each point's customdata is its index in `sessions`. */
export function matrixFigure(hAxes, mAxes, sessions, colorAxis) {
  const text = cssVar("--chart-text") || "#555";
  const grid = cssVar("--chart-grid") || "#e6e8eb";
  const layout = {
    margin: { l: 64, r: 16, t: 8, b: 48 },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { color: text, size: 10, family: "system-ui, sans-serif" },
    hovermode: "closest",
    showlegend: false,
    grid: { rows: mAxes.length, columns: hAxes.length, pattern: "coupled", xgap: 0.06, ygap: 0.1 },
  };
  const axis = (a, title) => ({
    gridcolor: grid,
    zerolinecolor: grid,
    linecolor: grid,
    showline: true,
    range: padded(a.range),
    tickvals: a.tickvals,
    ticktext: a.ticktext && a.ticktext.map(plotlyText),
    tickfont: { size: 9 },
    title: title ? { text: plotlyText(a.label), font: { size: 10 }, standoff: 4 } : undefined,
  });
  hAxes.forEach((a, i) => (layout[`xaxis${i ? i + 1 : ""}`] = axis(a, true)));
  mAxes.forEach((a, j) => (layout[`yaxis${j ? j + 1 : ""}`] = axis(a, true)));
  const marker = { size: 6, opacity: 0.8, line: { width: 0 } };
  if (colorAxis) {
    Object.assign(marker, { color: sessions.map(colorAxis.plot), colorscale: "Viridis", cmin: colorAxis.range[0], cmax: colorAxis.range[1] });
  } else marker.color = cssVar("--accent") || "#f57c00";
  const names = sessions.map((s) => plotlyText(s.name));
  const index = sessions.map((_, k) => k);
  const data = [];
  mAxes.forEach((m, j) => {
    const y = sessions.map(m.plot);
    hAxes.forEach((h, i) => {
      data.push({
        type: "scatter",
        mode: "markers",
        x: sessions.map(h.plot),
        y,
        xaxis: `x${i ? i + 1 : ""}`,
        yaxis: `y${j ? j + 1 : ""}`,
        text: names,
        customdata: index,
        hoverinfo: "text",
        marker,
      });
    });
  });
  return { data, layout };
}

function padded([lo, hi]) {
  const p = (hi - lo) * 0.05 || 0.5;
  return [lo - p, hi + p];
}
