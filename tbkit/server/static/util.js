// Small DOM, formatting and storage helpers shared by every dashboard.
// Text always goes in through textContent: names from the logdir are never parsed as HTML.

/**
 * Create an element. `attrs`: `class`, `text` (textContent), `dataset` (object),
 * `on` (object of event listeners), anything else as attribute/property.
 * Children: nodes or strings (strings become text nodes).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = String(v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (k === "style") node.style.cssText = v;
    else if (k in node && typeof v !== "string") node[k] = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A compiled case-insensitive regex, or null for an empty pattern; `invalid` when it does not parse. */
export function compileFilter(pattern) {
  if (!pattern) return { re: null, invalid: false };
  try {
    return { re: new RegExp(pattern, "i"), invalid: false };
  } catch (_) {
    return { re: null, invalid: true };
  }
}

export function escapeRegex(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function debounce(fn, ms) {
  let t = null;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}

/** Group names by their prefix before the first '/' (TensorBoard's tag groups). */
export function groupOf(tag) {
  const i = tag.indexOf("/");
  return i > 0 ? tag.slice(0, i) : tag;
}

const NUM = new Intl.NumberFormat("en-US");
export function formatCount(n) {
  return NUM.format(n);
}

/** A short, readable number: 4 significant digits, exponent when very large or small. */
export function formatValue(v) {
  if (v === null || v === undefined) return "–";
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "∞";
  if (v === -Infinity) return "−∞";
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-4)) return v.toExponential(3).replace(/\.?0+e/, "e");
  return String(Number(v.toPrecision(5)));
}

/** Step numbers with k/M suffixes. */
export function formatStep(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return trim(v / 1e9) + "G";
  if (a >= 1e6) return trim(v / 1e6) + "M";
  if (a >= 1e4) return trim(v / 1e3) + "k";
  return trim(v);
}

function trim(v) {
  return String(Number(v.toPrecision(4)));
}

/** Durations in seconds as "1.5 h", "30 s". */
export function formatDuration(s) {
  const a = Math.abs(s);
  if (a >= 86400) return trim(s / 86400) + " d";
  if (a >= 3600) return trim(s / 3600) + " h";
  if (a >= 60) return trim(s / 60) + " min";
  return trim(s) + " s";
}

export function formatWall(seconds, span) {
  const d = new Date(seconds * 1000);
  if (span !== undefined && span < 2 * 86400) return d.toLocaleTimeString([], { hour12: false });
  return d.toLocaleString([], { hour12: false, month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

// ---- settings remembered in the browser ----
const PREFIX = "tbkit.";

export const store = {
  get(key, fallback) {
    try {
      const raw = window.localStorage.getItem(PREFIX + key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch (_) {
      return fallback;
    }
  },
  set(key, value) {
    try {
      window.localStorage.setItem(PREFIX + key, JSON.stringify(value));
    } catch (_) {
      /* storage full or disabled: settings just are not remembered */
    }
    // The view in the URL (urlstate.js) follows what is remembered.
    window.dispatchEvent(new CustomEvent("tbkit-store", { detail: { key } }));
  },
};

/** A CSS custom property of the document (theme colours for canvas drawing). */
export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/**
 * Run `load` for an element the first time it scrolls near the viewport, and again
 * whenever it is marked dirty while visible. Returns {observe, unobserve, markDirty, disconnect}.
 */
export function lazyLoader(load, rootMargin = "300px") {
  const state = new WeakMap();
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const s = state.get(e.target);
        if (!s) continue;
        s.visible = e.isIntersecting;
        if (s.visible && s.dirty) {
          s.dirty = false;
          load(e.target);
        }
      }
    },
    { rootMargin },
  );
  return {
    observe(node) {
      state.set(node, { visible: false, dirty: true });
      io.observe(node);
    },
    unobserve(node) {
      io.unobserve(node);
      state.delete(node);
    },
    markDirty(node) {
      const s = state.get(node);
      if (!s) return;
      if (s.visible) {
        s.dirty = false;
        load(node);
      } else s.dirty = true;
    },
    disconnect() {
      io.disconnect();
    },
  };
}

/**
 * A name or value as plotly text: plotly reads its strings as a subset of HTML (`<a href>`,
 * `<b>`, `<br>` ...), so `&`, `<` and `>` go in as entities and data never becomes markup.
 */
export function plotlyText(value) {
  return String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Remove anything active from server-sanitized HTML (defence in depth) and return a fragment. */
export function safeFragment(html) {
  // Rename event-handler attributes before parsing: Chromium reports (though never runs) an
  // inline handler even in an inert template, and a CSP report is a console error.
  const defused = String(html).replace(/<[^<>]*>/g, (tag) =>
    tag.replace(/([\s/"'])on([a-z0-9_-]*\s*=)/gi, "$1data-blocked-on$2"),
  );
  const t = document.createElement("template");
  t.innerHTML = defused;
  const walk = (root) => {
    for (const node of Array.from(root.querySelectorAll("*"))) {
      const name = node.localName;
      if (["script", "iframe", "object", "embed", "style", "link", "meta", "base", "form", "frame", "svg", "math", "template"].includes(name)) {
        node.remove();
        continue;
      }
      for (const attr of Array.from(node.attributes)) {
        const n = attr.name.toLowerCase();
        const v = attr.value.replace(/[\s\u0000-\u001f]/g, "").toLowerCase();
        if (n.startsWith("on") || n === "style" || n === "srcdoc" || n === "formaction") node.removeAttribute(attr.name);
        else if ((n === "href" || n === "src" || n === "xlink:href" || n === "action") && /^(javascript|vbscript|data):/.test(v) && !(n === "src" && v.startsWith("data:image/")))
          node.removeAttribute(attr.name);
      }
      for (const n of ["src", "srcset", "poster"]) {
        const v = node.getAttribute(n);
        // Nothing loads from elsewhere, nor from guessed paths here: inline images only.
        if (v !== null && !(n === "src" && /^data:image\/(png|gif|jpeg|webp);/i.test(v.trim()))) node.removeAttribute(n);
      }
      if (name === "a") {
        node.setAttribute("rel", "noopener noreferrer");
        node.setAttribute("target", "_blank");
      }
    }
  };
  walk(t.content);
  return t.content;
}
