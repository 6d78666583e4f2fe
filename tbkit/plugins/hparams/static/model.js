// The HParams dashboard's data model: columns from the experiment, values per session,
// the filters (status, session name, discrete values, intervals, regexes, brushes) and sorting.
// Pure logic: no DOM, no plotly.
import { compileFilter } from "../../util.js";

export const AGGS = ["last", "min", "max"];
export const STATUSES = ["success", "failure", "running", "unknown"];
export const NONE = "(none)";

/** A stable key for a value (discrete filters, categorical axes); missing values are "null". */
export function valueKey(v) {
  return v === undefined || v === null ? "null" : JSON.stringify(v);
}

/** A value as text for the table and tick labels. */
export function valueText(v) {
  if (v === undefined || v === null) return NONE;
  if (typeof v === "string") return v;
  return String(v);
}

function compareValues(a, b) {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return valueText(a).localeCompare(valueText(b));
}

/**
 * Columns of the experiment. An hparam column: {key, kind: "hparam", name, label, numeric,
 * discrete, values (distinct present values, sorted), missing (some session lacks it)}.
 * A metric column: {key, kind: "metric", name, label, missing}.
 */
export function buildColumns(experiment, sessions) {
  const hparams = experiment.hparams.map((h) => {
    const present = [];
    let missing = false;
    for (const s of sessions) {
      const v = s.hparams[h.name];
      if (v === undefined || v === null) missing = true;
      else present.push(v);
    }
    const distinct = new Map(present.map((v) => [valueKey(v), v]));
    const values = Array.from(distinct.values()).sort(compareValues);
    const numeric = values.length > 0 && values.every((v) => typeof v === "number");
    const discrete = !numeric || (h.type !== null && h.type !== "interval" && values.length <= 20);
    const positive = numeric && values.every((v) => v > 0);
    const decades = positive ? Math.log10(values[values.length - 1] / values[0]) : 0;
    return {
      key: "h:" + h.name,
      kind: "hparam",
      name: h.name,
      label: h.display_name || h.name,
      description: h.description,
      numeric,
      discrete,
      values,
      missing,
      positive,
      defaultLog: positive && decades >= 2,
    };
  });
  const metrics = experiment.metrics.map((m) => {
    let missing = false;
    let positive = true;
    let any = false;
    for (const s of sessions) {
      const e = s.metrics[m.name];
      if (!e || e.last === null) missing = true;
      for (const agg of AGGS) {
        if (e && e[agg] !== null && e[agg] !== undefined) {
          any = true;
          if (!(e[agg] > 0)) positive = false;
        }
      }
    }
    return {
      key: "m:" + m.name,
      kind: "metric",
      name: m.name,
      label: m.display_name || m.name,
      description: m.description,
      numeric: true,
      discrete: false,
      missing,
      positive: any && positive,
      defaultLog: false,
    };
  });
  return { hparams, metrics, all: [...hparams, ...metrics] };
}

/** The value of a column for a session; metrics take `agg` (last/min/max). null when missing. */
export function cellValue(column, session, agg = "last") {
  if (column.kind === "hparam") {
    const v = session.hparams[column.name];
    return v === undefined ? null : v;
  }
  const e = session.metrics[column.name];
  if (!e) return null;
  const v = e[agg];
  return v === undefined ? null : v;
}

/** The empty filter state. */
export function emptyFilters() {
  return {
    name: "", // regex on the session name
    statuses: new Set(STATUSES),
    excluded: new Map(), // hparam key -> Set of excluded valueKeys
    intervals: new Map(), // column key -> [lo|null, hi|null] (metrics: on the axis aggregate)
    regexes: new Map(), // hparam key -> pattern
  };
}

/** True when any filter (not counting brushes) narrows the sessions. */
export function filtersActive(f) {
  if (f.name || f.statuses.size !== STATUSES.length) return true;
  for (const set of f.excluded.values()) if (set.size) return true;
  for (const [lo, hi] of f.intervals.values()) if (lo !== null || hi !== null) return true;
  for (const p of f.regexes.values()) if (p) return true;
  return false;
}

/**
 * A predicate over sessions for the filters (not the brushes). `agg` is the metric value the
 * interval filters of metrics apply to. Invalid regexes filter nothing.
 */
export function makePredicate(columns, f, agg) {
  const byKey = new Map(columns.all.map((c) => [c.key, c]));
  const tests = [];
  const nameRe = compileFilter(f.name).re;
  if (nameRe) tests.push((s) => nameRe.test(s.name));
  if (f.statuses.size !== STATUSES.length) tests.push((s) => f.statuses.has(s.status));
  for (const [key, set] of f.excluded) {
    const c = byKey.get(key);
    if (c && set.size) tests.push((s) => !set.has(valueKey(cellValue(c, s))));
  }
  for (const [key, [lo, hi]] of f.intervals) {
    const c = byKey.get(key);
    if (!c || (lo === null && hi === null)) continue;
    tests.push((s) => {
      const v = cellValue(c, s, agg);
      if (typeof v !== "number" || Number.isNaN(v)) return false;
      return (lo === null || v >= lo) && (hi === null || v <= hi);
    });
  }
  for (const [key, pattern] of f.regexes) {
    const c = byKey.get(key);
    const re = compileFilter(pattern).re;
    if (!c || !re) continue;
    tests.push((s) => {
      const v = cellValue(c, s);
      return v !== null && re.test(valueText(v));
    });
  }
  return (s) => tests.every((t) => t(s));
}

/**
 * Sort sessions in place by `sort` ({key, agg, desc}: "name", "status" or a column key; null
 * for by name); missing values last in both directions, ties by name.
 */
export function sortSessions(sessions, columns, sort) {
  const byName = (a, b) => a.name.localeCompare(b.name);
  const dir = sort && sort.desc ? -1 : 1;
  if (!sort || sort.key === "name") return sessions.sort((a, b) => dir * byName(a, b));
  if (sort.key === "status") return sessions.sort((a, b) => dir * a.status.localeCompare(b.status) || byName(a, b));
  const c = columns.all.find((x) => x.key === sort.key);
  if (!c) return sessions.sort(byName);
  return sessions.sort((a, b) => {
    const va = cellValue(c, a, sort.agg);
    const vb = cellValue(c, b, sort.agg);
    const ma = va === null || Number.isNaN(va);
    const mb = vb === null || Number.isNaN(vb);
    if (ma || mb) return ma === mb ? byName(a, b) : ma ? 1 : -1;
    return dir * compareValues(va, vb) || byName(a, b);
  });
}

/** The runs of a session: its own and the sub-runs holding its metrics. */
export function sessionRuns(session) {
  const out = new Set([session.run]);
  for (const e of Object.values(session.metrics)) out.add(e.run);
  return Array.from(out);
}
