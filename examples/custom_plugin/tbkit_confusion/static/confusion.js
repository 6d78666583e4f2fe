// The Confusion dashboard of the example plugin: the latest matrix of each selected run and
// tag, drawn as an HTML table. A plain ES module given the shell's ctx (api, runs, showError);
// every value goes in through textContent. data-* attributes let tests read what is drawn.

function node(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = String(text);
  return element;
}

function card(run, tag, entry, color) {
  const box = node("div", "card confusion-card");
  Object.assign(box.dataset, { run, tag, step: String(entry.step), accuracy: entry.accuracy == null ? "" : entry.accuracy.toFixed(3) });
  const head = node("div", "card-header");
  const swatch = node("span", "run-swatch");
  swatch.style.background = color;
  const accuracy = entry.accuracy == null ? "n/a" : entry.accuracy.toFixed(3);
  head.append(swatch, node("span", "card-title", tag), node("span", "card-run", `${run} · step ${entry.step} · accuracy ${accuracy}`));
  const table = node("table", "confusion-matrix");
  const header = node("tr");
  header.append(node("th", "", "true \\ predicted"), ...entry.matrix.map((_, j) => node("th", "", j)));
  table.append(header);
  entry.matrix.forEach((row, i) => {
    const tr = node("tr");
    tr.append(node("th", "", i));
    row.forEach((count, j) => {
      const cell = node("td", i === j ? "diagonal" : "", count);
      cell.style.cssText = "padding: 2px 10px; text-align: right" + (i === j ? "; font-weight: 600" : "");
      Object.assign(cell.dataset, { row: String(i), col: String(j), count: String(count) });
      tr.append(cell);
    });
    table.append(tr);
  });
  box.append(head, table);
  return box;
}

export function mount(root, ctx) {
  let alive = true;
  let latest = {};
  const draw = () => {
    const cards = [];
    for (const run of ctx.runs.active().filter((r) => r in latest)) {
      for (const tag of Object.keys(latest[run]).sort()) cards.push(card(run, tag, latest[run][tag], ctx.runs.color(run)));
    }
    root.replaceChildren(...(cards.length ? cards : [node("div", "empty", "No confusion matrices for the selected runs.")]));
    root.dataset.cards = String(cards.length);
    root.dataset.ready = "1";
  };
  const refresh = async () => {
    const answer = await ctx.api.getJSON("data/plugin/confusion_matrix/latest");
    if (!alive) return;
    latest = answer;
    draw();
  };
  const onRuns = () => draw();
  ctx.runs.addEventListener("change", onRuns);
  refresh().catch(ctx.showError);
  return {
    refresh,
    destroy() {
      alive = false;
      ctx.runs.removeEventListener("change", onRuns);
    },
  };
}
