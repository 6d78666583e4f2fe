// Axis ticks: "nice" linear ticks, decade ticks for log axes, time-aligned ticks.

/** About `n` ticks between lo and hi at 1/2/5 × 10^k spacing. */
export function niceTicks(lo, hi, n, minStep = 0) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span)) return [lo];
  const raw = Math.max(span / Math.max(1, n), minStep);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const r = raw / mag;
  const step = (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
  const ticks = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let k = first; k * step <= hi + step * 1e-9 && ticks.length < 100; k++) ticks.push(k * step);
  return ticks;
}

/** Ticks for a log10 axis given lo/hi in log10 space: decades, with 2 and 5 when few decades. */
export function logTicks(lo, hi) {
  const out = [];
  const d0 = Math.floor(lo);
  const d1 = Math.ceil(hi);
  const mult = d1 - d0 <= 2 ? [1, 2, 5] : [1];
  const every = Math.max(1, Math.ceil((d1 - d0) / 8));
  for (let d = d0; d <= d1; d += every) {
    for (const m of mult) {
      const v = Math.log10(m) + d;
      if (v >= lo - 1e-9 && v <= hi + 1e-9) out.push(v);
    }
  }
  return out;
}

const TIME_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
];

/** About `n` ticks for a span of seconds, aligned to round durations. */
export function timeTicks(lo, hi, n) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / Math.max(1, n);
  if (raw < 1) return niceTicks(lo, hi, n);
  let step = TIME_STEPS.find((s) => s >= raw);
  if (!step) step = niceTicks(0, raw * n, n)[1] || raw;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi && ticks.length < 100; v += step) ticks.push(v);
  return ticks;
}
