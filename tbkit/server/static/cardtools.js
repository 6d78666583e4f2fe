// Tools on a dashboard card: maximise it over the dashboard (the button again or Esc restores),
// and save its chart as a file. Files are built when asked for and handed to the browser through
// a link that is never attached to the page: no element or attribute of the page holds a name.
import { el } from "./util.js";

let current = null; // the maximised card: {card, button, onKey, onResize}

/** Cover the dashboard area (#main) with the card. */
function place(card) {
  const main = document.getElementById("main") || document.body;
  const r = main.getBoundingClientRect();
  card.style.top = r.top + "px";
  card.style.left = r.left + "px";
  card.style.width = r.width + "px";
  card.style.height = r.height + "px";
}

/** Plotly figures in the card follow its new size. */
function resizePlots(card) {
  if (!window.Plotly) return;
  for (const div of card.querySelectorAll(".plot")) if (div.data) window.Plotly.Plots.resize(div);
}

function press(button, on) {
  if (!button) return;
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.title = on ? "Restore (Esc)" : "Maximise";
  button.setAttribute("aria-label", on ? "Restore card" : "Maximise card");
}

/** The maximised card, or null. */
export function maximizedCard() {
  if (current && !current.card.isConnected) restoreCard(); // the card went away while maximised
  return current ? current.card : null;
}

/** Maximise `card` (restoring any other). `button` is its maximise button, shown pressed. */
export function maximizeCard(card, button = null) {
  if (current) restoreCard();
  const onKey = (e) => {
    if (e.key === "Escape") restoreCard();
  };
  const onResize = () => current && place(current.card);
  current = { card, button, onKey, onResize };
  card.classList.add("maximized");
  place(card);
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", onResize);
  press(button, true);
  resizePlots(card);
  card.dispatchEvent(new CustomEvent("card-maximize", { bubbles: true, detail: { maximized: true } }));
}

/** Put the maximised card back in its place in the grid. */
export function restoreCard() {
  if (!current) return;
  const { card, button, onKey, onResize } = current;
  current = null;
  document.removeEventListener("keydown", onKey);
  window.removeEventListener("resize", onResize);
  card.classList.remove("maximized");
  for (const k of ["top", "left", "width", "height"]) card.style[k] = "";
  press(button, false);
  resizePlots(card);
  card.dispatchEvent(new CustomEvent("card-maximize", { bubbles: true, detail: { maximized: false } }));
}

/** The header button maximising its card (the nearest `.card` around it) and restoring it. */
export function maximizeButton() {
  const button = el("button", { type: "button", class: "icon maximize", text: "⤢", "aria-pressed": "false" });
  press(button, false);
  button.addEventListener("click", () => {
    const card = button.closest(".card");
    if (!card) return;
    if (maximizedCard() === card) restoreCard();
    else maximizeCard(card, button);
  });
  return button;
}

/** A file name from a tag: letters, digits, `.`, `_` and `-` only, never empty. */
export function safeFileName(tag, ext) {
  const base = String(tag)
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+/, "")
    .replace(/_+$/, "")
    .slice(0, 120);
  return (base || "chart") + "." + ext;
}

/** Hand `blob` to the browser as a download named `name` (through a detached link). */
export function saveBlob(blob, name) {
  const href = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  a.click(); // never attached to the document
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
