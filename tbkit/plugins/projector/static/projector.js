// The Projector: an embedding's points laid out by PCA (server, NumPy), t-SNE (a server job, polled)
// or UMAP (where umap-learn is installed) in 2-D or 3-D; coloured and labelled by metadata, searched by
// regex, with nearest neighbours (full dimensions, server-side) and sprite thumbnails.
import { getJSON, postJSON, url, loadStyle } from "../../api.js";
import { el, clear, compileFilter, debounce, formatCount, store } from "../../util.js";
import { colorScheme, MAX_CATEGORIES } from "./colors.js";
import { Inspector } from "./inspector.js";
import { CONFIG, figure } from "./plot.js";
import { loadSprite, thumbnailUrls } from "./sprites.js";

const ROUTE = "data/plugin/projector/";
const POLL_MS = 400;
const MAX_THUMBS = 1000; // thumbnails drawn on a 2-D plot at most
const METHOD_NAMES = { pca: "PCA", tsne: "t-SNE", umap: "UMAP" };

/** base64 little-endian float32 -> Float32Array. */
function f32(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

function numberInput(cls, label, value, attrs = {}) {
  return el("input", { type: "number", class: cls, value: String(value), "aria-label": label, ...attrs });
}

function field(label, ...controls) {
  return el("label", { class: "pj-field" }, el("span", { class: "pj-label", text: label }), ...controls);
}

export function mount(root, ctx) {
  const saved = store.get("projector", {});
  const s = {
    listing: null,
    key: null, // {run, tensor}
    meta: null,
    pca: null, // {coords, k, variance}
    layout: null, // t-SNE/UMAP: {method, coords, dims, idx, job, state, iteration, iterations, total}
    sprite: null,
    method: saved.method || "pca",
    dims: saved.dims === 3 ? 3 : 2, // 2-D first: an SVG scatter draws sooner than a cold WebGL scene
    axes: [0, 1, 2],
    colorBy: null,
    labelBy: null,
    matches: null,
    selected: null,
    neighbors: [],
    k: saved.k || 10,
    metric: saved.metric || "cosine",
    thumbs: false,
    drawnDims: 0,
    revision: 0,
  };
  let token = 0;
  let neighborToken = 0;
  let pollTimer = null;
  let destroyed = false;
  const thumbCache = new Map();
  const remember = () => store.set("projector", { method: s.method, dims: s.dims, k: s.k, metric: s.metric, key: s.key });

  loadStyle(new URL("./projector.css", import.meta.url)).catch(ctx.showError);
  const plotlyReady = ctx.loadPlotly();
  plotlyReady.catch(ctx.showError);

  // ---- controls (left panel)
  const embeddingSelect = el("select", { class: "pj-embedding", "aria-label": "Embedding" });
  const runSwatch = el("span", { class: "swatch" });
  const shapeNote = el("div", { class: "pj-note muted pj-shape" });
  const methodSelect = el("select", { class: "pj-method", "aria-label": "Projection" });
  const dimsSelect = el(
    "select",
    { class: "pj-dims", "aria-label": "Dimensions" },
    el("option", { value: "2", text: "2-D" }),
    el("option", { value: "3", text: "3-D" }),
  );
  dimsSelect.value = String(s.dims);
  const axisSelects = [0, 1, 2].map((a) => el("select", { class: `pj-axis pj-axis-${"xyz"[a]}`, "aria-label": `${"XYZ"[a]} component` }));
  const varianceNote = el("div", { class: "pj-note muted pj-variance" });
  const pcaBox = el("div", { class: "pj-section pj-pca" }, el("div", { class: "pj-row" }, ...axisSelects.map((sel, a) => field("XYZ"[a], sel))), varianceNote);

  const perplexity = numberInput("pj-perplexity", "Perplexity", saved.perplexity || 30, { min: "2", max: "100" });
  const learningRate = numberInput("pj-learning-rate", "Learning rate (0: automatic)", 0, { min: "0", step: "10" });
  const iterations = numberInput("pj-iterations", "Iterations", saved.iterations || 500, { min: "10", max: "5000", step: "50" });
  const sampleSize = numberInput("pj-sample", "Points (a random sample when there are more)", 2000, { min: "10", step: "100" });
  const engineSelect = el("select", { class: "pj-engine", "aria-label": "t-SNE engine" });
  const runButton = el("button", { type: "button", class: "small pj-run", text: "Re-run" });
  const stopButton = el("button", { type: "button", class: "small pj-stop", text: "Stop" });
  const progress = el("progress", { class: "pj-progress", max: "1", value: "0" });
  const progressText = el("div", { class: "pj-note pj-progress-text num" });
  const sampleNote = el("div", { class: "pj-note muted pj-sample-note" });
  const tsneParams = el(
    "div",
    { class: "pj-tsne-params" },
    el("div", { class: "pj-row" }, field("Perplexity", perplexity), field("Learning rate", learningRate)),
    el("div", { class: "pj-row" }, field("Iterations", iterations), field("Points", sampleSize)),
    el("div", { class: "pj-row pj-engine-row" }, field("Engine", engineSelect)),
  );
  const jobBox = el(
    "div",
    { class: "pj-section pj-job", dataset: { state: "" } },
    tsneParams,
    el("div", { class: "pj-row" }, runButton, stopButton),
    progress,
    progressText,
    sampleNote,
  );

  const colorSelect = el("select", { class: "pj-color", "aria-label": "Colour by" });
  const labelSelect = el("select", { class: "pj-label-by", "aria-label": "Label by" });
  const legend = el("div", { class: "pj-legend" });
  const searchInput = el("input", { type: "search", class: "pj-search", placeholder: "Search (regex)", "aria-label": "Search by regular expression", value: "" });
  const searchColumn = el("select", { class: "pj-search-column", "aria-label": "Search in" });
  const thumbsToggle = el("input", { type: "checkbox", class: "pj-thumbs" });
  const thumbsLabel = el("label", { class: "inline pj-thumbs-label", hidden: true }, thumbsToggle, "Thumbnails on the plot (2-D)");

  const panel = el(
    "div",
    { class: "pj-panel" },
    field("Embedding", el("span", { class: "pj-inline" }, runSwatch, embeddingSelect)),
    shapeNote,
    el("div", { class: "pj-row" }, field("Projection", methodSelect), field("View", dimsSelect)),
    pcaBox,
    jobBox,
    el("div", { class: "pj-row" }, field("Colour by", colorSelect), field("Label by", labelSelect)),
    legend,
    field("Search", el("span", { class: "pj-search-row" }, searchInput, searchColumn)),
    thumbsLabel,
  );

  const plot = el("div", { class: "pj-plot", dataset: { ready: "0", points: "0", total: "0", method: s.method, dims: String(s.dims), selected: "", matches: "" } });
  const plotNote = el("div", { class: "pj-note muted pj-plot-note" });
  const message = el("div", { class: "empty pj-message", hidden: true });
  const inspector = new Inspector({
    k: s.k,
    metric: s.metric,
    onPick: (i) => select(i),
    onClear: () => select(null),
    onNeighbors: ({ k, metric }) => {
      s.k = k;
      s.metric = metric;
      remember();
      if (s.selected !== null) loadNeighbors();
    },
  });
  const body = el("div", { class: "pj-body" }, panel, el("div", { class: "pj-center" }, message, plot, plotNote), inspector.element);
  clear(root).append(body);
  root.classList.add("projector");

  // ---- helpers
  const columns = () => (s.meta ? s.meta.columns : []);
  const columnValues = (name) => (name === null || !s.meta ? null : s.meta.values[s.meta.columns.indexOf(name)]);
  const label = (i) => {
    const values = columnValues(s.labelBy);
    return values ? `${values[i]}` : `#${i}`;
  };
  const inspectCtx = () => ({ sprite: s.sprite, columns: columns(), values: s.meta ? s.meta.values : [], label });
  const setPlotState = (attrs) => Object.assign(plot.dataset, attrs);

  function showMessage(text) {
    message.textContent = text;
    message.hidden = !text;
    plot.hidden = !!text;
  }

  function fillSelect(select, options, value) {
    clear(select).append(...options.map(([v, t]) => el("option", { value: v, text: t })));
    if (value !== undefined && options.some(([v]) => v === value)) select.value = value;
  }

  function embeddingsOfActiveRuns() {
    const byRun = (s.listing && s.listing.runs) || {};
    const out = [];
    for (const run of ctx.runs.active()) {
      for (const e of byRun[run] || []) if (e.available) out.push({ run, tensor: e.name, info: e });
    }
    return out;
  }

  function syncEmbeddings() {
    const list = embeddingsOfActiveRuns();
    const value = (e) => JSON.stringify([e.run, e.tensor]);
    fillSelect(embeddingSelect, list.map((e) => [value(e), `${e.run} / ${e.tensor}`]));
    if (!list.length) {
      s.key = null;
      showMessage(s.listing && Object.keys(s.listing.runs).length ? "No embeddings in the selected runs." : "No embeddings: a run needs a projector_config.pbtxt (add_embedding writes one).");
      setPlotState({ ready: "0", points: "0" });
      return;
    }
    const wanted = s.key || saved.key;
    const found = wanted && list.find((e) => e.run === wanted.run && e.tensor === wanted.tensor);
    const pick = found || list[0];
    embeddingSelect.value = value(pick);
    runSwatch.style.background = ctx.runs.color(pick.run);
    if (!s.key || s.key.run !== pick.run || s.key.tensor !== pick.tensor) open({ run: pick.run, tensor: pick.tensor });
  }

  function syncMethods() {
    const methods = (s.listing && s.listing.methods) || ["pca", "tsne"];
    if (!methods.includes(s.method)) s.method = "pca";
    fillSelect(methodSelect, methods.map((m) => [m, METHOD_NAMES[m] || m]), s.method);
    const engines = (s.listing && s.listing.tsne.engines) || ["numpy"];
    fillSelect(engineSelect, engines.map((e) => [e, e === "numpy" ? "NumPy (exact)" : "scikit-learn"]), engines[engines.length - 1]);
    engineSelect.closest(".pj-engine-row").hidden = engines.length < 2;
    syncSampleLimit();
  }

  function syncSampleLimit() {
    if (!s.listing) return;
    const max = s.listing.tsne.max_points[engineSelect.value] || s.listing.tsne.default_points;
    sampleSize.max = String(max);
    if (Number(sampleSize.value) > max) sampleSize.value = String(max);
  }

  function syncPanels() {
    pcaBox.hidden = s.method !== "pca";
    jobBox.hidden = s.method === "pca";
    tsneParams.hidden = s.method !== "tsne";
    axisSelects[2].closest(".pj-field").hidden = s.dims !== 3;
    thumbsLabel.hidden = !s.sprite || s.dims !== 2;
  }

  function syncMetadataControls() {
    const cols = columns();
    const colorOptions = [["", "run colour"], ...cols.map((c) => [c, c])];
    // By default, the first column with few distinct values (a class): many words would only repeat colours.
    const few = cols.find((c) => new Set(columnValues(c)).size <= MAX_CATEGORIES);
    s.colorBy = cols.includes(s.colorBy) ? s.colorBy : few !== undefined ? few : null;
    fillSelect(colorSelect, colorOptions, s.colorBy === null ? "" : s.colorBy);
    s.labelBy = cols.includes(s.labelBy) ? s.labelBy : cols.length ? cols[0] : null;
    fillSelect(labelSelect, [["", "index"], ...cols.map((c) => [c, c])], s.labelBy === null ? "" : s.labelBy);
    fillSelect(searchColumn, [["", cols.length ? "all columns" : "index"], ...cols.map((c) => [c, c])], searchColumn.value);
  }

  function syncAxes() {
    const k = s.pca ? s.pca.k : 0;
    axisSelects.forEach((sel, a) => {
      fillSelect(sel, Array.from({ length: Math.max(k, 3) }, (_, c) => [String(c), c < k ? `PC${c + 1}` : `PC${c + 1} (none)`]), String(s.axes[a]));
      sel.value = String(s.axes[a]);
    });
  }

  function scheme() {
    const values = columnValues(s.colorBy);
    const fallback = s.key ? ctx.runs.color(s.key.run) : "#888888";
    return colorScheme(values, fallback);
  }

  function renderLegend(sc) {
    clear(legend);
    legend.dataset.kind = sc.kind;
    if (sc.kind === "category") {
      legend.append(
        ...sc.categories.slice(0, MAX_CATEGORIES).map(([v, color, n]) =>
          el("div", { class: "pj-legend-item", dataset: { value: v } }, el("span", { class: "swatch", style: `background:${color}` }), el("span", { class: "pj-legend-value", text: v === "" ? "(empty)" : v }), el("span", { class: "muted num", text: formatCount(n) })),
        ),
      );
      if (sc.repeats) legend.append(el("div", { class: "pj-note muted", text: `${formatCount(sc.categories.length)} values: colours repeat` }));
    } else if (sc.kind === "numeric") {
      legend.append(el("div", { class: "pj-note muted", text: `${sc.min} … ${sc.max} (dark to light)` }));
    }
  }

  function search() {
    const pattern = searchInput.value;
    const { re, invalid } = compileFilter(pattern);
    searchInput.classList.toggle("invalid", invalid);
    if (!re || !s.meta) {
      s.matches = null;
    } else {
      const n = s.meta.shape[0];
      const col = searchColumn.value;
      const lists = col ? [columnValues(col)] : s.meta.values.length ? s.meta.values : null;
      const found = new Set();
      for (let i = 0; i < n; i++) {
        if (lists ? lists.some((vals) => re.test(vals[i])) : re.test(String(i))) found.add(i);
      }
      s.matches = found;
    }
    setPlotState({ matches: s.matches === null ? "" : String(s.matches.size) });
    inspector.showMatches(s.matches, inspectCtx());
    draw();
  }

  // ---- the view
  function currentView() {
    const n = s.meta.shape[0];
    if (s.method === "pca") {
      if (!s.pca) return null;
      const axes = s.axes.slice(0, s.dims);
      return {
        coords: s.pca.coords,
        stride: s.pca.k,
        axes,
        idx: null,
        n,
        axisTitles: axes.map((a) => (a < s.pca.k ? `PC${a + 1} (${(100 * s.pca.variance[a]).toFixed(1)} %)` : "")),
      };
    }
    const lay = s.layout;
    if (!lay || lay.method !== s.method || !lay.coords || lay.dims !== s.dims) return null;
    return { coords: lay.coords, stride: lay.dims, axes: [0, 1, 2], idx: lay.idx, n, axisTitles: ["", "", ""] };
  }

  function thumbImages(view, cols) {
    if (!s.thumbs || !s.sprite || s.dims !== 2) return null;
    const count = view.idx ? view.idx.length : view.n;
    const step = Math.max(1, Math.ceil(count / MAX_THUMBS));
    const rows = [];
    for (let r = 0; r < count; r += step) rows.push(r);
    const sources = thumbnailUrls(s.sprite, rows.map((r) => (view.idx ? view.idx[r] : r)), thumbCache);
    return rows.map((r, j) => ({ source: sources[j], x: cols[0][r], y: cols[1][r] }));
  }

  let drawing = Promise.resolve();
  let clickBound = false;
  let pointsOf = [];
  function draw() {
    drawing = drawing.then(drawNow).catch((err) => ctx.showError(err));
    return drawing;
  }

  async function drawNow() {
    if (destroyed || !s.meta) return;
    const base = currentView();
    if (!base) return;
    const Plotly = await plotlyReady;
    const sc = scheme();
    renderLegend(sc);
    const view = {
      ...base,
      dims: s.dims,
      scheme: sc,
      colorValues: columnValues(s.colorBy),
      labels: (i) => (s.labelBy === null ? `#${i}` : `#${i} ${label(i)}`),
      matches: s.matches,
      selected: s.selected,
      neighbors: s.neighbors.map((nb) => nb.index),
      revision: s.revision,
    };
    let fig = figure(view);
    if (s.thumbs && s.sprite && s.dims === 2) {
      const cols = fig.columns;
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of cols[0]) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      view.images = thumbImages(view, cols);
      view.imageSize = (hi - lo || 1) / 25;
      fig = figure(view);
    }
    if (s.drawnDims !== s.dims && plot.data) {
      Plotly.purge(plot); // another trace type: a fresh WebGL scene (purge also drops the listeners)
      clickBound = false;
    }
    await Plotly.react(plot, fig.traces, fig.layout, CONFIG);
    pointsOf = fig.pointsOf;
    if (!clickBound) {
      plot.on("plotly_click", (ev) => {
        const p = ev && ev.points && ev.points[0];
        const map = p && pointsOf[p.curveNumber];
        if (map) select(map(p.pointNumber));
      });
      clickBound = true;
    }
    s.drawnDims = s.dims;
    const count = view.idx ? view.idx.length : view.n;
    setPlotState({ ready: "1", points: String(count), total: String(view.n), method: s.method, dims: String(s.dims) });
    plotNote.textContent =
      count < view.n
        ? `${METHOD_NAMES[s.method]} of ${formatCount(count)} of ${formatCount(view.n)} points (a random sample)`
        : `${formatCount(count)} points`;
  }

  // ---- selection and neighbours
  function select(i) {
    s.selected = i;
    s.neighbors = [];
    setPlotState({ selected: i === null ? "" : String(i) });
    inspector.showSelected(i, inspectCtx());
    draw();
    if (i !== null) loadNeighbors();
  }

  async function loadNeighbors() {
    const mine = ++neighborToken;
    const index = s.selected;
    try {
      const answer = await getJSON(ROUTE + "neighbors", { ...s.key, index, k: s.k, metric: s.metric });
      if (mine !== neighborToken || destroyed) return;
      s.neighbors = answer.neighbors;
      const view = currentView();
      const drawn = view && view.idx ? new Set(view.idx) : null;
      const missing = drawn ? answer.neighbors.filter((nb) => !drawn.has(nb.index)).length : 0;
      inspector.showNeighbors(index, answer.neighbors, answer.metric, inspectCtx(), missing);
      draw();
    } catch (err) {
      if (mine === neighborToken) inspector.neighborsFailed(err.message);
    }
  }

  // ---- layout jobs (t-SNE, UMAP)
  function stopPolling() {
    clearTimeout(pollTimer);
    pollTimer = null;
  }

  function cancelJob() {
    stopPolling();
    const lay = s.layout;
    if (lay && lay.state === "running") {
      lay.state = "cancelled";
      postJSON(ROUTE + "job/cancel", { id: lay.job }).catch(() => {});
    }
  }

  function showJob() {
    const lay = s.layout;
    jobBox.dataset.state = lay ? lay.state : "";
    jobBox.dataset.iteration = lay ? String(lay.iteration) : "0";
    progress.max = lay ? Math.max(1, lay.iterations) : 1;
    progress.value = lay ? lay.iteration : 0;
    stopButton.disabled = !lay || lay.state !== "running";
    if (!lay) {
      progressText.textContent = "";
      sampleNote.textContent = "";
      return;
    }
    const what = lay.method === "umap" ? "" : `iteration ${formatCount(lay.iteration)} / ${formatCount(lay.iterations)}`;
    progressText.textContent = lay.state === "error" ? "Failed: " + lay.error : `${what}${what ? " · " : ""}${lay.state}`;
    sampleNote.textContent =
      lay.points < lay.total
        ? `On ${formatCount(lay.points)} of ${formatCount(lay.total)} points, a random sample (the exact t-SNE costs N² per step).`
        : `On all ${formatCount(lay.total)} points.`;
  }

  async function startJob() {
    cancelJob();
    if (!s.key || s.method === "pca") return;
    const mine = token;
    const body = { ...s.key, dims: s.dims, points: Number(sampleSize.value) || undefined };
    if (s.method === "tsne") {
      Object.assign(body, {
        perplexity: Number(perplexity.value) || 30,
        learning_rate: Number(learningRate.value) || 0,
        iterations: Number(iterations.value) || 500,
        engine: engineSelect.value,
      });
      store.set("projector", { ...store.get("projector", {}), perplexity: body.perplexity, iterations: body.iterations });
    }
    s.layout = null;
    setPlotState({ ready: "0" });
    showJob();
    let started;
    try {
      started = await postJSON(ROUTE + s.method, body);
    } catch (err) {
      progressText.textContent = "Could not start: " + err.message;
      return;
    }
    if (mine !== token || destroyed) {
      postJSON(ROUTE + "job/cancel", { id: started.job }).catch(() => {});
      return;
    }
    s.layout = {
      method: s.method,
      job: started.job,
      dims: started.dims,
      idx: started.indices ? Int32Array.from(started.indices) : null,
      coords: null,
      state: "running",
      iteration: 0,
      iterations: started.iterations || 1,
      points: started.points,
      total: started.total,
      error: "",
    };
    s.revision++;
    showJob();
    poll(s.layout);
  }

  async function poll(lay) {
    if (destroyed || s.layout !== lay) return;
    try {
      const st = await getJSON(ROUTE + "job", { id: lay.job, coords: 1 });
      if (s.layout !== lay) return;
      const moved = st.iteration !== lay.iteration || st.state !== lay.state;
      Object.assign(lay, { state: st.state, iteration: st.iteration, error: st.error });
      if (st.coords && moved) {
        lay.coords = f32(st.coords);
        await draw();
      }
      showJob();
      if (st.state === "running") pollTimer = setTimeout(() => poll(lay), POLL_MS);
    } catch (err) {
      lay.state = "error";
      lay.error = err.message;
      showJob();
    }
  }

  // ---- opening an embedding
  async function open(key) {
    const mine = ++token;
    cancelJob();
    s.key = key;
    s.meta = null;
    s.pca = null;
    s.layout = null;
    s.sprite = null;
    s.selected = null;
    s.neighbors = [];
    s.matches = null;
    s.revision++;
    thumbCache.clear();
    remember();
    setPlotState({ ready: "0", selected: "", matches: "" });
    showMessage("");
    shapeNote.textContent = "Loading…";
    inspector.showSelected(null, inspectCtx());
    inspector.showMatches(null, inspectCtx());
    showJob();
    let meta;
    let pca;
    try {
      [meta, pca] = await Promise.all([getJSON(ROUTE + "metadata", key), getJSON(ROUTE + "pca", key)]);
    } catch (err) {
      if (mine !== token) return;
      shapeNote.textContent = "";
      showMessage("Could not load the embedding: " + err.message);
      return;
    }
    if (mine !== token || destroyed) return;
    s.meta = meta;
    s.pca = { coords: f32(pca.coords), k: pca.components, variance: pca.variance };
    s.axes = [0, 1, 2];
    const [n, d] = meta.shape;
    shapeNote.textContent = `${formatCount(n)} points × ${formatCount(d)} dimensions` + (meta.warnings.length ? ` · ${meta.warnings.join("; ")}` : "");
    syncMetadataControls();
    syncAxes();
    varianceNote.textContent = "";
    updateVariance();
    syncPanels();
    if (s.method === "pca") await draw();
    else startJob();
    if (searchInput.value) search();
    if (meta.sprite) {
      loadSprite(url(ROUTE + "sprite", key), meta.sprite.width, meta.sprite.height)
        .then((sprite) => {
          if (mine !== token) return;
          s.sprite = sprite;
          plot.dataset.sprite = "1";
          syncPanels();
          if (s.selected !== null) select(s.selected);
          inspector.showMatches(s.matches, inspectCtx());
        })
        .catch(ctx.showError);
    }
  }

  function updateVariance() {
    if (!s.pca) return;
    const used = s.axes.slice(0, s.dims).filter((a) => a < s.pca.k);
    const total = used.reduce((acc, a) => acc + s.pca.variance[a], 0);
    varianceNote.textContent = `Variance described: ${(100 * total).toFixed(1)} %`;
  }

  // ---- events
  embeddingSelect.addEventListener("change", () => {
    const [run, tensor] = JSON.parse(embeddingSelect.value);
    runSwatch.style.background = ctx.runs.color(run);
    open({ run, tensor });
  });
  methodSelect.addEventListener("change", () => {
    s.method = methodSelect.value;
    remember();
    syncPanels();
    setPlotState({ method: s.method });
    if (s.method === "pca") {
      cancelJob();
      s.revision++;
      draw();
    } else if (s.meta) startJob();
  });
  dimsSelect.addEventListener("change", () => {
    s.dims = Number(dimsSelect.value);
    remember();
    syncPanels();
    updateVariance();
    s.revision++;
    if (s.method === "pca") draw();
    else if (s.meta) startJob();
  });
  axisSelects.forEach((sel, a) =>
    sel.addEventListener("change", () => {
      s.axes[a] = Number(sel.value);
      updateVariance();
      s.revision++;
      draw();
    }),
  );
  runButton.addEventListener("click", () => startJob());
  stopButton.addEventListener("click", () => {
    cancelJob();
    showJob();
  });
  engineSelect.addEventListener("change", syncSampleLimit);
  colorSelect.addEventListener("change", () => {
    s.colorBy = colorSelect.value || null;
    draw();
  });
  labelSelect.addEventListener("change", () => {
    s.labelBy = labelSelect.value || null;
    inspector.showMatches(s.matches, inspectCtx());
    if (s.selected !== null) select(s.selected);
    else draw();
  });
  searchInput.addEventListener("input", debounce(search, 200));
  searchColumn.addEventListener("change", search);
  thumbsToggle.addEventListener("change", () => {
    s.thumbs = thumbsToggle.checked;
    draw();
  });
  const onRuns = (ev) => {
    if (ev.detail.what === "colors") draw();
    else syncEmbeddings();
  };
  ctx.runs.addEventListener("change", onRuns);
  const onTheme = () => draw();
  window.addEventListener("tbkit-theme", onTheme);

  async function refresh() {
    try {
      s.listing = await getJSON(ROUTE + "embeddings");
    } catch (err) {
      showMessage("Could not list the embeddings: " + err.message);
      return;
    }
    if (destroyed) return;
    if (!sampleSize.dataset.touched) sampleSize.value = String(s.listing.tsne.default_points);
    syncMethods();
    syncPanels();
    syncEmbeddings();
  }
  sampleSize.addEventListener("change", () => (sampleSize.dataset.touched = "1"));

  refresh();
  return {
    refresh,
    destroy() {
      destroyed = true;
      cancelJob();
      ctx.runs.removeEventListener("change", onRuns);
      window.removeEventListener("tbkit-theme", onTheme);
      if (window.Plotly && plot.data) window.Plotly.purge(plot);
    },
  };
}
