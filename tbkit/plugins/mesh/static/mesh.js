// The Mesh dashboard (plotly WebGL): per run and mesh, a point cloud (scatter3d) or a mesh
// (mesh3d) in its logged colours, with a step slider.
//
// A 3-D plot holds a WebGL context and Chromium keeps only 16 alive per page, so plots are
// drawn only in cards on screen and at most MAX_LIVE at a time: a card scrolled away is
// purged (its context released) and drawn again when it comes back.
import { getJSON, loadStyle } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { cssVar, el, formatCount } from "../../util.js";
import { CONFIG, baseLayout } from "../histograms/plotcommon.js";

const MAX_LIVE = 6;
const MARKER_SIZE = 2.5;

/** Free a purged plot's WebGL contexts now instead of whenever they are collected. */
function releaseGL(canvases) {
  for (const canvas of canvases) {
    const gl = canvas.getContext("webgl") || canvas.getContext("webgl2");
    const ext = gl && gl.getExtension("WEBGL_lose_context");
    if (ext) ext.loseContext();
  }
}

/** The cards that hold a live 3-D plot: at most MAX_LIVE, only those on screen. */
class Viewers {
  constructor(root) {
    this.root = root;
    this.live = new Set();
    this.visible = new Set();
    this.byElement = new WeakMap();
    this.io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const card = this.byElement.get(e.target);
        if (!card) continue;
        if (e.isIntersecting) {
          this.visible.add(card);
          this.request(card);
        } else {
          this.visible.delete(card);
          this.release(card);
        }
      }
      this.pump();
    });
    this.update();
  }

  observe(card) {
    this.byElement.set(card.element, card);
    this.io.observe(card.element);
  }

  forget(card) {
    this.io.unobserve(card.element);
    this.visible.delete(card);
    this.release(card);
    this.pump();
  }

  /** Draw `card` if it is on screen and a slot is free (or `force`: take the oldest slot). */
  request(card, force = false) {
    if (!card.hasData() || (!force && !this.visible.has(card))) return;
    if (!this.live.has(card) && this.live.size >= MAX_LIVE) {
      if (!force) {
        card.waiting(true);
        return;
      }
      const oldest = this.live.values().next().value;
      this.release(oldest);
    }
    this.live.delete(card); // re-insert: the set's order is the order of use
    this.live.add(card);
    card.waiting(false);
    card.draw();
    this.update();
  }

  release(card) {
    if (!this.live.delete(card)) return;
    card.purge();
    if (this.visible.has(card)) card.waiting(true);
    this.update();
  }

  /** Give free slots to cards on screen that wait for one. */
  pump() {
    for (const card of this.visible) {
      if (this.live.size >= MAX_LIVE) break;
      if (!this.live.has(card)) this.request(card);
    }
  }

  update() {
    this.root.dataset.live = String(this.live.size);
  }

  destroy() {
    this.io.disconnect();
    for (const card of Array.from(this.live)) this.release(card);
  }
}

function rgbStrings(flat, count) {
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = `rgb(${flat[3 * i]},${flat[3 * i + 1]},${flat[3 * i + 2]})`;
  return out;
}

/** Plotly traces of one mesh answer: a scatter3d point cloud or a mesh3d with its colours. */
function meshTraces(m, color) {
  const n = m.vertices.length / 3;
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  const z = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = m.vertices[3 * i];
    y[i] = m.vertices[3 * i + 1];
    z[i] = m.vertices[3 * i + 2];
  }
  const nColors = m.colors ? m.colors.length / 3 : 0;
  const hover = "x %{x:.4g}<br>y %{y:.4g}<br>z %{z:.4g}<extra></extra>";
  if (!m.faces || !m.faces.length) {
    const marker = { size: MARKER_SIZE, color: nColors === n ? rgbStrings(m.colors, n) : color };
    return [{ type: "scatter3d", mode: "markers", x, y, z, marker, hovertemplate: hover }];
  }
  const f = m.faces.length / 3;
  const i = new Int32Array(f);
  const j = new Int32Array(f);
  const k = new Int32Array(f);
  for (let t = 0; t < f; t++) {
    i[t] = m.faces[3 * t];
    j[t] = m.faces[3 * t + 1];
    k[t] = m.faces[3 * t + 2];
  }
  const trace = { type: "mesh3d", x, y, z, i, j, k, flatshading: true, hovertemplate: hover };
  if (nColors === n) trace.vertexcolor = rgbStrings(m.colors, n);
  else if (nColors === f) trace.facecolor = rgbStrings(m.colors, f);
  else trace.color = color;
  return [trace];
}

function sceneLayout(camera) {
  const base = baseLayout({ margin: { l: 0, r: 0, t: 0, b: 0 } });
  delete base.xaxis;
  delete base.yaxis;
  const grid = cssVar("--chart-grid") || "#e6e8eb";
  const axis = { gridcolor: grid, zerolinecolor: grid, linecolor: grid, showbackground: false, tickfont: { size: 9 }, title: { text: "" } };
  const scene = { aspectmode: "data", xaxis: axis, yaxis: { ...axis }, zaxis: { ...axis } };
  if (camera) scene.camera = camera;
  return { ...base, scene, uirevision: "mesh" };
}

export function mount(root, ctx) {
  loadStyle(new URL("./mesh.css", import.meta.url)).catch(ctx.showError);
  const plotlyReady = ctx.loadPlotly();
  plotlyReady.catch(ctx.showError);
  const viewers = new Viewers(root);

  const makeCard = (run, tag, info, color) => {
    const frame = cardFrame("mesh", run, tag, color, info);
    const plot = el("div", { class: "plot mesh-plot" });
    const show = el("button", { type: "button", class: "mesh-show", text: "Show 3-D view", hidden: true });
    const stepInput = el("input", { type: "range", class: "mesh-step", min: "0", max: "0", step: "1", value: "0", "aria-label": "step" });
    const stepLabel = el("span", { class: "step-label num" });
    const sampleSelect = el("select", { class: "mesh-sample", "aria-label": "sample", hidden: true });
    frame.body.append(el("div", { class: "mesh-view" }, plot, show), el("div", { class: "step-row" }, stepInput, stepLabel, sampleSelect));
    let steps = []; // the /meshes answer
    let followLast = true;
    let mesh = null; // the /mesh answer shown
    let col = color;
    let camera = null;
    let token = 0;
    let listening = false; // a camera listener on the current plot

    const fetchMesh = async () => {
      const entry = steps[Number(stepInput.value)];
      if (!entry) return;
      const mine = ++token;
      stepLabel.textContent = `step ${entry.step} (${Number(stepInput.value) + 1}/${steps.length})`;
      const answer = await getJSON("data/plugin/mesh/mesh", { run, tag, step: entry.step, sample: Number(sampleSelect.value) || 0 });
      if (mine !== token) return;
      mesh = answer;
      const shown = mesh.vertices.length / 3;
      const what = mesh.faces ? `${formatCount(shown)} vertices, ${formatCount(mesh.faces.length / 3)} faces` : `${formatCount(shown)} points`;
      frame.note.textContent = shown < mesh.total_vertices ? `${formatCount(shown)} of ${formatCount(mesh.total_vertices)} points` : what;
      frame.element.dataset.step = String(mesh.step);
      if (card.live) card.draw();
      else viewers.request(card);
    };

    const card = {
      element: frame.element,
      live: false,
      hasData: () => mesh !== null,
      waiting(on) {
        show.hidden = !on;
      },
      async draw() {
        card.live = true;
        const Plotly = await plotlyReady;
        if (!card.live || !mesh) return;
        await Plotly.react(plot, meshTraces(mesh, col), sceneLayout(camera), CONFIG);
        if (!card.live) {
          card.purge(); // released while drawing: free what this draw made
          return;
        }
        if (!listening) {
          listening = true;
          plot.on("plotly_relayout", (e) => {
            if (e && e["scene.camera"]) camera = e["scene.camera"];
          });
        }
        Object.assign(plot.dataset, {
          ready: "1",
          kind: mesh.faces ? "mesh" : "points",
          points: String(mesh.vertices.length / 3),
          total: String(mesh.total_vertices),
          faces: String(mesh.faces ? mesh.faces.length / 3 : 0),
          colors: mesh.colors ? "1" : "0",
          step: String(mesh.step),
        });
      },
      purge() {
        card.live = false;
        listening = false;
        plot.dataset.ready = "0";
        if (!window.Plotly) return;
        const canvases = Array.from(plot.querySelectorAll("canvas"));
        window.Plotly.purge(plot);
        releaseGL(canvases);
      },
      async load() {
        try {
          const sample = Number(sampleSelect.value) || 0;
          const current = steps[Number(stepInput.value)];
          steps = await getJSON("data/plugin/mesh/meshes", { run, tag, sample });
          if (!steps.length) {
            frame.note.textContent = "No data.";
            return;
          }
          const samples = Math.max(...steps.map((s) => s.samples));
          if (sampleSelect.options.length !== samples) {
            sampleSelect.replaceChildren(...Array.from({ length: samples }, (_, i) => el("option", { value: String(i), text: `sample ${i + 1}` })));
            sampleSelect.value = String(Math.min(sample, samples - 1));
          }
          sampleSelect.hidden = samples < 2;
          stepInput.max = String(steps.length - 1);
          stepInput.hidden = steps.length < 2;
          const keep = current ? steps.findIndex((s) => s.step === current.step) : -1;
          stepInput.value = String(followLast || keep < 0 ? steps.length - 1 : keep);
          frame.element.dataset.steps = String(steps.length);
          await fetchMesh();
        } catch (err) {
          frame.note.textContent = "Could not load: " + err.message;
        }
      },
      recolor(c) {
        col = c;
        frame.swatch.style.background = c;
        if (card.live) card.draw();
      },
      destroy() {
        viewers.forget(card);
      },
    };
    const refetch = () => fetchMesh().catch((err) => (frame.note.textContent = "Could not load: " + err.message));
    stepInput.addEventListener("input", () => {
      followLast = Number(stepInput.value) === steps.length - 1;
      refetch();
    });
    sampleSelect.addEventListener("change", refetch);
    show.addEventListener("click", () => viewers.request(card, true));
    viewers.observe(card);
    return card;
  };

  const grid = new RunTagGrid(root, ctx, { storeKey: "mesh", tagsRoute: "data/plugin/mesh/tags", makeCard });
  const onTheme = () => {
    for (const card of viewers.live) card.draw();
  };
  window.addEventListener("tbkit-theme", onTheme);
  grid.refresh().catch(ctx.showError);
  return {
    refresh: () => grid.refresh(),
    destroy() {
      window.removeEventListener("tbkit-theme", onTheme);
      viewers.destroy();
      grid.destroy();
    },
  };
}
