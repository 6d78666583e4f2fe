// The Histograms dashboard (plotly): per run and tag, the histograms over steps, in offset
// mode (a ridgeline, newest in front) or overlay mode (every step on one axis).
import { getJSON } from "../../api.js";
import { RunTagGrid, cardFrame } from "../../runtaggrid.js";
import { el, store, formatValue } from "../../util.js";
import { CONFIG, baseLayout, followTheme, rgba } from "./plotcommon.js";

const POINTS = 50;

function offsetTraces(hists, color) {
  const n = hists.length;
  let cmax = 0;
  for (const h of hists) for (const b of h.buckets) cmax = Math.max(cmax, b[2]);
  const s0 = hists[0].step;
  const s1 = hists[n - 1].step;
  const height = n > 1 ? ((s1 - s0) / (n - 1)) * 2.5 : 1; // a ridge overlaps ~2.5 rows
  return hists.map((h, i) => {
    const xs = [];
    const ys = [];
    const text = [];
    const first = h.buckets[0];
    const last = h.buckets[h.buckets.length - 1];
    if (first) {
      xs.push(first[0]);
      ys.push(h.step);
      text.push("");
    }
    for (const [l, r, c] of h.buckets) {
      xs.push((l + r) / 2);
      ys.push(h.step - (cmax > 0 ? (c / cmax) * height : 0));
      text.push(`step ${h.step}<br>[${formatValue(l)}, ${formatValue(r)}): ${formatValue(c)}`);
    }
    if (last) {
      xs.push(last[1]);
      ys.push(h.step);
      text.push("");
    }
    const frac = n > 1 ? i / (n - 1) : 1;
    return {
      type: "scatter",
      mode: "lines",
      x: xs,
      y: ys,
      text,
      hoverinfo: "text",
      fill: "toself",
      fillcolor: rgba(color, 0.08 + 0.3 * frac),
      line: { color: rgba(color, 0.35 + 0.65 * frac), width: 1 },
    };
  });
}

function overlayTraces(hists, color) {
  const n = hists.length;
  return hists.map((h, i) => {
    const frac = n > 1 ? i / (n - 1) : 1;
    return {
      type: "scatter",
      mode: "lines",
      x: h.buckets.map((b) => (b[0] + b[1]) / 2),
      y: h.buckets.map((b) => b[2]),
      name: `step ${h.step}`,
      hovertemplate: `step ${h.step}<br>%{x:.4g}: %{y:.4g}<extra></extra>`,
      line: { color: rgba(color, 0.15 + 0.85 * frac), width: i === n - 1 ? 2 : 1 },
    };
  });
}

export function mount(root, ctx) {
  let mode = store.get("histograms.mode", "offset");
  const plots = new Set();
  const select = el(
    "select",
    { class: "hist-mode", "aria-label": "Histogram mode" },
    el("option", { value: "offset", text: "Offset" }),
    el("option", { value: "overlay", text: "Overlay" }),
  );
  select.value = mode;
  const plotlyReady = ctx.loadPlotly();

  const makeCard = (run, tag, info, color) => {
    const frame = cardFrame("histogram", run, tag, color, info);
    const plot = el("div", { class: "plot" });
    frame.body.append(plot);
    let data = null;
    let col = color;
    const draw = async () => {
      const Plotly = await plotlyReady;
      if (!data) return;
      if (!data.length) {
        frame.note.textContent = "No data.";
        return;
      }
      const offset = mode === "offset";
      const layout = baseLayout({
        xaxis: {},
        yaxis: offset ? { autorange: "reversed", title: { text: "step", font: { size: 10 } } } : {},
      });
      await Plotly.react(plot, offset ? offsetTraces(data, col) : overlayTraces(data, col), layout, CONFIG);
      plots.add(plot);
      plot.dataset.ready = "1";
      plot.dataset.mode = mode;
      plot.dataset.steps = String(data.length);
    };
    return {
      element: frame.element,
      async load() {
        try {
          data = await getJSON("data/plugin/histograms/histograms", { run, tag, points: POINTS });
          frame.note.textContent = "";
          await draw();
        } catch (err) {
          frame.note.textContent = "Could not load: " + err.message;
        }
      },
      redraw: draw,
      recolor(c) {
        col = c;
        frame.swatch.style.background = c;
        draw();
      },
      destroy() {
        plots.delete(plot);
        if (window.Plotly) window.Plotly.purge(plot);
      },
    };
  };

  const grid = new RunTagGrid(root, ctx, {
    storeKey: "histograms",
    tagsRoute: "data/plugin/histograms/tags",
    makeCard,
    controls: [el("label", { class: "inline" }, "Mode ", select)],
  });
  select.addEventListener("change", () => {
    mode = select.value;
    store.set("histograms.mode", mode);
    for (const card of grid.cards.values()) if (card.redraw) card.redraw();
  });
  const stopTheme = followTheme(() => plots);
  plotlyReady.catch(ctx.showError);
  grid.refresh().catch(ctx.showError);
  return {
    refresh: () => grid.refresh(),
    destroy() {
      stopTheme();
      grid.destroy();
    },
  };
}
