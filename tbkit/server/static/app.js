// The shell: dashboard tabs, hash router, run selector, theme, live reload polling.
// A dashboard module exports mount(root, ctx) -> {refresh(), destroy()}.
import * as api from "./api.js";
import { RunStore, mountRunSelector } from "./runs.js";
import { Settings } from "./settings.js";
import { el, clear, store, debounce } from "./util.js";
import { applySelection, applySettings, parseHash, readView, viewHash, viewQuery } from "./urlstate.js";

const POLL_MS = 5000;
const CORE = { timeseries: "./timeseries.js" };

const runs = new RunStore();
const settings = new Settings();
let env = {};
let listing = {};
let current = null; // {name, view}
let generation = null;
let mounting = 0;
let loading = false; // the server's first load is still running

function showError(err) {
  const banner = document.getElementById("error-banner");
  banner.textContent = String(err && err.message ? err.message : err);
  banner.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (banner.hidden = true), 8000);
}

const ctx = {
  runs,
  settings,
  api,
  showError,
  env: () => env,
  loadPlotly: () => api.loadPlotly(env.plotly_url || (api.STATIC ? api.STATIC + "/vendor/plotly.min.js" : "static/vendor/plotly.min.js")),
};
window.tbkit = { ctx }; // handy from the devtools console

// ---------------------------------------------------------------- theme
const darkQuery = window.matchMedia("(prefers-color-scheme: dark)");
function applyTheme() {
  const choice = store.get("theme", "auto");
  const dark = choice === "dark" || (choice === "auto" && darkQuery.matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  const btn = document.getElementById("theme-toggle");
  btn.title = `Theme: ${choice} (click to switch to ${dark ? "light" : "dark"})`;
  btn.setAttribute("aria-pressed", dark ? "true" : "false");
  window.dispatchEvent(new Event("tbkit-theme"));
}
darkQuery.addEventListener("change", applyTheme);

// ---------------------------------------------------------------- tabs and routing
function dashboards() {
  const names = Object.keys(listing).filter((n) => listing[n].enabled && (listing[n].script || CORE[n]));
  if (!names.includes("timeseries")) names.unshift("timeseries");
  return names;
}

function tabName(name) {
  return (listing[name] && listing[name].tab_name) || (name === "timeseries" ? "Time Series" : name);
}

function tabLink(n, active) {
  return el("a", {
    href: "#" + encodeURIComponent(n),
    class: "tab" + (n === active ? " active" : ""),
    text: tabName(n),
    dataset: { dashboard: n },
    "aria-current": n === active ? "page" : null,
  });
}

/**
 * The tab strip: every dashboard as a tab while they fit; those that do not (never the
 * active one) go into a "More" menu, with the plugins that have data but no dashboard.
 */
function renderTabs() {
  const nav = document.getElementById("tabs");
  const active = route();
  const names = dashboards();
  const links = names.map((n) => tabLink(n, active));
  clear(nav).append(...links);
  const inactive = Object.keys(listing).filter((n) => listing[n].enabled && !listing[n].script && !CORE[n]);
  const overflow = [];
  const more = el("select", { class: "tab-more", "aria-label": "More dashboards" });
  const fill = () => {
    more.replaceChildren(el("option", { text: overflow.length ? `More (${overflow.length})…` : "More…", value: "" }));
    for (const n of overflow) more.append(el("option", { value: n, text: tabName(n), dataset: { dashboard: n } }));
    for (const n of inactive) more.append(el("option", { value: n, text: tabName(n) + " (no dashboard)", disabled: true }));
  };
  // Move tabs from the end into the menu until the strip, menu included, fits.
  for (let i = links.length - 1; i > 0 && nav.scrollWidth > nav.clientWidth; i--) {
    if (names[i] === active) continue;
    links[i].remove();
    overflow.unshift(names[i]);
    if (!more.isConnected) nav.append(more);
    fill();
  }
  if (!overflow.length && !inactive.length) return;
  fill();
  if (!more.isConnected) nav.append(more);
  more.addEventListener("change", () => {
    if (more.value) window.location.hash = "#" + encodeURIComponent(more.value);
  });
}
window.addEventListener("resize", debounce(() => renderTabs(), 150));

function route() {
  const name = parseHash(window.location.hash).tab;
  const names = dashboards();
  if (names.includes(name)) return name;
  const last = store.get("dashboard", "timeseries");
  return names.includes(last) ? last : "timeseries";
}

async function mountDashboard(force = false) {
  const name = route();
  if (current && current.name === name && !force) return syncUrl();
  const token = ++mounting;
  if (current && current.view) current.view.destroy();
  current = null;
  store.set("dashboard", name);
  renderTabs();
  const main = document.getElementById("main");
  clear(main).append(el("div", { class: "empty", text: "Loading…" }));
  document.body.dataset.dashboard = name;
  try {
    const src = CORE[name] || api.resolve(listing[name].script);
    const mod = await import(src);
    if (token !== mounting) return;
    const root = el("div", { class: "dashboard", dataset: { dashboard: name } });
    clear(main).append(root);
    current = { name, view: mod.mount(root, ctx) || { refresh() {}, destroy() {} } };
  } catch (err) {
    if (token !== mounting) return;
    clear(main).append(el("div", { class: "empty error", text: `Could not open ${tabName(name)}: ${err.message}` }));
    current = { name, view: null };
  }
  syncUrl();
}

// ---------------------------------------------------------------- the view in the URL (urlstate.js)
let pendingView = null; // a view from the URL whose run selection waits for the run list
let lastHash = null;

/** Write the current view into the URL (replaceState: no new history entry, no hashchange). */
function syncUrl() {
  if (pendingView) return; // the URL's run list is not applied yet: keep it there
  const tab = current ? current.name : route();
  const hash = viewHash(tab, viewQuery({ settings, runs, tagFilter: store.get(tab + ".tagFilter", "") }));
  if (hash === lastHash && hash === window.location.hash) return;
  lastHash = hash;
  try {
    history.replaceState(history.state, "", hash);
  } catch (_) {
    /* a frame that may not change its URL (sandboxed): the view is just not in it */
  }
}
const syncSoon = debounce(syncUrl, 100);
window.addEventListener("tbkit-store", syncSoon);
runs.addEventListener("change", syncSoon);

/** Apply the view of a URL's hash, when it has one; its run selection as soon as runs are known. */
function applyUrlView(tab, params) {
  const view = readView(params);
  applySettings(view, { settings, runs, store }, tab);
  const input = document.querySelector("#sidebar .run-filter");
  if (input) input.value = runs.filter;
  pendingView = view;
  applyPendingSelection();
}

function applyPendingSelection() {
  if (pendingView && applySelection(pendingView, runs)) {
    pendingView = null;
    syncSoon();
  }
}
runs.addEventListener("change", (e) => {
  if (e.detail && e.detail.what === "runs") applyPendingSelection();
});

/** A hash changed by hand or by a link: a view in it is applied (the dashboard remounts). */
function onHashChange() {
  const { tab, params } = parseHash(window.location.hash);
  if (!params) return mountDashboard();
  applyUrlView(tab, params);
  return mountDashboard(true);
}

// ---------------------------------------------------------------- live reload
async function poll(force = false) {
  const status = document.getElementById("status");
  try {
    const state = await api.getJSON("data/reload_state");
    loading = !!state.loading;
    status.textContent = loading ? "Loading data…" : "";
    status.classList.toggle("busy", !!state.loading);
    if (force || state.generation !== generation) {
      generation = state.generation;
      await runs.refresh();
      const before = JSON.stringify(dashboards());
      listing = await api.getJSON("data/plugins_listing");
      if (JSON.stringify(dashboards()) !== before) renderTabs();
      if (current && current.view) await current.view.refresh();
    }
    document.body.dataset.generation = String(generation);
  } catch (err) {
    status.textContent = "Server unreachable";
  }
}

let pollTimer = null;
/** Poll every few seconds when live reload is on; every second while the server's first load runs. */
function schedulePoll() {
  clearTimeout(pollTimer);
  if (!store.get("reload", true) && !loading) return;
  pollTimer = setTimeout(
    async () => {
      if (!document.hidden || loading) await poll();
      schedulePoll();
    },
    loading ? 1000 : POLL_MS,
  );
}

// ---------------------------------------------------------------- start
async function start() {
  const initial = parseHash(window.location.hash);
  if (initial.params) {
    // Before the run selector and the dashboard read them.
    applySettings(readView(initial.params), { settings, runs, store }, initial.tab);
    pendingView = readView(initial.params);
  }
  applyTheme();
  document.getElementById("theme-toggle").addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme === "dark";
    store.set("theme", dark ? "light" : "dark");
    applyTheme();
  });
  const toggle = document.getElementById("reload-toggle");
  toggle.checked = store.get("reload", true);
  toggle.addEventListener("change", () => {
    store.set("reload", toggle.checked);
    schedulePoll();
  });
  document.getElementById("reload-now").addEventListener("click", () => poll(true));
  // One round trip for the three: the reload state is asked before the runs, as poll() does, so
  // that the runs shown are at least as new as the generation kept.
  const reloadState = api.getJSON("data/reload_state");
  reloadState.catch(() => {}); // awaited below; no "unhandled rejection" meanwhile
  try {
    [env, listing] = await Promise.all([api.getJSON("data/environment"), api.getJSON("data/plugins_listing")]);
  } catch (err) {
    showError(err);
  }
  if (env.window_title) document.title = env.window_title;
  document.getElementById("brand").title = env.data_location ? "Logdir: " + env.data_location : "";
  mountRunSelector(document.getElementById("sidebar"), runs, Array.isArray(env.logdirs) ? env.logdirs : []);
  try {
    const state = await reloadState;
    generation = state.generation;
    loading = !!state.loading;
    await runs.refresh();
    applyPendingSelection();
  } catch (err) {
    showError(err);
  }
  window.addEventListener("hashchange", onHashChange);
  await mountDashboard();
  schedulePoll();
}

start();
