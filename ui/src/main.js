// kgrag's web UI: three pages over the REST API (/v1). Bundled by esbuild (ui/build.mjs) into
// api/static/app.js, which is committed, so installing kgrag needs no Node and no network.
// Every view of the graph is bounded by the server (kg/browse.py), so the page stays responsive
// whatever the corpus size: sigma.js draws at most a few hundred nodes with WebGL.

import Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import Sigma from "sigma";

const KEY_STORAGE = "kgrag.apiKey";
// Set by `kgrag graph export --format html` (api/ui_export.py): the graph views inlined, no server.
const STATIC = window.KGRAG_STATIC || null;
const COLORS = {
  PERSON: "#d62728", ORG: "#2ca02c", GPE: "#1f77b4", LOC: "#17becf", NORP: "#9467bd", FAC: "#8c564b",
  PRODUCT: "#ff7f0e", EVENT: "#e377c2", WORK_OF_ART: "#bcbd22", LAW: "#7f7f7f", LANGUAGE: "#aec7e8", TITLE: "#34495e",
};

// -- small DOM helpers -------------------------------------------------------------------------------
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const main = () => document.getElementById("main");
const fmt = (x, digits = 4) => (typeof x === "number" ? Number(x.toPrecision(digits)).toString() : "–");

// -- API ---------------------------------------------------------------------------------------------
class ApiError extends Error {
  constructor(status, detail, fix) { super(detail); this.status = status; this.fix = fix; }
}

function authHeaders() {
  const key = localStorage.getItem(KEY_STORAGE);
  return key ? { Authorization: `Bearer ${key}` } : {};
}

async function problemOf(resp) {
  let body = {};
  try { body = await resp.json(); } catch { /* not JSON */ }
  let detail = body.detail || resp.statusText || `HTTP ${resp.status}`;
  if (Array.isArray(detail)) detail = detail.map((d) => d.msg || JSON.stringify(d)).join("; ");
  let fix = body.fix || "";
  if (resp.status === 401) fix = fix || "enter the server's API key at the top right";
  return new ApiError(resp.status, String(detail), fix);
}

function rankMatches(entities, q, limit) {
  const word = new RegExp(`\\b${q.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`);
  const score = (name) => (name === q ? 0 : name.startsWith(q) ? 1 : word.test(name) ? 2 : 3);
  return entities.filter((n) => n.name.toLowerCase().includes(q))
    .map((n) => [score(n.name.toLowerCase()), n]).sort((a, b) => a[0] - b[0] || b[1].usefulness - a[1].usefulness)
    .slice(0, limit).map(([, n]) => n);
}

// The static export answers the graph routes from its inlined views, as the server would.
function staticAnswer(path) {
  const [route, query] = path.split("?");
  const params = new URLSearchParams(query || "");
  if (route === "/v1/graph/overview") return STATIC.overview;
  if (route === "/v1/graph/entities") {
    return { entities: rankMatches(STATIC.entities, (params.get("q") || "").trim().toLowerCase(), Number(params.get("limit") || 20)) };
  }
  if (route === "/v1/graph/neighbourhood") {
    const wanted = params.get("entity") || "";
    const key = STATIC.views[wanted] ? wanted : (STATIC.entities.find((n) => n.name.toLowerCase() === wanted.toLowerCase()) || {}).key;
    if (key && STATIC.views[key]) return STATIC.views[key];
    throw new ApiError(404, `${wanted} is not in this export (it has the neighbourhoods of ${STATIC.entities.length} entities)`,
      `export around it: kgrag graph export -f html -o graph.html --entity "${wanted}"`);
  }
  throw new ApiError(404, "this file is a static graph export: only the graph views are in it", "run `kgrag serve` for the whole UI");
}

async function api(path, options = {}) {
  if (STATIC) return staticAnswer(path);
  const resp = await fetch(path, { ...options, headers: { ...authHeaders(), ...(options.headers || {}) } });
  if (!resp.ok) throw await problemOf(resp);
  return resp.json();
}

function errorBox(err) {
  return h("div", { class: "error", role: "alert" }, err.message || String(err),
    err.fix ? h("span", { class: "fix" }, `Fix: ${err.fix}`) : null);
}

// Server-sent events over a POST (EventSource can only GET): yields {event, data} as they arrive.
async function* postEvents(path, body) {
  const resp = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders() },
    body: JSON.stringify(body),
  });
  if (!resp.ok) throw await problemOf(resp);
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

// -- Ask ---------------------------------------------------------------------------------------------
function renderAsk() {
  const input = h("input", { type: "text", id: "question", placeholder: "Ask the documents a question…", autofocus: true });
  const button = h("button", { id: "ask-button", type: "submit" }, "Ask");
  const status = h("div", { id: "ask-status", class: "muted" });
  const answer = h("div", { id: "answer" });
  const citations = h("ol", { id: "citations", class: "citations" });
  const detail = h("div", { id: "citation-detail", class: "card detail" },
    h("p", { class: "muted" }, "Click a citation to see its passage, its document and page, and why it was retrieved."));
  const errors = h("div", { id: "ask-error" });
  const form = h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); ask(); } }, input, button);
  let hits = new Map();
  let cites = new Map();

  function showCitation(n) {
    const c = cites.get(n);
    if (!c) return;
    document.querySelectorAll("button.cite").forEach((b) => b.classList.toggle("selected", Number(b.dataset.n) === n));
    const hit = hits.get(c.chunk_id);
    detail.replaceChildren(...citationDetail(c, hit));
    detail.dataset.citation = String(n);
  }

  function renderFinal(done) {
    const text = done.answer ? done.answer.text : "";
    cites = new Map(done.citations.map((c) => [c.number, c]));
    const parts = [];
    let last = 0;
    for (const m of text.matchAll(/\[(\d+)\]/g)) {
      parts.push(text.slice(last, m.index));
      const n = Number(m[1]);
      parts.push(cites.has(n)
        ? h("button", { class: "cite", type: "button", dataset: { n: String(n) }, onclick: () => showCitation(n) }, `[${n}]`)
        : `[${n}]`);
      last = m.index + m[0].length;
    }
    parts.push(text.slice(last));
    answer.replaceChildren(...parts);
    citations.replaceChildren(...done.citations.map((c) => h("li", { onclick: () => showCitation(c.number) },
      h("b", {}, c.title || c.source), " ", h("span", { class: "muted" }, c.source, c.page != null ? `, page ${c.page}` : ""))));
    const warnings = (done.warnings || []).map((w) => h("div", { class: "muted" }, `⚠ ${w}`));
    status.replaceChildren(
      `${done.answer ? done.answer.mode : "no"} answer · ${done.hits.length} passages · ${fmt((done.timings.total || 0) * 1000, 3)} ms retrieval`,
      ...warnings);
    document.body.dataset.askState = done.citations.length ? "cited" : "answered";
  }

  async function ask() {
    const question = input.value.trim();
    if (!question) return;
    button.disabled = true;
    errors.replaceChildren();
    answer.replaceChildren();
    citations.replaceChildren();
    status.textContent = "Retrieving…";
    document.body.dataset.askState = "asking";
    try {
      for await (const { event, data } of postEvents("/v1/query/stream", { question })) {
        if (event === "hits") {
          hits = new Map(data.hits.map((hit) => [hit.chunk_id, hit]));
          status.textContent = `${data.hits.length} passages found; answering…`;
        } else if (event === "token") {
          answer.append(data.text);
        } else if (event === "done") {
          renderFinal(data);
        } else if (event === "error") {
          throw new ApiError(data.status, data.detail, data.fix);
        }
      }
    } catch (err) {
      errors.replaceChildren(errorBox(err));
      status.textContent = "";
      document.body.dataset.askState = "error";
    } finally {
      button.disabled = false;
    }
  }

  main().replaceChildren(h("div", { class: "page ask-layout" },
    h("section", {}, form, errors, h("div", { class: "card" }, status, answer, citations)),
    h("aside", {}, detail)));
}

function citationDetail(c, hit) {
  const out = [h("h3", {}, `[${c.number}] ${c.title || c.source}`),
    h("div", { class: "muted" }, `${c.source} · document ${c.document_id}` + (c.page != null ? ` · page ${c.page}` : "") + ` · chunk ${c.chunk_id}`),
    h("div", { class: "passage" }, hit ? hit.text : c.quote)];
  if (!hit) return out;
  const rows = Object.keys(hit.ranks).sort().map((s) => h("tr", {}, h("td", {}, s), h("td", {}, `#${hit.ranks[s]}`), h("td", {}, fmt(hit.scores[s]))));
  rows.push(h("tr", {}, h("td", {}, "fused (RRF)"), h("td", {}, `#${hit.rank}`), h("td", {}, fmt(hit.fused_score))));
  if (hit.rerank_score != null) rows.push(h("tr", {}, h("td", {}, "rerank"), h("td", {}), h("td", {}, fmt(hit.rerank_score))));
  out.push(h("b", {}, "Why it was retrieved"),
    h("table", { class: "signals" }, h("tr", {}, h("th", {}, "signal"), h("th", {}, "rank"), h("th", {}, "score")), ...rows));
  const g = (hit.explanations || {}).graph;
  if (g) {
    const chain = [];
    (g.path || []).forEach((name, i) => {
      if (i > 0) chain.push(h("span", { class: "rel" }, `— ${(g.relations || [])[i - 1] || "linked"} →`));
      chain.push(h("a", { class: "ent", href: `#graph?entity=${encodeURIComponent(name)}` }, name));
    });
    out.push(h("div", { class: "graph-why" }, h("b", {}, "Graph: "), "entities in this passage: ",
      (g.entities || []).join(", ") || "–",
      chain.length ? h("div", { class: "chain", id: "entity-chain" }, h("span", { class: "muted" }, "chain from the question:"), ...chain) : null));
  }
  return out;
}

// -- Documents ---------------------------------------------------------------------------------------
function renderDocuments() {
  const file = h("input", { type: "file", id: "upload-file", accept: ".pdf,.md,.markdown,.txt,.html,.htm" });
  const upload = h("button", { id: "upload-button", type: "submit" }, "Upload");
  const note = h("div", { id: "documents-status", class: "muted" });
  const count = h("div", { id: "documents-count", class: "muted" });
  const errors = h("div", { id: "documents-error" });
  const tbody = h("tbody", { id: "documents-body" });
  const build = h("button", { id: "graph-build", class: "secondary", type: "button", onclick: buildGraph }, "Rebuild graph");

  async function load() {
    try {
      const { documents } = await api("/v1/documents?limit=1000");
      tbody.replaceChildren(...documents.map(row));
      count.textContent = `${documents.length} document${documents.length === 1 ? "" : "s"}`;
      document.body.dataset.documents = String(documents.length);
    } catch (err) { errors.replaceChildren(errorBox(err)); }
  }

  function row(d) {
    const del = h("button", { class: "danger", type: "button", dataset: { id: String(d.id) } }, "Delete");
    del.addEventListener("click", async () => {
      if (!del.classList.contains("armed")) { del.classList.add("armed"); del.textContent = "Confirm delete"; return; }
      del.disabled = true;
      try {
        await api(`/v1/documents/${d.id}`, { method: "DELETE" });
        note.textContent = `deleted ${d.title || d.source}`;
        await load();
      } catch (err) { errors.replaceChildren(errorBox(err)); del.disabled = false; }
    });
    const status = d.chunk_count > 0 ? h("span", { class: "status" }, "indexed") : h("span", { class: "status empty" }, "no text");
    return h("tr", { dataset: { source: d.source } }, h("td", {}, d.id), h("td", {}, d.title || "–"), h("td", { class: "muted" }, d.source),
      h("td", {}, d.mime_type), h("td", { class: "num" }, d.chunk_count), h("td", {}, status), h("td", {}, del));
  }

  async function submit(e) {
    e.preventDefault();
    if (!file.files.length) return;
    errors.replaceChildren();
    upload.disabled = true;
    note.textContent = `uploading ${file.files[0].name}…`;
    try {
      const form = new FormData();
      form.append("file", file.files[0]);
      const out = await api("/v1/documents", { method: "POST", body: form });
      note.textContent = `${out.outcome}: ${out.document.title || out.document.source} (${out.chunks_written} chunks)`;
      file.value = "";
      await load();
    } catch (err) { errors.replaceChildren(errorBox(err)); note.textContent = ""; }
    finally { upload.disabled = false; }
  }

  async function buildGraph() {
    build.disabled = true;
    errors.replaceChildren();
    try {
      let job = await api("/v1/graph/build", { method: "POST" });
      while (job.state === "queued" || job.state === "running") {
        note.textContent = `graph build ${job.state}…`;
        await new Promise((r) => setTimeout(r, 1000));
        job = await api(`/v1/jobs/${job.id}`);
      }
      if (job.state === "failed") throw new ApiError(500, job.error?.detail || "the graph build failed", job.error?.fix);
      note.textContent = `graph built: ${job.result?.entities ?? "?"} entities`;
    } catch (err) { errors.replaceChildren(errorBox(err)); }
    finally { build.disabled = false; }
  }

  main().replaceChildren(h("div", { class: "page" },
    h("form", { class: "row", id: "upload-form", onsubmit: submit }, file, upload, h("span", { style: "flex:1" }), build),
    errors, h("div", { class: "card" }, note, count,
      h("table", { class: "docs" }, h("thead", {}, h("tr", {}, ...["id", "title", "source", "type", "chunks", "status", ""].map((t) => h("th", {}, t)))), tbody))));
  load();
}

// -- Graph -------------------------------------------------------------------------------------------
let renderer = null;

function killRenderer() {
  if (renderer) { renderer.kill(); renderer = null; }
}

function drawView(container, view, onClick) {
  const t0 = performance.now();
  killRenderer();
  const graph = new Graph({ type: "undirected", multi: false });
  const max = Math.max(1e-9, ...view.nodes.map((n) => n.usefulness));
  const count = view.nodes.length;
  view.nodes.forEach((n, i) => {
    const center = n.key === view.center;
    const angle = (2 * Math.PI * i) / Math.max(1, count);
    graph.addNode(n.key, {
      label: n.name, x: center ? 0 : Math.cos(angle) * 100, y: center ? 0 : Math.sin(angle) * 100,
      size: center ? 16 : 4 + 10 * Math.sqrt(Math.max(0, n.usefulness) / max), color: COLORS[n.label] || "#607d8b",
      forceLabel: center || i < 12,
    });
  });
  for (const e of view.edges) {
    if (graph.hasNode(e.source) && graph.hasNode(e.target) && !graph.hasEdge(e.source, e.target)) {
      graph.addEdge(e.source, e.target, { size: Math.min(4, 0.6 + Math.log1p(e.weight)), color: "#c3ccd6", label: e.label });
    }
  }
  if (count > 2) {
    forceAtlas2.assign(graph, { iterations: 120, settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: count > 150 } });
  }
  if (view.center && graph.hasNode(view.center)) {
    const { x, y } = graph.getNodeAttributes(view.center);
    graph.forEachNode((k, a) => graph.mergeNodeAttributes(k, { x: a.x - x, y: a.y - y }));
  }
  try {
    renderer = new Sigma(graph, container, {
      settings: { renderEdgeLabels: false, labelRenderedSizeThreshold: 6, itemSizesReference: "screen",
        autoRescaleContent: "nodes", stagePadding: 40 },
    });
    renderer.on("clickNode", ({ node }) => onClick(node));
    // Where a node is drawn on screen: tests and the screenshot script click it like a user would.
    window.kgragNodePosition = (key) => {
      const at = renderer.framedGraphToViewport(renderer.getNodeDisplayData(key));
      const box = container.getBoundingClientRect();
      return { x: box.left + at.x, y: box.top + at.y };
    };
    renderer.on("enterNode", () => { container.style.cursor = "pointer"; });
    renderer.on("leaveNode", () => { container.style.cursor = ""; });
    document.body.dataset.graphRenderer = "webgl";
  } catch (err) {
    // No WebGL (a locked-down browser): the side panel still lists everything the drawing would show.
    container.replaceChildren(h("div", { class: "error" }, `The graph cannot be drawn here (${err.message}); the list on the right shows the same entities.`));
    document.body.dataset.graphRenderer = "none";
  }
  const ms = performance.now() - t0;
  document.body.dataset.graphNodes = String(graph.order);
  document.body.dataset.graphDrawMs = ms.toFixed(1);
  return graph;
}

function entityItem(n, open) {
  return h("li", { onclick: () => open(n.key), dataset: { key: n.key } }, n.name, h("span", { class: "label-tag" }, n.label),
    h("span", { class: "muted" }, ` · ${n.degree} links · ${n.chunks} chunks`));
}

function renderGraph(params) {
  const container = h("div", { id: "sigma" });
  const stats = h("div", { class: "graph-stats", id: "graph-stats" });
  const side = h("aside", { id: "graph-side" });
  const search = h("input", { type: "text", id: "entity-search", placeholder: "Search an entity…", style: "width:100%" });
  const results = h("ul", { class: "results", id: "search-results" });
  const panel = h("div", { id: "graph-panel" });
  side.append(search, results, panel);
  main().replaceChildren(h("div", { class: "graph-layout" }, h("div", { class: "graph-canvas" }, container, stats), side));
  const started = performance.now();

  function ready(view, kind) {
    document.body.dataset.graphView = kind;
    document.body.dataset.graphReadyMs = (performance.now() - started).toFixed(1);
    stats.textContent = `showing ${view.nodes.length} of ${view.stats.entities.toLocaleString()} entities · ${view.stats.edges.toLocaleString()} edges in the graph`;
  }

  function fail(err) {
    panel.replaceChildren(errorBox(err));
    document.body.dataset.graphView = "error";
  }

  async function openOverview() {
    try {
      const view = await api("/v1/graph/overview?limit=120");
      drawView(container, view, openEntity);
      panel.replaceChildren(h("h2", {}, "Most useful entities"),
        h("p", { class: "muted" }, "Ranked by how specific and connected they are (document titles first), not by raw frequency. Click one to see its neighbourhood."),
        h("ol", { class: "ranked", id: "overview-list" }, ...view.nodes.slice(0, 40).map((n) => entityItem(n, openEntity))));
      ready(view, "overview");
    } catch (err) { fail(err); }
  }

  async function openEntity(key) {
    try {
      const view = await api(`/v1/graph/neighbourhood?limit=40&entity=${encodeURIComponent(key)}`);
      if (location.hash !== `#graph?entity=${encodeURIComponent(view.center)}`) {
        history.replaceState(null, "", `#graph?entity=${encodeURIComponent(view.center)}`);
      }
      drawView(container, view, openEntity);
      const byKey = new Map(view.nodes.map((n) => [n.key, n]));
      const me = byKey.get(view.center);
      const spokes = view.edges.filter((e) => e.source === view.center || e.target === view.center);
      panel.replaceChildren(
        h("h2", { id: "entity-name" }, me.name, h("span", { class: "label-tag" }, me.label)),
        h("div", { class: "muted" }, `${me.chunks} chunks · ${view.total_neighbours} neighbours (showing the ${view.nodes.length - 1} strongest)`),
        h("p", {}, h("a", { href: "#graph", onclick: (e) => { e.preventDefault(); history.replaceState(null, "", "#graph"); openOverview(); } }, "← overview")),
        ...spokes.map((e) => {
          const other = byKey.get(e.source === view.center ? e.target : e.source);
          return h("div", { class: "edge" }, h("a", { href: "#", onclick: (ev) => { ev.preventDefault(); openEntity(other.key); } }, other.name),
            h("span", { class: "muted" }, ` · ${e.label}`),
            ...e.evidence.map((ev) => h("div", { class: "ev" }, ev.sentences.join(" "), " ", h("span", { class: "src" }, `— ${ev.title || ev.source}`))));
        }));
      ready(view, "neighbourhood");
    } catch (err) { fail(err); }
  }

  let timer = null;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    const q = search.value.trim();
    if (!q) { results.replaceChildren(); return; }
    timer = setTimeout(async () => {
      try {
        const { entities } = await api(`/v1/graph/entities?limit=15&q=${encodeURIComponent(q)}`);
        results.replaceChildren(...entities.map((n) => entityItem(n, (key) => { results.replaceChildren(); openEntity(key); })));
        if (!entities.length) results.replaceChildren(h("li", { class: "muted" }, "no entity matches"));
      } catch (err) { results.replaceChildren(errorBox(err)); }
    }, 200);
  });

  if (params.get("entity")) openEntity(params.get("entity"));
  else openOverview();
}

// -- routing -----------------------------------------------------------------------------------------
function route() {
  const [page, query] = (location.hash.replace(/^#/, "") || "ask").split("?");
  const params = new URLSearchParams(query || "");
  const name = STATIC ? "graph" : ["ask", "documents", "graph"].includes(page) ? page : "ask";
  if (STATIC && STATIC.start && !params.get("entity") && page !== "graph") params.set("entity", STATIC.start);
  if (name === "graph" && document.body.dataset.page === "graph" && renderer && !params.get("entity")) return;
  killRenderer();
  for (const k of Object.keys(document.body.dataset)) delete document.body.dataset[k];  // state of the last page
  document.body.dataset.page = name;
  for (const a of document.querySelectorAll("header nav a[data-page]")) a.classList.toggle("active", a.dataset.page === name);
  ({ ask: renderAsk, documents: renderDocuments, graph: renderGraph })[name](params);
}

function init() {
  const key = document.getElementById("api-key");
  if (STATIC || !key) {
    window.addEventListener("hashchange", route);
    route();
    return;
  }
  key.value = localStorage.getItem(KEY_STORAGE) || "";
  key.addEventListener("change", () => {
    if (key.value) localStorage.setItem(KEY_STORAGE, key.value); else localStorage.removeItem(KEY_STORAGE);
    route();
  });
  window.addEventListener("hashchange", route);
  route();
}

init();
