// One shared tooltip for every chart: rows of run colour, name, values; text only.
import { el, clear, formatValue, formatDuration } from "./util.js";

let tip = null;
// What the pointer was over when the tooltip was last shown, and where it was then: the
// tooltip hides when the layout changes under it (scroll, resize, the page or tab hidden,
// the anchor removed, hidden or moved by a re-render).
let anchor = null;
let anchorRect = null;
let watching = false;
let mutations = null;

function node() {
  if (!tip) {
    tip = el("div", { class: "tooltip", role: "tooltip" });
    document.body.append(tip);
  }
  return tip;
}

/**
 * Show rows [{name, color, value, smoothed, step, relative}] near the pointer (viewport coords).
 * Rows of series with a band also carry `lower`, `upper` (columns Lower, Upper) and maybe `count` (N).
 */
export function showTooltip(clientX, clientY, rows, smoothing, nameHeader = "Run") {
  const t = node();
  if (!rows.length) {
    hideTooltip();
    return;
  }
  const band = rows.some((r) => r.lower !== undefined);
  const counts = rows.some((r) => r.count !== undefined);
  const head = el(
    "tr",
    {},
    el("th"),
    el("th", { text: nameHeader || "Run" }),
    smoothing ? el("th", { text: "Smoothed" }) : null,
    el("th", { text: "Value" }),
    band ? el("th", { text: "Lower" }) : null,
    band ? el("th", { text: "Upper" }) : null,
    counts ? el("th", { text: "N" }) : null,
    el("th", { text: "Step" }),
    el("th", { text: "Relative" }),
  );
  const body = rows.map((r) =>
    el(
      "tr",
      { dataset: rowData(r) },
      el("td", {}, el("span", { class: "swatch", style: `background:${safeColor(r.color)}` })),
      el("td", { class: "tt-run", text: r.name }),
      smoothing ? el("td", { class: "num", text: formatValue(r.smoothed) }) : null,
      el("td", { class: "num", text: formatValue(r.value) }),
      band ? el("td", { class: "num", text: r.lower === undefined ? "" : formatValue(r.lower) }) : null,
      band ? el("td", { class: "num", text: r.upper === undefined ? "" : formatValue(r.upper) }) : null,
      counts ? el("td", { class: "num", text: r.count === undefined ? "" : String(r.count) }) : null,
      el("td", { class: "num", text: String(r.step) }),
      el("td", { class: "num", text: formatDuration(r.relative) }),
    ),
  );
  clear(t).append(el("table", {}, el("thead", {}, head), el("tbody", {}, ...body)));
  t.style.display = "block";
  const w = t.offsetWidth;
  const h = t.offsetHeight;
  let x = clientX + 16;
  let y = clientY + 16;
  if (x + w > window.innerWidth - 4) x = Math.max(4, clientX - w - 16);
  if (y + h > window.innerHeight - 4) y = Math.max(4, clientY - h - 16);
  t.style.left = x + "px";
  t.style.top = y + "px";
  watch(clientX, clientY);
}

/** Remember the element under the pointer and start hiding on layout changes. */
function watch(clientX, clientY) {
  const under = document.elementFromPoint(clientX, clientY);
  anchor = under && under !== tip && !(tip && tip.contains(under)) ? under : null;
  anchorRect = anchor ? rectOf(anchor) : null;
  if (watching) return;
  watching = true;
  window.addEventListener("scroll", hideTooltip, { capture: true, passive: true });
  window.addEventListener("resize", hideTooltip);
  window.addEventListener("hashchange", hideTooltip);
  window.addEventListener("blur", hideTooltip);
  document.addEventListener("visibilitychange", hideTooltip);
  mutations = mutations || new MutationObserver(onMutations);
  mutations.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["class", "hidden", "style"] });
}

function unwatch() {
  if (!watching) return;
  watching = false;
  window.removeEventListener("scroll", hideTooltip, { capture: true });
  window.removeEventListener("resize", hideTooltip);
  window.removeEventListener("hashchange", hideTooltip);
  window.removeEventListener("blur", hideTooltip);
  document.removeEventListener("visibilitychange", hideTooltip);
  if (mutations) mutations.disconnect();
  anchor = null;
  anchorRect = null;
}

function rectOf(node) {
  const r = node.getBoundingClientRect();
  return [r.left, r.top, r.width, r.height];
}

/** A DOM change outside the tooltip: hide when the anchor is gone, hidden or has moved. */
function onMutations(records) {
  if (!records.some((m) => !tip || !tip.contains(m.target))) return;
  if (!anchor) return;
  if (!anchor.isConnected || !anchor.getClientRects().length) {
    hideTooltip();
    return;
  }
  const now = rectOf(anchor);
  if (now.some((v, i) => Math.abs(v - anchorRect[i]) > 0.5)) hideTooltip();
}

/** A row's unformatted numbers as data-* attributes (data-lower/upper/count only with a band). */
function rowData(r) {
  const d = { run: r.name, step: String(r.step), value: String(r.value), smoothed: String(r.smoothed ?? "") };
  if (r.lower !== undefined) {
    d.lower = String(r.lower);
    d.upper = String(r.upper);
  }
  if (r.count !== undefined) d.count = String(r.count);
  return d;
}

export function hideTooltip() {
  if (tip) tip.style.display = "none";
  unwatch();
}

/** Only #rgb/#rrggbb colours reach a style attribute. */
export function safeColor(c) {
  return /^#[0-9a-fA-F]{3,8}$/.test(String(c)) ? c : "#888888";
}
