// The filter panel: per hyperparameter, checkboxes of its values (discrete ones), a min/max
// interval (numeric ones) and a regex (text ones); per metric, a min/max interval.
import { el, clear, compileFilter, debounce } from "../../util.js";
import { NONE, valueKey, valueText } from "./model.js";

function parseBound(text) {
  const t = text.trim();
  if (!t) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : NaN;
}

function intervalInputs(column, filters, onChange) {
  const [lo0, hi0] = filters.intervals.get(column.key) || [null, null];
  const lo = el("input", { type: "text", class: "bound", placeholder: "min", "aria-label": `${column.label} min`, value: lo0 ?? "" });
  const hi = el("input", { type: "text", class: "bound", placeholder: "max", "aria-label": `${column.label} max`, value: hi0 ?? "" });
  const update = debounce(() => {
    const a = parseBound(lo.value);
    const b = parseBound(hi.value);
    lo.classList.toggle("invalid", Number.isNaN(a));
    hi.classList.toggle("invalid", Number.isNaN(b));
    filters.intervals.set(column.key, [Number.isNaN(a) ? null : a, Number.isNaN(b) ? null : b]);
    onChange();
  }, 200);
  lo.addEventListener("input", update);
  hi.addEventListener("input", update);
  return el("div", { class: "interval" }, lo, el("span", { class: "muted", text: "–" }), hi);
}

function regexInput(column, filters, onChange) {
  const input = el("input", {
    type: "search",
    class: "regex",
    placeholder: "regex",
    "aria-label": `${column.label} regex`,
    value: filters.regexes.get(column.key) || "",
    spellcheck: "false",
  });
  input.addEventListener(
    "input",
    debounce(() => {
      input.classList.toggle("invalid", compileFilter(input.value).invalid);
      filters.regexes.set(column.key, input.value);
      onChange();
    }, 200),
  );
  return input;
}

function checkboxes(column, filters, onChange) {
  if (!filters.excluded.has(column.key)) filters.excluded.set(column.key, new Set());
  const excluded = filters.excluded.get(column.key);
  const values = column.values.map((v) => [valueKey(v), valueText(v)]);
  if (column.missing) values.push([valueKey(null), NONE]);
  return el(
    "div",
    { class: "values" },
    ...values.map(([key, text]) => {
      const box = el("input", { type: "checkbox", checked: !excluded.has(key), dataset: { value: key } });
      box.addEventListener("change", () => {
        if (box.checked) excluded.delete(key);
        else excluded.add(key);
        onChange();
      });
      return el("label", { class: "inline value", title: text }, box, el("span", { text }));
    }),
  );
}

/** Render the filters of `columns` (all of them) into `root`; `onChange` runs after each edit. */
export function renderFilters(root, columns, filters, onChange) {
  const boxes = [];
  for (const c of columns.hparams) {
    const parts = [];
    if (c.discrete) parts.push(checkboxes(c, filters, onChange));
    if (c.numeric && !c.discrete) parts.push(intervalInputs(c, filters, onChange));
    if (c.values.some((v) => typeof v === "string")) parts.push(regexInput(c, filters, onChange));
    boxes.push(el("fieldset", { class: "filter", dataset: { column: c.key } }, el("legend", { text: c.label, title: c.name }), ...parts));
  }
  for (const c of columns.metrics) {
    boxes.push(
      el(
        "fieldset",
        { class: "filter metric", dataset: { column: c.key } },
        el("legend", { text: c.label, title: c.name }),
        intervalInputs(c, filters, onChange),
      ),
    );
  }
  clear(root).append(...boxes);
}
