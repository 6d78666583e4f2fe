// Fetch helpers for the tbkit HTTP API (docs/http_api.md).
// Every URL is built relative to the page's own base URL, so a --path_prefix works
// without the page knowing it, and no request ever leaves the page's origin.

function meta(name) {
  const m = document.querySelector(`meta[name="${name}"]`);
  const v = m ? m.getAttribute("content") : null;
  return v !== null && !v.includes("{{") ? v : null;
}

/**
 * The app root, ending in '/': the server's path prefix (from index.html) on this origin,
 * or, when the page was not templated, the page URL up to its last '/'.
 */
export const BASE = (() => {
  const prefix = meta("tbkit-prefix");
  if (prefix !== null) return new URL(prefix.replace(/\/*$/, "/"), window.location.origin);
  return new URL(".", window.location.href);
})();

/** The versioned static base URL (no trailing slash), when index.html carries it. */
export const STATIC = meta("tbkit-static");

/**
 * An absolute URL for `path` (relative to the app root) with query parameters.
 * Values are encoded by URLSearchParams; arrays become comma-joined lists.
 */
export function url(path, params) {
  const u = new URL(String(path).replace(/^\/+/, ""), BASE);
  if (u.origin !== BASE.origin) throw new Error("cross-origin URL refused: " + path);
  if (params) {
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined || v === null) continue;
      u.searchParams.set(k, Array.isArray(v) ? v.join(",") : String(v));
    }
  }
  return u.toString();
}

/**
 * Download `href` (built by `url()`, on our origin) without leaving a link in the page: the
 * run and tag names in its query string are data, and no attribute of the page comes from data.
 */
export function startDownload(href) {
  const u = new URL(href, BASE);
  if (u.origin !== BASE.origin) throw new Error("cross-origin download refused: " + href);
  const a = document.createElement("a");
  a.href = u.toString();
  a.download = "";
  a.click(); // never attached to the document
}

/** Resolve a URL the server handed us (absolute path or root-relative) on our origin. */
export function resolve(serverUrl) {
  const s = String(serverUrl);
  const u = s.startsWith("/") ? new URL(s, BASE.origin) : new URL(s, BASE);
  if (u.origin !== BASE.origin) throw new Error("cross-origin URL refused: " + s);
  return u.toString();
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function check(resp) {
  if (resp.ok) return resp.json();
  let message = resp.statusText;
  try {
    const body = await resp.json();
    if (body && body.error) message = body.error;
  } catch (_) {
    /* not JSON */
  }
  throw new ApiError(resp.status, message);
}

/** GET a JSON route. */
export async function getJSON(path, params, options = {}) {
  const resp = await fetch(url(path, params), { signal: options.signal, credentials: "same-origin" });
  return check(resp);
}

/** POST a JSON body to a JSON route. */
export async function postJSON(path, body, options = {}) {
  const resp = await fetch(url(path), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: options.signal,
    credentials: "same-origin",
  });
  return check(resp);
}

/**
 * Scalars of one tag for several runs in one request. Uses GET while the query
 * string stays short, POST (same keys, JSON body) for many or long run names.
 */
export function fetchScalars({ tag, runs, points, smoothing, minStep, maxStep, signal }) {
  const params = { tag, runs, points, smoothing, min_step: minStep, max_step: maxStep };
  const query = url("data/plugin/scalars/scalars", params);
  if (query.length < 1800 && !runs.some((r) => r.includes(","))) {
    return getJSON("data/plugin/scalars/scalars", params, { signal });
  }
  const body = { tag, runs, points, smoothing };
  if (minStep !== undefined && minStep !== null) body.min_step = minStep;
  if (maxStep !== undefined && maxStep !== null) body.max_step = maxStep;
  return postJSON("data/plugin/scalars/scalars", body, { signal });
}

let plotlyPromise = null;

/**
 * Load plotly.js once (a classic script from the server's versioned URL).
 * `src` comes from /data/environment ("plotly") or defaults to the agreed path.
 */
export function loadPlotly(src) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyPromise) {
    plotlyPromise = new Promise((resolveP, reject) => {
      const s = document.createElement("script");
      s.src = resolve(src);
      s.async = true;
      s.addEventListener("load", () => resolveP(window.Plotly));
      s.addEventListener("error", () => {
        plotlyPromise = null;
        reject(new Error("could not load plotly.js from " + s.src));
      });
      document.head.appendChild(s);
    });
  }
  return plotlyPromise;
}

const styles = new Map();

/**
 * Add a dashboard's own stylesheet once, e.g. `loadStyle(new URL("./hparams.css", import.meta.url))`.
 * Resolves when it has loaded (dashboards keep their CSS next to their script).
 */
export function loadStyle(href) {
  const key = String(href);
  if (!styles.has(key)) {
    styles.set(
      key,
      new Promise((resolveP, reject) => {
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = key;
        link.addEventListener("load", () => resolveP(link));
        link.addEventListener("error", () => {
          styles.delete(key);
          reject(new Error("could not load " + key));
        });
        document.head.appendChild(link);
      }),
    );
  }
  return styles.get(key);
}
