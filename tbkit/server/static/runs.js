// The run selector: one list of runs shared by every dashboard, with a regex filter,
// select/deselect all, and a colour per run (the server's, or the user's override).
import { getJSON } from "./api.js";
import { el, clear, compileFilter, store, debounce } from "./util.js";

/** Runs, their selection and colours. Emits "change" when the active set or colours change. */
export class RunStore extends EventTarget {
  constructor() {
    super();
    this.runs = []; // [{name, start_time, color}]
    this.deselected = new Set(store.get("runs.deselected", []));
    this.colors = store.get("runs.colors", {});
    this.filter = store.get("runs.filter", "");
  }

  async refresh() {
    const runs = await getJSON("data/runs");
    const before = this.runs.map((r) => r.name).join("\n");
    this.runs = runs;
    if (runs.map((r) => r.name).join("\n") !== before) this.emit("runs");
    return runs;
  }

  /** @param {"runs"|"selection"|"colors"} what */
  emit(what) {
    this.dispatchEvent(new CustomEvent("change", { detail: { what } }));
  }

  color(name) {
    if (this.colors[name]) return this.colors[name];
    const r = this.runs.find((x) => x.name === name);
    return r ? r.color : "#888888";
  }

  setColor(name, color) {
    this.colors[name] = color;
    store.set("runs.colors", this.colors);
    this.emit("colors");
  }

  resetColor(name) {
    delete this.colors[name];
    store.set("runs.colors", this.colors);
    this.emit("colors");
  }

  matches(name) {
    const { re } = compileFilter(this.filter);
    return !re || re.test(name);
  }

  isSelected(name) {
    return !this.deselected.has(name);
  }

  /** Runs that are selected and pass the filter, in the server's order. */
  active() {
    return this.runs.filter((r) => this.isSelected(r.name) && this.matches(r.name)).map((r) => r.name);
  }

  startTime(name) {
    const r = this.runs.find((x) => x.name === name);
    return r ? r.start_time : null;
  }

  setSelected(names, selected) {
    for (const n of names) {
      if (selected) this.deselected.delete(n);
      else this.deselected.add(n);
    }
    store.set("runs.deselected", Array.from(this.deselected));
    this.emit("selection");
  }

  /** Select the runs `on` and deselect the runs `off` (on wins) in one change. */
  setSelection(on, off = []) {
    for (const n of off) this.deselected.add(n);
    for (const n of on) this.deselected.delete(n);
    store.set("runs.deselected", Array.from(this.deselected));
    this.emit("selection");
  }

  setFilter(pattern) {
    this.filter = pattern;
    store.set("runs.filter", pattern);
    this.emit("selection");
  }
}

const PATH_CHARS = 34; // a longer logdir path shows its tail ("…/exp/logs"); the tooltip has it all

/** `path`, or its last `/`-separated parts after "…" when it is longer than PATH_CHARS. */
export function shortPath(path, limit = PATH_CHARS) {
  if (path.length <= limit) return path;
  const tail = path.slice(path.length - (limit - 1));
  const cut = tail.indexOf("/");
  return "…" + (cut > 0 && cut < tail.length - 1 ? tail.slice(cut) : tail);
}

/**
 * The logdirs served (`/data/environment`'s `logdirs`), as text only: "Logdir: path", or one
 * "name: path" line each under "Logdirs"; every line's tooltip is its full path.
 */
function logdirBlock(logdirs) {
  if (!logdirs.length) return null;
  const items = logdirs.map(({ name, path }) =>
    el(
      "li",
      { class: "logdir", title: name ? `${name}: ${path}` : path, dataset: { name, path } },
      name ? el("span", { class: "logdir-name", text: name + ": " }) : null,
      el("span", { class: "logdir-path", text: shortPath(path) }),
    ),
  );
  const label = el("span", { class: "logdir-label", text: logdirs.length > 1 ? "Logdirs" : "Logdir" });
  return el("div", { class: "logdirs", dataset: { count: String(logdirs.length) } }, label, el("ul", { role: "list" }, items));
}

/**
 * Render the sidebar run selector into `root` (under the logdirs it serves, when given);
 * re-renders on store changes.
 */
export function mountRunSelector(root, runStore, logdirs = []) {
  const filterInput = el("input", {
    type: "search",
    class: "run-filter",
    placeholder: "Filter runs (regex)",
    "aria-label": "Filter runs (regex)",
    value: runStore.filter,
    spellcheck: "false",
  });
  const count = el("span", { class: "run-count" });
  const list = el("ul", { class: "run-list", role: "list" });
  const allBtn = el("button", { type: "button", class: "small", text: "All", title: "Select every run shown" });
  const noneBtn = el("button", { type: "button", class: "small", text: "None", title: "Deselect every run shown" });
  clear(root).append(
    el("div", { class: "sidebar-title" }, el("span", { text: "Runs" }), count),
    ...[logdirBlock(logdirs)].filter(Boolean),
    filterInput,
    el("div", { class: "run-actions" }, allBtn, noneBtn),
    list,
  );

  const onFilter = debounce(() => runStore.setFilter(filterInput.value), 150);
  filterInput.addEventListener("input", () => {
    filterInput.classList.toggle("invalid", compileFilter(filterInput.value).invalid);
    onFilter();
  });
  const shown = () => runStore.runs.filter((r) => runStore.matches(r.name)).map((r) => r.name);
  allBtn.addEventListener("click", () => runStore.setSelected(shown(), true));
  noneBtn.addEventListener("click", () => runStore.setSelected(shown(), false));

  const render = () => {
    filterInput.classList.toggle("invalid", compileFilter(runStore.filter).invalid);
    const names = shown();
    count.textContent = `${runStore.active().length} / ${runStore.runs.length}`;
    const items = names.map((name) => {
      const box = el("input", { type: "checkbox", checked: runStore.isSelected(name), "aria-label": "show run " + name });
      box.addEventListener("change", () => runStore.setSelected([name], box.checked));
      const picker = el("input", {
        type: "color",
        class: "run-color",
        value: runStore.color(name),
        title: "Colour of " + name + " (double-click to reset)",
        "aria-label": "colour of run " + name,
      });
      picker.addEventListener("change", () => runStore.setColor(name, picker.value));
      picker.addEventListener("dblclick", (e) => {
        e.preventDefault();
        runStore.resetColor(name);
      });
      const label = el("label", { class: "run-name", title: name }, box, el("span", { text: name }));
      return el("li", { class: "run-item", dataset: { run: name } }, picker, label);
    });
    clear(list).append(...items);
    if (!runStore.runs.length) list.append(el("li", { class: "muted", text: "No runs yet." }));
  };
  runStore.addEventListener("change", render);
  render();
}
