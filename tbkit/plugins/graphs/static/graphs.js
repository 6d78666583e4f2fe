// The Graphs dashboard: a run's op graph (or Keras conceptual graph), laid out by the server as a
// layered DAG at the expanded name scopes, drawn here as one SVG. Pan and zoom change the SVG's
// viewBox; collapsed scopes open on double-click, expanded ones (clusters) close the same way.
import { getJSON, postJSON, loadStyle } from "../../api.js";
import { el, clear, debounce, formatCount, store } from "../../util.js";

const NS = "http://www.w3.org/2000/svg";
const CHAR_W = 6.4; // the server sizes boxes with this many pixels per character (view.py)
const MAX_PNG_SIDE = 8192;
const MAX_PNG_PIXELS = 40e6;
const LONG_QUERY = 1500;
const FAR_SCALE = 0.3;
const COMMIT_IDLE_MS = 120; // pan/zoom pauses this long: repaint at the new viewBox
const COMMIT_EVERY_MS = 400; // and at least this often during a long drag
const HUES = [210, 30, 125, 0, 275, 180, 55, 330, 95, 245, 155, 300, 15, 195];

/** An SVG element with attributes (set as attributes) and children. */
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, String(v));
  }
  for (const c of children) if (c) node.appendChild(c);
  return node;
}

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b); // mix the high bits down: names differing at the end differ
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The colours of the current theme (explicit values, so a downloaded SVG keeps them). */
function theme() {
  const css = getComputedStyle(document.documentElement);
  const get = (name) => css.getPropertyValue(name).trim();
  return {
    dark: document.documentElement.dataset.theme === "dark",
    fg: get("--fg") || "#1f2328",
    muted: get("--muted") || "#6b7280",
    border: get("--border") || "#dcdfe4",
    bg: get("--card-bg") || "#ffffff",
    accent: get("--accent") || "#f57c00",
  };
}

/** The graph's commonest op types take the palette's hues in turn; the rest a hue from their name. */
let hueOf = new Map();

function setOpTypes(types) {
  hueOf = new Map(types.slice(0, HUES.length).map(([op], i) => [op, HUES[i]]));
}

/** A fill colour per op type, light or dark by theme. */
function opColor(op, th) {
  if (!op) return th.dark ? "hsl(220 8% 30%)" : "hsl(220 10% 90%)";
  const hue = hueOf.has(op) ? hueOf.get(op) : (hash(op) % 36) * 10;
  return th.dark ? `hsl(${hue} 40% 32%)` : `hsl(${hue} 75% 84%)`;
}

/** A collapsed scope's bottom band: its commonest op types, each as wide as its share. */
function opStrip(n, th) {
  const strip = svg("g", { class: "op-strip" });
  const total = n.ops.reduce((a, [, k]) => a + k, 0) || 1;
  const inner = n.w - 16;
  let x = 8;
  for (const [op, k] of n.ops) {
    const w = (inner * k) / total;
    strip.appendChild(svg("rect", { x: x.toFixed(1), y: n.h - 8, width: w.toFixed(1), height: 4, fill: opColor(op, th) }));
    x += w;
  }
  return strip;
}

function cut(label, width) {
  const chars = Math.max(3, Math.floor((width - 12) / CHAR_W));
  return label.length <= chars ? label : label.slice(0, chars - 1) + "…";
}

function download(blob, name) {
  const href = URL.createObjectURL(blob);
  const a = el("a", { href, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10000);
}

/** Scopes holding an op: `a/b/c` -> ["a", "a/b"] (its scope and that scope's parents). */
function scopesOf(scope) {
  if (!scope) return [];
  const parts = scope.split("/");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

export function mount(root, ctx) {
  loadStyle(new URL("./graphs.css", import.meta.url)).catch(ctx.showError);
  let listing = {};
  let choice = store.get("graphs.choice", null); // {run, tag}
  let data = null; // the last /layout answer
  const expandedOf = new Map(); // "run\0tag" -> expanded scope names (absent: the server's default)
  let selected = null; // {id, kind}
  let vb = null; // the viewBox {x, y, w, h}
  let token = 0;
  let svgEl = null;
  let frame = 0;
  let shown = null; // the viewBox last set on the SVG (what is painted)
  let movingSince = 0; // when the painted drawing started being moved by a CSS transform
  let commitTimer = 0;

  const picker = el("select", { class: "graph-run", "aria-label": "Graph" });
  const search = el("input", {
    type: "search",
    class: "graph-search",
    placeholder: "Search nodes",
    "aria-label": "Search nodes",
    spellcheck: "false",
  });
  const results = el("ul", { class: "graph-results", hidden: true });
  const button = (cls, text, title, on) => el("button", { type: "button", class: `small ${cls}`, text, title, on: { click: on } });
  const info = el("span", { class: "graph-info muted" });
  const view = el("div", { class: "graph-view", dataset: { ready: "0" }, tabindex: "0" });
  const legend = el("div", { class: "graph-legend" });
  const details = el("aside", { class: "graph-details", "aria-label": "Node details" });
  const note = el("div", { class: "graph-note muted" });
  clear(root).append(
    el(
      "div",
      { class: "toolbar graph-toolbar" },
      el(
        "div",
        { class: "controls" },
        picker,
        el("div", { class: "graph-search-box" }, search, results),
        button("expand-all", "Expand all", "Open every name scope", () => relayout({ all: true })),
        button("collapse-all", "Collapse all", "Close every name scope", () => relayout({ expanded: [] })),
        button("fit", "Fit", "Fit the graph to the view", () => fit()),
        button("download-svg", "⤓ SVG", "Download the drawing as SVG", () => downloadSvg()),
        button("download-png", "⤓ PNG", "Download the drawing as PNG", () => downloadPng().catch(ctx.showError)),
        info,
      ),
    ),
    el("div", { class: "graph-body" }, el("div", { class: "graph-stage" }, view, legend, note), details),
  );
  details.append(el("div", { class: "muted", text: "Click a node for its details; double-click a scope to open or close it." }));

  // ------------------------------------------------------------ choosing the graph
  function pairs() {
    const active = new Set(ctx.runs.active ? ctx.runs.active() : Object.keys(listing));
    const out = [];
    for (const run of Object.keys(listing).sort()) {
      if (!active.has(run)) continue;
      for (const tag of Object.keys(listing[run]).sort()) out.push({ run, tag, ...listing[run][tag] });
    }
    return out;
  }

  function fillPicker() {
    const list = pairs();
    const multi = new Set(list.map((p) => p.run)).size < list.length;
    clear(picker).append(
      ...list.map((p, i) =>
        el("option", { value: String(i), text: multi || p.tag !== "__run_graph__" ? `${p.run} — ${p.tag}` : p.run }),
      ),
    );
    picker.disabled = list.length === 0;
    let index = choice ? list.findIndex((p) => p.run === choice.run && p.tag === choice.tag) : -1;
    if (index < 0 && list.length) index = 0;
    if (index >= 0) picker.value = String(index);
    return index >= 0 ? list[index] : null;
  }

  picker.addEventListener("change", () => {
    const p = pairs()[Number(picker.value)];
    if (!p) return;
    choice = { run: p.run, tag: p.tag };
    store.set("graphs.choice", choice);
    selected = null;
    load({ fitAfter: true }).catch(ctx.showError);
  });

  const key = () => (choice ? choice.run + "\u0000" + choice.tag : "");

  // ------------------------------------------------------------ loading
  async function layoutAnswer(params) {
    const body = { run: choice.run, tag: choice.tag, plugin: listing[choice.run][choice.tag].plugin };
    if (params.all) body.all = 1;
    else if (params.expanded) body.expanded = params.expanded;
    const long = body.expanded && (JSON.stringify(body.expanded).length > LONG_QUERY || body.expanded.some((s) => s.includes(",")));
    if (long) return postJSON("data/plugin/graphs/layout", body);
    return getJSON("data/plugin/graphs/layout", { ...body, expanded: body.expanded ? body.expanded.join(",") : undefined });
  }

  async function load({ fitAfter = false, focus = null, params = null } = {}) {
    const mine = ++token;
    const picked = fillPicker();
    if (!picked) {
      data = null;
      clear(view);
      view.dataset.ready = "1";
      view.dataset.nodes = "0";
      note.textContent = Object.keys(listing).length ? "No selected run has a graph." : "No graphs in this logdir.";
      return;
    }
    choice = { run: picked.run, tag: picked.tag };
    note.textContent = "";
    view.dataset.ready = "0";
    const started = performance.now();
    const stored = expandedOf.get(key());
    const answer = await layoutAnswer(params || (stored ? { expanded: stored } : {}));
    if (mine !== token) return;
    const fetched = performance.now();
    data = answer;
    setOpTypes(answer.op_types);
    expandedOf.set(key(), answer.expanded);
    render();
    const box = aspect();
    const fits = Math.min(box.w / answer.width, box.h / answer.height) >= 0.8; // readable when fitted
    if (fitAfter || !vb || (focus && fits)) firstView();
    else if (focus) centerOn(focus);
    else applyViewBox();
    info.textContent =
      `${formatCount(answer.total_ops)} ops · ${formatCount(answer.nodes.length)} boxes shown · ` +
      `layout ${Math.round(answer.layout_seconds * 1000)} ms`;
    Object.assign(view.dataset, {
      run: answer.run,
      tag: answer.tag,
      graphKind: answer.graph_kind,
      nodes: String(answer.nodes.length),
      ops: String(answer.nodes.filter((n) => n.kind === "op").length),
      scopes: String(answer.nodes.filter((n) => n.kind === "scope").length),
      clusters: String(answer.clusters.length),
      edges: String(answer.edges.length),
      totalOps: String(answer.total_ops),
      expanded: String(answer.expanded.length),
      fetchMs: String(Math.round(fetched - started)),
      drawMs: String(Math.round(performance.now() - fetched)),
    });
    if (selected && !findNode(selected.id, selected.kind)) selected = null;
    highlight();
    requestAnimationFrame(() => {
      if (mine === token) view.dataset.ready = "1";
    });
  }

  function relayout(params, focus = null) {
    if (!choice || !data) return;
    load({ params, focus, fitAfter: !focus }).catch(ctx.showError);
  }

  function setExpanded(names, focus) {
    relayout({ expanded: Array.from(new Set(names)) }, focus);
  }

  function expand(scope) {
    setExpanded([...(data ? data.expanded : []), scope], { id: scope, kind: "cluster" });
  }

  function collapse(scope) {
    const rest = data.expanded.filter((s) => s !== scope && !s.startsWith(scope + "/"));
    setExpanded(rest, { id: scope, kind: "scope" });
  }

  // ------------------------------------------------------------ drawing
  function findNode(id, kind) {
    if (!data) return null;
    if (kind === "cluster") return data.clusters.find((c) => c.id === id) || null;
    return data.nodes.find((n) => n.id === id && (!kind || n.kind === kind)) || null;
  }

  function render() {
    const th = theme();
    const drawing = svg("svg", {
      class: "graph-svg",
      xmlns: NS,
      role: "img",
      "aria-label": `Graph of ${data.run}`,
      "font-family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
      "font-size": "11",
    });
    const defs = svg(
      "defs",
      {},
      svg(
        "marker",
        {
          id: "tbkit-graph-arrow",
          viewBox: "0 0 10 10",
          refX: "9",
          refY: "5",
          markerWidth: "8",
          markerHeight: "8",
          markerUnits: "userSpaceOnUse",
          orient: "auto-start-reverse",
        },
        svg("path", { d: "M0,1 L10,5 L0,9 z", fill: th.muted }),
      ),
    );
    const clusters = svg("g", { class: "gclusters" });
    for (const c of data.clusters) {
      clusters.appendChild(
        svg(
          "g",
          { class: "gcluster", dataset: { id: c.id, kind: "cluster" } },
          svg("rect", {
            x: c.x,
            y: c.y,
            width: c.w,
            height: c.h,
            rx: 8,
            fill: opColor(c.ops.length ? c.ops[0][0] : "", th),
            "fill-opacity": "0.25",
            stroke: th.border,
            "stroke-width": 1.5,
          }),
          svg("text", { x: c.x + 8, y: c.y + 15, fill: th.fg, "font-weight": "600", text: cut(`${c.label} (${c.count})`, c.w) }),
          svg("title", { text: `${c.id}: ${c.count} ops (double-click to close)` }),
        ),
      );
    }
    const edges = svg("g", { class: "gedges", fill: "none", stroke: th.muted });
    for (const e of data.edges) {
      const p = e.points;
      let d = `M${p[0]},${p[1]}`;
      for (let i = 2; i < p.length; i += 2) d += `L${p[i]},${p[i + 1]}`;
      edges.appendChild(
        svg("path", {
          class: "gedge",
          d,
          "stroke-width": (1 + Math.min(3, Math.log2(e.count))).toFixed(2),
          "stroke-dasharray": e.control ? "4 3" : null,
          "marker-end": "url(#tbkit-graph-arrow)",
          dataset: { source: e.source, target: e.target },
        }),
      );
    }
    const nodes = svg("g", { class: "gnodes" });
    const counts = new Map();
    for (const n of data.nodes) {
      counts.set(n.op, (counts.get(n.op) || 0) + (n.kind === "scope" ? n.count : 1));
      const scope = n.kind === "scope";
      const label = scope ? `${n.label} (${n.count})` : n.label;
      const group = svg(
        "g",
        { class: `gnode ${n.kind}`, transform: `translate(${n.x},${n.y})`, dataset: { id: n.id, kind: n.kind, op: n.op } },
        svg("rect", {
          width: n.w,
          height: n.h,
          rx: scope ? 10 : 4,
          fill: scope ? th.bg : opColor(n.op, th),
          stroke: scope ? th.fg : th.border,
          "stroke-width": scope ? 1.5 : 1,
        }),
        svg("text", { x: n.w / 2, y: n.h / 2 + (scope ? 2 : 4), "text-anchor": "middle", fill: th.fg, text: cut(label, n.w) }),
        svg("title", { text: scope ? `${n.id} — ${n.count} ops (double-click to open)` : `${n.id} (${n.op})` }),
      );
      if (scope) group.appendChild(opStrip(n, th));
      nodes.appendChild(group);
    }
    drawing.append(defs, clusters, edges, nodes);
    clear(view).appendChild(drawing);
    svgEl = drawing;
    shown = null;
    const top = Array.from(counts.entries()).sort((a, b) => b[1] - a[1]).slice(0, 12);
    clear(legend).append(
      ...top.map(([op, k]) =>
        el(
          "span",
          { class: "legend-item", title: `${op}: ${k}` },
          el("span", { class: "legend-swatch", style: `background:${opColor(op, th)}` }),
          op || "(no op)",
        ),
      ),
    );
  }

  function highlight() {
    if (!svgEl) return;
    for (const g of svgEl.querySelectorAll(".selected")) g.classList.remove("selected");
    for (const p of svgEl.querySelectorAll(".gedge.hl")) p.classList.remove("hl");
    view.dataset.selected = selected ? selected.id : "";
    if (!selected) return;
    const group = selected.kind === "cluster" ? ".gcluster" : ".gnode";
    for (const g of svgEl.querySelectorAll(group)) if (g.dataset.id === selected.id) g.classList.add("selected");
    if (selected.kind !== "cluster") {
      for (const p of svgEl.querySelectorAll(".gedge")) {
        if (p.dataset.source === selected.id || p.dataset.target === selected.id) p.classList.add("hl");
      }
    }
  }

  // ------------------------------------------------------------ pan and zoom
  function aspect() {
    const r = view.getBoundingClientRect();
    return { w: Math.max(1, r.width), h: Math.max(1, r.height) };
  }

  /**
   * Show `vb`. While the user pans or zooms (`moving`), the drawing already painted is moved and
   * scaled as one composited layer (a CSS transform: no repaint of thousands of nodes per frame);
   * the viewBox itself is set (a full, sharp repaint) once the wheel or drag pauses.
   */
  function applyViewBox(moving = false) {
    if (!svgEl || !vb) return;
    const box = aspect();
    vb.h = vb.w * (box.h / box.w); // the box keeps the element's shape: pointer maths stays linear
    const scale = box.w / vb.w;
    view.dataset.scale = scale.toFixed(4);
    clearTimeout(commitTimer);
    const now = performance.now();
    if (!moving || !shown || (movingSince && now - movingSince > COMMIT_EVERY_MS)) {
      svgEl.setAttribute("viewBox", `${vb.x} ${vb.y} ${vb.w} ${vb.h}`);
      svgEl.style.transform = "";
      svgEl.classList.toggle("far", scale < FAR_SCALE); // labels too small to read are not drawn
      shown = { ...vb };
      movingSince = 0;
      return;
    }
    if (!movingSince) movingSince = now;
    const k = shown.w / vb.w;
    const tx = scale * (shown.x - vb.x);
    const ty = scale * (shown.y - vb.y);
    svgEl.style.transform = `translate(${tx}px, ${ty}px) scale(${k})`;
    commitTimer = setTimeout(() => applyViewBox(), COMMIT_IDLE_MS);
  }

  function schedule() {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      applyViewBox(true);
    });
  }

  function fit() {
    if (!data) return;
    const box = aspect();
    const below = legend.offsetHeight ? legend.offsetHeight + 12 : 0; // keep the legend off the graph
    const scale = Math.min(box.w / data.width, Math.max(40, box.h - below) / data.height, 1.5);
    const w = box.w / scale;
    const h = box.h / scale;
    vb = { x: (data.width - w) / 2, y: (data.height - (h - below / scale)) / 2, w, h };
    applyViewBox();
  }

  /** The whole graph when it stays readable; else its top, as wide as fits (labels drawn). */
  function firstView() {
    const box = aspect();
    if (Math.min(box.w / data.width, box.h / data.height) >= FAR_SCALE) return fit();
    const scale = Math.max(FAR_SCALE, Math.min(1, box.w / data.width));
    const w = box.w / scale;
    vb = { x: (data.width - w) / 2, y: 0, w, h: box.h / scale };
    applyViewBox();
  }

  function centerOn({ id, kind }) {
    const n = findNode(id, kind) || findNode(id);
    if (!n) return fit();
    const box = aspect();
    if (!vb || box.w / vb.w < 0.6) vb = { x: 0, y: 0, w: box.w, h: box.h };
    vb.x = n.x + n.w / 2 - vb.w / 2;
    vb.y = n.y + Math.min(n.h, vb.h * 0.8) / 2 - vb.h / 2;
    applyViewBox();
  }

  function toGraph(ev) {
    const r = view.getBoundingClientRect();
    return { x: vb.x + ((ev.clientX - r.left) / r.width) * vb.w, y: vb.y + ((ev.clientY - r.top) / r.height) * vb.h };
  }

  view.addEventListener(
    "wheel",
    (ev) => {
      if (!vb) return;
      ev.preventDefault();
      const at = toGraph(ev);
      const factor = Math.exp(Math.max(-1, Math.min(1, ev.deltaY * (ev.deltaMode ? 0.05 : 0.0015))));
      const w = Math.min(Math.max(vb.w * factor, 20), Math.max(data.width, data.height) * 20);
      const k = w / vb.w;
      vb = { x: at.x - (at.x - vb.x) * k, y: at.y - (at.y - vb.y) * k, w, h: vb.h * k };
      schedule();
    },
    { passive: false },
  );

  let drag = null;
  view.addEventListener("pointerdown", (ev) => {
    results.hidden = true;
    if (!vb || ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, vb: { ...vb }, moved: false };
    view.dataset.dragged = "0";
  });
  view.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x;
    const dy = ev.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) view.setPointerCapture(ev.pointerId); // only now: a click keeps its target node
    drag.moved = true;
    view.classList.add("panning");
    const r = view.getBoundingClientRect();
    vb.x = drag.vb.x - (dx / r.width) * vb.w;
    vb.y = drag.vb.y - (dy / r.height) * vb.h;
    schedule();
  });
  const endDrag = (ev) => {
    if (!drag) return;
    if (view.hasPointerCapture(ev.pointerId)) view.releasePointerCapture(ev.pointerId);
    view.classList.remove("panning");
    view.dataset.dragged = drag.moved ? "1" : "0";
    drag = null;
  };
  view.addEventListener("pointerup", endDrag);
  view.addEventListener("pointercancel", endDrag);

  function target(ev) {
    const hit = ev.target.closest ? ev.target.closest(".gnode, .gcluster") : null;
    return hit ? { id: hit.dataset.id, kind: hit.dataset.kind } : null;
  }

  view.addEventListener("click", (ev) => {
    if (view.dataset.dragged === "1") return;
    const hit = target(ev);
    select(hit);
  });
  view.addEventListener("dblclick", (ev) => {
    const hit = target(ev);
    if (!hit) return fit();
    if (hit.kind === "scope") expand(hit.id);
    else if (hit.kind === "cluster") collapse(hit.id);
  });

  const resize = new ResizeObserver(() => schedule());
  resize.observe(view);

  // ------------------------------------------------------------ details
  async function select(hit) {
    selected = hit;
    highlight();
    if (!hit) {
      clear(details).append(el("div", { class: "muted", text: "Click a node for its details; double-click a scope to open or close it." }));
      return;
    }
    const mine = token;
    const kind = hit.kind === "op" ? "op" : "scope";
    const answer = await getJSON("data/plugin/graphs/node", { run: data.run, tag: data.tag, plugin: data.plugin, name: hit.id, kind });
    if (mine !== token || selected !== hit) return;
    showDetails(answer, hit);
  }

  function link(name) {
    return el("button", { type: "button", class: "linkish", text: name, title: name, on: { click: () => reveal(name) } });
  }

  function showDetails(d, hit) {
    const rows = [];
    const row = (k, ...v) => rows.push(el("tr", {}, el("th", { text: k }), el("td", {}, ...v)));
    if (d.kind === "op") {
      row("Op", d.op);
      if (d.scope) row("Scope", d.scope);
      if (d.device) row("Device", d.device);
      if (d.shape) row("Shape", d.shape.map((s) => (s ? `(${s.map((x) => (x < 0 ? "?" : x)).join(", ")})` : "<unknown>")).join(" "));
      const input = (i) =>
        el("li", {}, i.missing ? el("span", { class: "muted", text: i.raw }) : link(i.name), i.control ? " (control)" : "");
      row("Inputs", d.inputs.length ? el("ul", {}, ...d.inputs.map(input)) : "—");
      row("Outputs", d.outputs.length ? el("ul", {}, ...d.outputs.map((o) => el("li", {}, link(o)))) : "—");
    } else {
      row("Ops inside", formatCount(d.count));
      row("Children", formatCount(d.children));
      row("Op types", el("ul", {}, ...d.ops.map(([op, k]) => el("li", { text: `${op} × ${k}` }))));
    }
    const attrs = d.attributes && d.attributes.length
      ? el("table", { class: "graph-attrs" }, ...d.attributes.map(([k, v]) => el("tr", {}, el("th", { text: k }), el("td", { text: v }))))
      : null;
    const action =
      hit.kind === "scope"
        ? button("expand-one", "Expand", "Open this scope", () => expand(hit.id))
        : hit.kind === "cluster"
          ? button("collapse-one", "Collapse", "Close this scope", () => collapse(hit.id))
          : null;
    clear(details).append(
      ...[
        el("h3", { class: "graph-details-title", text: d.name, title: d.name }),
        action,
        el("table", { class: "graph-props" }, ...rows),
        attrs ? el("h4", { text: "Attributes" }) : null,
        attrs,
      ].filter(Boolean),
    );
    details.dataset.name = d.name;
  }

  /** Open the scopes holding op `name`, lay out again, select it and bring it into view. */
  async function reveal(name, scope) {
    if (scope === undefined) {
      const found = await getJSON("data/plugin/graphs/node", { run: data.run, tag: data.tag, plugin: data.plugin, name, kind: "op" });
      scope = found.scope;
    }
    const need = scopesOf(scope).filter((s) => !data.expanded.includes(s));
    const hit = { id: name, kind: "op" };
    if (need.length) {
      await load({ params: { expanded: [...data.expanded, ...need] }, focus: hit });
    } else centerOn(hit);
    select(hit);
  }

  // ------------------------------------------------------------ search
  let found = [];
  const runSearch = debounce(async () => {
    const q = search.value.trim();
    if (!q || !data) {
      results.hidden = true;
      return;
    }
    const answer = await getJSON("data/plugin/graphs/search", { run: data.run, tag: data.tag, plugin: data.plugin, q, limit: 30 });
    if (search.value.trim() !== q) return;
    found = answer.matches;
    clear(results).append(
      ...found.map((m) =>
        el(
          "li",
          {},
          el(
            "button",
            { type: "button", class: "graph-hit", dataset: { name: m.name }, on: { click: () => pick(m) } },
            el("span", { text: m.name }),
            el("span", { class: "muted", text: " " + m.op }),
          ),
        ),
      ),
      answer.total > found.length ? el("li", { class: "muted", text: `${formatCount(answer.total - found.length)} more…` }) : null,
      answer.total === 0 ? el("li", { class: "muted", text: "No match." }) : null,
    );
    results.hidden = false;
    results.dataset.total = String(answer.total);
  }, 200);

  function pick(m) {
    results.hidden = true;
    reveal(m.name, m.scope).catch(ctx.showError);
  }

  search.addEventListener("input", () => runSearch());
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && found.length) pick(found[0]);
    if (ev.key === "Escape") results.hidden = true;
  });

  // ------------------------------------------------------------ downloads
  function exported() {
    const copy = svgEl.cloneNode(true);
    copy.removeAttribute("style");
    copy.removeAttribute("class");
    copy.setAttribute("viewBox", `0 0 ${data.width} ${data.height}`);
    copy.setAttribute("width", String(data.width));
    copy.setAttribute("height", String(data.height));
    for (const g of copy.querySelectorAll(".selected")) g.classList.remove("selected");
    const bg = svg("rect", { x: 0, y: 0, width: data.width, height: data.height, fill: theme().bg });
    copy.insertBefore(bg, copy.firstChild);
    return new XMLSerializer().serializeToString(copy);
  }

  function fileName(ext) {
    return `${data.run}_${data.tag}`.replace(/[^A-Za-z0-9_.-]+/g, "_") + "." + ext;
  }

  function downloadSvg() {
    if (!svgEl) return;
    download(new Blob([exported()], { type: "image/svg+xml" }), fileName("svg"));
  }

  async function downloadPng() {
    if (!svgEl) return;
    const source = URL.createObjectURL(new Blob([exported()], { type: "image/svg+xml" }));
    try {
      const img = new Image();
      await new Promise((resolveP, reject) => {
        img.onload = resolveP;
        img.onerror = () => reject(new Error("could not render the graph as an image"));
        img.src = source;
      });
      const scale = Math.min(2, MAX_PNG_SIDE / Math.max(data.width, data.height), Math.sqrt(MAX_PNG_PIXELS / (data.width * data.height)));
      const width = Math.max(1, Math.round(data.width * scale));
      const canvas = el("canvas", { width, height: Math.max(1, Math.round(data.height * scale)) });
      const c2d = canvas.getContext("2d");
      c2d.scale(scale, scale);
      c2d.drawImage(img, 0, 0, data.width, data.height);
      const blob = await new Promise((resolveP) => canvas.toBlob(resolveP, "image/png"));
      if (!blob) throw new Error("the graph is too large for a PNG");
      download(blob, fileName("png"));
    } finally {
      URL.revokeObjectURL(source);
    }
  }

  // ------------------------------------------------------------ life cycle
  const onRuns = (e) => {
    if (e.detail && e.detail.what === "colors") return;
    const before = key();
    fillPicker();
    const p = pairs()[Number(picker.value)];
    if (!p || p.run + "\u0000" + p.tag !== before) load({ fitAfter: true }).catch(ctx.showError);
  };
  ctx.runs.addEventListener("change", onRuns);
  const onTheme = () => {
    if (data) {
      render();
      applyViewBox();
      highlight();
    }
  };
  window.addEventListener("tbkit-theme", onTheme);

  let seen = "";
  async function refresh() {
    listing = await getJSON("data/plugin/graphs/list");
    const stamp = JSON.stringify(listing);
    if (stamp === seen && data) return;
    seen = stamp;
    await load({ fitAfter: !data });
  }
  refresh().catch(ctx.showError);

  return {
    refresh,
    destroy() {
      token++;
      ctx.runs.removeEventListener("change", onRuns);
      window.removeEventListener("tbkit-theme", onTheme);
      resize.disconnect();
      if (frame) cancelAnimationFrame(frame);
      clearTimeout(commitTimer);
    },
  };
}
