// Axes of the HParams plots (parallel coordinates, scatter matrix): each column mapped to plotted numbers (log10 on a log axis,
// an index per value on a categorical one), with ticks, and a place for missing values
// ("(none)", below the data) so sessions whose key sets differ stay on every axis.
import { logTicks, niceTicks } from "../../ticks.js";
import { formatValue } from "../../util.js";
import { NONE, cellValue, valueKey, valueText } from "./model.js";

const MAX_CATEGORY_LABEL = 18;

function shortText(s) {
  return s.length > MAX_CATEGORY_LABEL ? s.slice(0, MAX_CATEGORY_LABEL - 1) + "…" : s;
}

/**
 * The axis of `column` over `sessions` (all of them, so the axis stays put while filtering).
 * Returns {key, label, column, log, categorical, plot(session) -> number, range, tickvals,
 * ticktext, missingAt (plotted value of missing, or null)}.
 */
export function makeAxis(column, sessions, { agg = "last", log = false } = {}) {
  const label = column.kind === "metric" && agg !== "last" ? `${column.label} (${agg})` : column.label;
  const logId = log && column.numeric && column.positive ? "log" : "lin";
  const id = `${column.key}|${column.kind === "metric" ? agg : ""}|${logId}`; // brushes are kept per id
  const base = { key: column.key, id, label, column, agg };
  if (!column.numeric) return categorical(base, column, sessions);
  const useLog = Boolean(log && column.positive);
  const transform = (v) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return null;
    if (!useLog) return v;
    return v > 0 ? Math.log10(v) : null;
  };
  let lo = Infinity;
  let hi = -Infinity;
  let missing = false;
  for (const s of sessions) {
    const t = transform(cellValue(column, s, agg));
    if (t === null) missing = true;
    else {
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
  }
  if (lo === Infinity) [lo, hi] = [0, 1];
  const dataLo = lo;
  const dataHi = hi;
  if (hi === lo) {
    const pad = useLog ? 0.5 : Math.abs(lo) * 0.1 || 1;
    [lo, hi] = [lo - pad, hi + pad];
  }
  const missingAt = missing ? lo - 0.12 * (hi - lo) : null;
  const range = [missing ? missingAt : lo, hi];
  const tickvals = dataHi === dataLo ? [dataLo] : useLog ? logTicks(lo, hi) : niceTicks(lo, hi, 5);
  const ticktext = tickvals.map((t) => formatValue(useLog ? 10 ** t : t));
  if (missing) {
    tickvals.unshift(missingAt);
    ticktext.unshift(NONE);
  }
  return {
    ...base,
    log: useLog,
    categorical: false,
    plot: (s) => {
      const t = transform(cellValue(column, s, agg));
      return t === null ? missingAt : t;
    },
    range,
    tickvals,
    ticktext,
    missingAt,
  };
}

function categorical(base, column, sessions) {
  const index = new Map(column.values.map((v, i) => [valueKey(v), i]));
  const missing = sessions.some((s) => cellValue(column, s) === null);
  const missingAt = missing ? column.values.length : null;
  const tickvals = column.values.map((_, i) => i);
  const ticktext = column.values.map((v) => shortText(valueText(v)));
  if (missing) {
    tickvals.push(missingAt);
    ticktext.push(NONE);
  }
  const top = Math.max(0, tickvals.length - 1);
  return {
    ...base,
    log: false,
    categorical: true,
    plot: (s) => {
      const i = index.get(valueKey(cellValue(column, s)));
      return i === undefined ? missingAt : i;
    },
    range: top === 0 ? [-0.5, 0.5] : [0, top],
    tickvals,
    ticktext,
    missingAt,
  };
}

/** A predicate: the session's plotted value on each brushed axis lies in one of its ranges. */
export function brushPredicate(axes, brushes) {
  const tests = [];
  for (const axis of axes) {
    const rs = brushes.get(axis.id);
    if (!rs || !rs.length) continue;
    tests.push((s) => {
      const v = axis.plot(s);
      return v !== null && rs.some(([a, b]) => v >= a && v <= b);
    });
  }
  return (s) => tests.every((t) => t(s));
}
