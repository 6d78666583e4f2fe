// Point colours of the Projector: by a metadata column (categories, or a numeric scale) or by run.

// Twenty well-separated hues, then repeated.
const PALETTE = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
  "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
];
export const MAX_CATEGORIES = PALETTE.length;

/**
 * How a column colours points: {kind: "category", categories: [[value, color, count]], color(i)},
 * {kind: "numeric", values: Float64Array, min, max}, or {kind: "uniform", color}.
 */
export function colorScheme(values, fallback) {
  if (!values) return { kind: "uniform", color: fallback };
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) || 0) + 1);
  const numbers = values.map((v) => (v.trim() === "" ? NaN : Number(v)));
  const numeric = numbers.every((x) => Number.isFinite(x));
  if (numeric && counts.size > MAX_CATEGORIES) {
    let min = Infinity;
    let max = -Infinity;
    for (const x of numbers) {
      if (x < min) min = x;
      if (x > max) max = x;
    }
    return { kind: "numeric", values: Float64Array.from(numbers), min, max };
  }
  // Categories in natural order (numbers by value); beyond the palette, colours repeat.
  const collator = new Intl.Collator(undefined, { numeric: true });
  const order = Array.from(counts.entries()).sort((a, b) => collator.compare(a[0], b[0]));
  const colorOf = new Map(order.map(([v], i) => [v, PALETTE[i % PALETTE.length]]));
  return {
    kind: "category",
    repeats: order.length > PALETTE.length,
    categories: order.map(([v, n]) => [v, colorOf.get(v), n]),
    colorOf,
  };
}

/** The plotly marker colour fields for the points `idx` (indices into the embedding; null = all). */
export function markerColors(scheme, values, idx, n) {
  const count = idx ? idx.length : n;
  const at = (k) => (idx ? idx[k] : k);
  if (scheme.kind === "uniform") return { color: scheme.color };
  if (scheme.kind === "numeric") {
    const c = new Float64Array(count);
    for (let k = 0; k < count; k++) c[k] = scheme.values[at(k)];
    return { color: c, colorscale: "Viridis", cmin: scheme.min, cmax: scheme.max, showscale: false };
  }
  const c = new Array(count);
  for (let k = 0; k < count; k++) c[k] = scheme.colorOf.get(values[at(k)]);
  return { color: c };
}
