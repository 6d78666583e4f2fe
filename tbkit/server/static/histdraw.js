// A small Canvas2D "offset" histogram (a ridgeline: one outline per step, newest in front),
// used by the time-series cards, where loading plotly for every card would cost too much.
import { niceTicks } from "./ticks.js";
import { cssVar, formatValue, formatStep } from "./util.js";

/**
 * Draw histograms [{step, buckets: [[left, right, count], ...]}] into `canvas`.
 * Sets data-ready="1" and data-steps on the canvas when drawn.
 */
export function drawOffsetHistograms(canvas, hists, color) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  if (!w || !h) return;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = "11px system-ui, sans-serif";
  const text = cssVar("--chart-text") || "#555";
  const bg = cssVar("--card-bg") || "#fff";
  if (!hists.length) {
    ctx.fillStyle = text;
    ctx.fillText("No data", 8, 16);
    return;
  }
  let xlo = Infinity;
  let xhi = -Infinity;
  let cmax = 0;
  for (const hst of hists) {
    for (const [l, r, c] of hst.buckets) {
      if (l < xlo) xlo = l;
      if (r > xhi) xhi = r;
      const dens = c;
      if (dens > cmax) cmax = dens;
    }
  }
  if (!(xhi > xlo)) {
    xlo -= 0.5;
    xhi += 0.5;
  }
  const left = 44;
  const right = 8;
  const bottom = 18;
  const top = 6;
  const pw = w - left - right;
  const ph = h - top - bottom;
  const n = hists.length;
  const ridge = ph * 0.45; // height of the tallest bucket
  const rowStep = n > 1 ? (ph - ridge) / (n - 1) : 0;
  const sx = pw / (xhi - xlo);
  const s0 = hists[0].step;
  const s1 = hists[n - 1].step;

  // axes
  ctx.fillStyle = text;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const t of niceTicks(xlo, xhi, Math.max(2, Math.floor(pw / 80)))) {
    ctx.fillText(formatValue(t), left + (t - xlo) * sx, h - bottom + 4);
  }
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const base = (i) => top + ridge + i * rowStep;
  ctx.fillText(formatStep(s1), left - 6, base(n - 1));
  if (n > 1) ctx.fillText(formatStep(s0), left - 6, base(0));

  // oldest (top, behind) to newest (bottom, in front)
  ctx.lineWidth = 1;
  for (let i = 0; i < n; i++) {
    const y0 = base(i);
    const frac = n > 1 ? i / (n - 1) : 1;
    ctx.beginPath();
    ctx.moveTo(left + (hists[i].buckets[0] ? hists[i].buckets[0][0] - xlo : 0) * sx, y0);
    for (const [l, r, c] of hists[i].buckets) {
      const yy = y0 - (cmax > 0 ? (c / cmax) * ridge : 0);
      ctx.lineTo(left + ((l + r) / 2 - xlo) * sx, yy);
    }
    const lastB = hists[i].buckets[hists[i].buckets.length - 1];
    ctx.lineTo(left + (lastB ? lastB[1] - xlo : 0) * sx, y0);
    ctx.closePath();
    ctx.fillStyle = bg;
    ctx.globalAlpha = 1;
    ctx.fill();
    ctx.fillStyle = color;
    ctx.globalAlpha = 0.1 + 0.3 * frac;
    ctx.fill();
    ctx.globalAlpha = 0.35 + 0.65 * frac;
    ctx.strokeStyle = color;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  canvas.dataset.steps = String(n);
  canvas.dataset.ready = "1";
}
