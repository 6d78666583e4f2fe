// The Projector's one plotly figure: an SVG scatter in 2-D, scatter3d (one WebGL context) in 3-D.
// Not scattergl: its regl shaders are compiled with new Function(), which the server's CSP forbids.
import { cssVar, plotlyText } from "../../util.js";
import { markerColors } from "./colors.js";

export const CONFIG = { displaylogo: false, responsive: true, scrollZoom: true, modeBarButtonsToRemove: ["toImage", "lasso2d", "select2d"] };

/**
 * Build {traces, layout, pointsOf} for the view.
 * view: {coords: Float32Array (rows of `stride`), stride, axes: [a, b, c?], idx (Int32Array|null), n,
 *        scheme, colorValues, labels(i), matches: Set|null, selected, neighbors: [indices], dims,
 *        images: [{source, x, y}] | null, imageSize}
 * pointsOf[t] maps trace t's point number to the embedding index.
 */
export function figure(view) {
  const { coords, stride, axes, idx, n, dims } = view;
  const count = idx ? idx.length : n;
  const three = dims === 3;
  const type = three ? "scatter3d" : "scatter";
  const rowOf = new Map();
  const columns = axes.slice(0, dims).map((a) => {
    const out = new Float32Array(count);
    for (let k = 0; k < count; k++) out[k] = a < stride ? coords[k * stride + a] : 0;
    return out;
  });
  for (let k = 0; k < count; k++) rowOf.set(idx ? idx[k] : k, k);
  const pick = (indices) => {
    const rows = indices.filter((i) => rowOf.has(i)).map((i) => rowOf.get(i));
    const at = (c) => rows.map((r) => columns[c][r]);
    return { rows, xyz: three ? { x: at(0), y: at(1), z: at(2) } : { x: at(0), y: at(1) }, kept: rows.map((r) => (idx ? idx[r] : r)) };
  };
  const text = new Array(count);
  for (let k = 0; k < count; k++) text[k] = plotlyText(view.labels(idx ? idx[k] : k));
  const dimmed = view.matches !== null || view.selected !== null;
  const size = three ? 2.5 : 5;
  const base = {
    type,
    mode: "markers",
    name: "points",
    x: columns[0],
    y: columns[1],
    ...(three ? { z: columns[2] } : {}),
    hovertext: text,
    hovertemplate: "%{hovertext}<extra></extra>",
    marker: { size, opacity: dimmed ? 0.3 : 0.85, ...markerColors(view.scheme, view.colorValues, idx, n) },
  };
  const traces = [base];
  const pointsOf = [(p) => (idx ? idx[p] : p)];
  const fg = cssVar("--fg") || "#222";
  const accent = cssVar("--accent") || "#f57c00";
  const overlay = (name, indices, marker) => {
    const { xyz, kept } = pick(indices);
    const hover = kept.map((i) => plotlyText(view.labels(i)));
    const m = typeof marker === "function" ? marker(kept) : marker;
    traces.push({ type, mode: "markers", name, ...xyz, hovertext: hover, hovertemplate: "%{hovertext}<extra></extra>", marker: m });
    pointsOf.push((p) => kept[p]);
  };
  if (view.matches !== null) {
    overlay("matches", Array.from(view.matches), (kept) => ({
      size: size + 3,
      line: { color: fg, width: 1 },
      opacity: 1,
      ...markerColors(view.scheme, view.colorValues, kept, n),
    }));
  }
  if (view.selected !== null) {
    overlay("neighbors", view.neighbors, { size: size + 5, color: accent, symbol: "circle-open", line: { color: accent, width: 2 }, opacity: 1 });
    overlay("selected", [view.selected], { size: size + 8, color: accent, line: { color: fg, width: 2 }, opacity: 1 });
  }
  const text2 = cssVar("--chart-text") || "#555";
  const grid = cssVar("--chart-grid") || "#e6e8eb";
  const axis = (title) => ({ title: { text: plotlyText(title), font: { size: 11 } }, gridcolor: grid, zerolinecolor: grid, linecolor: grid, tickfont: { size: 10 } });
  const layout = {
    margin: { l: 40, r: 10, t: 10, b: 36 },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { color: text2, size: 11, family: "system-ui, sans-serif" },
    showlegend: false,
    hovermode: "closest",
    uirevision: view.revision,
  };
  if (three) {
    // No tick labels in 3-D: WebGL text is triangulated glyph by glyph, the slowest part of a first draw.
    const axis3 = (title) => ({ ...axis(title), showticklabels: false, showspikes: false });
    layout.scene = {
      xaxis: axis3(view.axisTitles[0]),
      yaxis: axis3(view.axisTitles[1]),
      zaxis: axis3(view.axisTitles[2]),
      aspectmode: "cube",
      dragmode: "orbit",
    };
  } else {
    layout.xaxis = axis(view.axisTitles[0]);
    layout.yaxis = { ...axis(view.axisTitles[1]), scaleanchor: "x", scaleratio: 1 };
    layout.dragmode = "pan";
    if (view.images && view.images.length) {
      layout.images = view.images.map((im) => ({
        source: im.source,
        xref: "x",
        yref: "y",
        x: im.x,
        y: im.y,
        sizex: view.imageSize,
        sizey: view.imageSize,
        xanchor: "center",
        yanchor: "middle",
        layer: "above",
      }));
    }
  }
  return { traces, layout, pointsOf, rowOf, columns };
}
