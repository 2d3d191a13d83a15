// kgrag's web UI: three pages over the REST API (/v1). Bundled by esbuild (ui/build.mjs) into
// api/static/app.js, which is committed, so installing kgrag needs no Node and no network.
// Every view of the graph is bounded by the server (kg/browse.py), so the page stays responsive
// whatever the corpus size: sigma.js draws at most a few hundred nodes with WebGL.

import Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import Sigma, { DEFAULT_STYLES } from "sigma";

const KEY_STORAGE = "kgrag.apiKey";
const WORKSPACE_STORAGE = "kgrag.workspace";
// Set by `kgrag graph export --format html` (api/ui_export.py): the graph views inlined, no server.
const STATIC = window.KGRAG_STATIC || null;
const COLORS = {
  PERSON: "#d62728", ORG: "#2ca02c", GPE: "#1f77b4", LOC: "#17becf", NORP: "#9467bd", FAC: "#8c564b",
  PRODUCT: "#ff7f0e", EVENT: "#e377c2", WORK_OF_ART: "#bcbd22", LAW: "#7f7f7f", LANGUAGE: "#aec7e8", TITLE: "#34495e",
};
const OTHER_COLOR = "#607d8b";
// The graph legend's words for spaCy's entity labels (TITLE: a document's title entity).
const KINDS = {
  PERSON: "person", ORG: "organisation", GPE: "country, city", LOC: "place", NORP: "nationality, group",
  FAC: "building, facility", PRODUCT: "product", EVENT: "event", WORK_OF_ART: "work", LAW: "law",
  LANGUAGE: "language", TITLE: "document", DOCUMENT: "document",
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
  const workspace = localStorage.getItem(WORKSPACE_STORAGE);
  return { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(workspace ? { "X-Kgrag-Workspace": workspace } : {}) };
}

// The workspace picker lists the key's workspaces only (GET /v1/workspaces); every request then names the
// chosen one in X-Kgrag-Workspace, which the server checks against the key.
async function loadWorkspaces() {
  const select = document.getElementById("workspace");
  if (!select) return;
  let body;
  try {
    const key = localStorage.getItem(KEY_STORAGE);
    const resp = await fetch("/v1/workspaces", { headers: key ? { Authorization: `Bearer ${key}` } : {} });
    if (!resp.ok) throw await problemOf(resp);
    body = await resp.json();
  } catch {
    select.replaceChildren();
    select.parentElement.hidden = true;
    localStorage.removeItem(WORKSPACE_STORAGE);
    return;
  }
  const stored = localStorage.getItem(WORKSPACE_STORAGE);
  const chosen = body.workspaces.includes(stored) ? stored : body.current;
  localStorage.setItem(WORKSPACE_STORAGE, chosen);
  select.replaceChildren(...body.workspaces.map((w) => h("option", { value: w }, w)));
  select.value = chosen;
  select.parentElement.hidden = false;
  document.body.dataset.workspace = chosen;
}

async function problemOf(resp) {
  let body = {};
  try { body = await resp.json(); } catch { /* not JSON */ }
  let detail = body.detail || resp.statusText || `HTTP ${resp.status}`;
  if (Array.isArray(detail)) detail = detail.map((d) => d.msg || JSON.stringify(d)).join("; ");
  const fix = resp.status === 401 ? askForKey() : body.fix || "";
  return new ApiError(resp.status, String(detail), fix);
}

// The server's own fix for a 401 tells an API client to send an Authorization header; a person in this page
// has a key box for that, so the error points at it, and the box is marked and focused.
const KEY_FIX = "enter the server's API key in the “API key” box at the top of this page";
function askForKey() {
  const box = document.getElementById("api-key");
  if (box) {
    box.classList.add("wanted");
    box.focus();
  }
  return KEY_FIX;
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

// -- server capabilities (upload formats, query options), asked once per API key ---------------------
const capabilitiesByKey = new Map();
function capabilities() {
  const key = `${localStorage.getItem(KEY_STORAGE) || ""}@${localStorage.getItem(WORKSPACE_STORAGE) || ""}`;
  if (!capabilitiesByKey.has(key)) {
    capabilitiesByKey.set(key, api("/v1/capabilities").catch((err) => { capabilitiesByKey.delete(key); throw err; }));
  }
  return capabilitiesByKey.get(key);
}

// -- notes: a condition that holds for every query (no reranker weights), said once and dismissible ----
const NOTES_STORAGE = "kgrag.dismissedNotes";
function dismissedNotes() {
  try { return new Set(JSON.parse(localStorage.getItem(NOTES_STORAGE) || "[]")); } catch { return new Set(); }
}

// One short line per condition (the stage's whole reason, with its fix, is one click away): the reranker's
// reason with its Python command filled a five-line box above every answer (issue 46).
function renderNotes(container, stages) {
  const dismissed = dismissedNotes();
  const notes = Object.entries(stages || {}).filter(([, st]) => st.permanent && st.state !== "ran")
    .map(([name, st]) => ({ id: `${name}:${st.reason}`, name, text: st.reason }))
    .filter((n) => !dismissed.has(n.id));
  container.replaceChildren(...notes.map((n) => {
    // The dismiss button sits beside the <details>, not in it: inside, a closed note hid it.
    const note = h("div", { class: "note", role: "status", dataset: { stage: n.name } },
      h("details", {}, h("summary", {}, `${n.name[0].toUpperCase()}${n.name.slice(1)} is off on this server: its model can't load (why)`),
        h("div", { class: "why" }, n.text)));
    note.append(h("button", { type: "button", class: "dismiss", title: "Dismiss (not shown again)", "aria-label": "Dismiss",
      onclick: () => {
        const all = dismissedNotes();
        all.add(n.id);
        localStorage.setItem(NOTES_STORAGE, JSON.stringify([...all]));
        note.remove();
      } }, "×"));
    return note;
  }));
}

// -- Ask ---------------------------------------------------------------------------------------------
const MAX_TURNS = 12;

// "team=ops, year=2024" (commas or new lines) → {team: "ops", year: "2024"}; a part without "=" is an error.
function parseMetadata(text) {
  const out = {};
  for (const part of text.split(/[,\n]/).map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new ApiError(0, `the metadata filter "${part}" is not key=value`, "write e.g. team=ops, year=2024");
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

function askOptions() {
  const signalBoxes = h("span", { class: "signals-choice", id: "opt-signals" });
  const topK = h("input", { type: "number", id: "opt-top-k", min: 1, step: 1, style: "width:5em" });
  const docs = h("select", { id: "opt-documents", multiple: true, size: 4 });
  const metadata = h("input", { type: "text", id: "opt-metadata", placeholder: "team=ops, year=2024", style: "width:100%" });
  const rerank = h("input", { type: "checkbox", id: "opt-rerank", checked: true });
  const rerankSaid = h("span", { class: "muted", id: "opt-rerank-said" }, " when the reranker is available");
  const summary = h("span", { class: "muted", id: "options-summary" });
  let defaults = null;

  function describe() {
    const parts = [];
    const chosen = [...signalBoxes.querySelectorAll("input:checked")].map((b) => b.value);
    if (defaults) parts.push(`signals ${chosen.join(", ") || "none"}`, `top ${topK.value || defaults.default_top_k}`);
    const nDocs = docs.selectedOptions.length;
    if (nDocs) parts.push(`${nDocs} document${nDocs === 1 ? "" : "s"}`);
    if (metadata.value.trim()) parts.push(metadata.value.trim());
    if (!rerank.checked && !rerank.disabled) parts.push("no rerank");
    summary.textContent = parts.length ? ` · ${parts.join(" · ")}` : "";
  }

  function reset() {
    if (!defaults) return;
    for (const b of signalBoxes.querySelectorAll("input")) b.checked = defaults.default_signals.includes(b.value);
    topK.value = String(defaults.default_top_k);
    for (const o of docs.options) o.selected = false;
    metadata.value = "";
    rerank.checked = defaults.rerank_available;
    describe();
  }

  const drawer = h("details", { class: "options card", id: "ask-options", onchange: describe, oninput: describe },
    h("summary", {}, "Options", summary),
    h("div", { class: "options-grid" },
      h("label", {}, "Signals"), signalBoxes,
      h("label", { for: "opt-top-k" }, "Passages (top-k)"), h("span", {}, topK, h("span", { class: "muted", id: "opt-top-k-max" })),
      h("label", { for: "opt-rerank" }, "Rerank"), h("span", {}, rerank, rerankSaid),
      h("label", { for: "opt-documents" }, "Only these documents"), docs,
      h("label", { for: "opt-metadata" }, "Metadata equals"), metadata),
    h("div", { class: "row" }, h("span", { style: "flex:1" }),
      h("button", { type: "button", class: "secondary", id: "opt-reset", onclick: reset }, "Reset")));

  capabilities().then((caps) => {
    defaults = caps;
    signalBoxes.replaceChildren(...caps.signals.map((s) => h("label", { class: "check" },
      h("input", { type: "checkbox", value: s, name: "signal" }), ` ${s}`)));
    topK.max = String(caps.max_top_k);
    // No reranker can load (no weights ship with kgrag): the choice is shown off, and why, not ticked in vain.
    rerank.disabled = !caps.rerank_available;
    rerankSaid.textContent = caps.rerank_available ? "" : " off: the reranker can't load on this server";
    rerankSaid.title = caps.rerank_problem || "";
    document.getElementById("opt-top-k-max").textContent = ` at most ${caps.max_top_k}`;
    reset();
    drawer.dataset.ready = "true";
  }).catch(() => { drawer.dataset.ready = "error"; });
  api("/v1/documents?limit=1000").then(({ documents }) => {
    docs.replaceChildren(...documents.filter((d) => d.status !== "failed").map((d) =>
      h("option", { value: String(d.id), title: d.source }, d.title ? `${d.title} (${fileName(d.source)})` : fileName(d.source))));
  }).catch(() => {});

  // The request fields the drawer sets; only what differs from the server's defaults is sent.
  function request() {
    const body = {};
    if (defaults) {
      const chosen = [...signalBoxes.querySelectorAll("input:checked")].map((b) => b.value);
      if (!chosen.length) throw new ApiError(0, "no signal is selected", "tick at least one signal in Options");
      if (chosen.join() !== defaults.default_signals.join()) body.signals = chosen;
      const k = Number(topK.value);
      if (topK.value && (!Number.isInteger(k) || k < 1)) throw new ApiError(0, `top-k "${topK.value}" is not a whole number ≥ 1`, "");
      if (topK.value && k !== defaults.default_top_k) body.top_k = k;
    }
    const filters = {};
    const ids = [...docs.selectedOptions].map((o) => Number(o.value));
    if (ids.length) filters.document_ids = ids;
    const meta = parseMetadata(metadata.value);
    if (Object.keys(meta).length) filters.metadata = meta;
    if (Object.keys(filters).length) body.filters = filters;
    if (!rerank.checked && !rerank.disabled) body.rerank = false;
    return body;
  }

  return { drawer, request };
}

// A source's last path part ("/home/me/notes/jonas_meier.md" → "jonas_meier.md"): long absolute paths were cut
// off in the document picker and wrapped over many lines on a phone; the whole path stays in the tooltip.
function fileName(source) {
  const parts = String(source || "").replace(/^upload:/, "").split(/[\\/]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : String(source || "");
}

// A passage as the reader sees it in the document: Markdown headings ("# Polar Cells") as bold lines, not raw
// hashes; everything else as written (white-space: pre-wrap keeps the lines).
function passageNodes(text) {
  return String(text || "").split("\n").flatMap((line, i) => {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    return [i ? "\n" : "", heading ? h("strong", { class: "md-heading" }, heading[1]) : line];
  });
}

// A one-line snippet of a passage: its Markdown heading marks dropped.
function plainText(text) {
  return String(text || "").replace(/^\s{0,3}#{1,6}\s+/gm, "");
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function passageWhere(p) {
  return [fileName(p.source), p.page != null ? `page ${p.page}` : null, p.position != null ? `passage ${p.position + 1}` : null]
    .filter(Boolean).join(", ");
}

function renderAsk() {
  const input = h("input", { type: "text", id: "question", placeholder: "Ask the documents a question…", autofocus: true });
  const button = h("button", { id: "ask-button", type: "submit" }, "Ask");
  const status = h("div", { id: "ask-status", class: "muted" });
  const asked = h("div", { id: "asked", class: "asked" });
  const rewrite = h("div", { id: "rewrite", class: "muted" });
  const answer = h("div", { id: "answer" });
  const citations = h("ol", { id: "citations", class: "citations" });
  const others = h("ol", { id: "other-passages", class: "citations others" });
  const othersBox = h("div", { id: "other-passages-box", hidden: true },
    h("h4", {}, "Also retrieved, not cited"), others);
  const placeholder = () => h("p", { class: "muted" },
    "Click a citation or a passage to see it, its document and place in it, and why it was retrieved.");
  const detail = h("div", { id: "citation-detail", class: "card detail" }, placeholder());
  const errors = h("div", { id: "ask-error" });
  const notes = h("div", { id: "notes" });
  const history = h("ol", { id: "conversation", class: "conversation" });
  const newConversation = h("button", { type: "button", class: "secondary", id: "new-conversation", hidden: true,
    onclick: () => { turns = []; current = null; history.replaceChildren(); newConversation.hidden = true; clearAnswer(); input.focus(); } },
  "New conversation");
  const options = askOptions();
  const form = h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); ask(); } }, input, button);
  let hits = new Map();
  let cites = new Map();
  let turns = [];  // the conversation so far, sent with each question so a follow-up can refer to it
  let current = null;  // the exchange on screen; the history above lists the ones before it

  function select(selector) {
    document.querySelectorAll("button.cite, #citations li, #other-passages li")
      .forEach((el) => el.classList.toggle("selected", el.matches(selector)));
  }

  function showCitation(n) {
    const c = cites.get(n);
    if (!c) return;
    select(`button.cite[data-n="${n}"], #citations li[data-n="${n}"]`);
    detail.replaceChildren(...citationDetail(`[${n}]`, c, hits.get(c.chunk_id)));
    delete detail.dataset.hit;
    detail.dataset.citation = String(n);
  }

  function showPassage(hit) {
    select(`#other-passages li[data-chunk="${hit.chunk_id}"]`);
    detail.replaceChildren(...citationDetail(`#${hit.rank}`, hit, hit));
    delete detail.dataset.citation;
    detail.dataset.hit = String(hit.chunk_id);
  }

  function clearAnswer() {
    errors.replaceChildren();
    answer.replaceChildren();
    citations.replaceChildren();
    others.replaceChildren();
    othersBox.hidden = true;
    rewrite.replaceChildren();
    asked.textContent = "";
    status.textContent = "";
    // the previous question's passage must not stay beside the new answer
    detail.replaceChildren(placeholder());
    delete detail.dataset.citation;
    delete detail.dataset.hit;
    hits = new Map();
    cites = new Map();
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
    citations.replaceChildren(...done.citations.map((c) => h("li", { value: c.number, dataset: { n: String(c.number), source: c.source },
      onclick: () => showCitation(c.number) }, h("b", {}, c.title || c.source), " ", h("span", { class: "muted" }, passageWhere(c)))));
    const cited = new Set(done.citations.map((c) => c.chunk_id));
    const uncited = done.hits.filter((hit) => !cited.has(hit.chunk_id));
    others.replaceChildren(...uncited.map((hit) => h("li", { value: hit.rank, dataset: { chunk: String(hit.chunk_id), source: hit.source },
      onclick: () => showPassage(hit) }, h("b", {}, hit.title || hit.source), " ", h("span", { class: "muted" }, passageWhere(hit)),
    h("div", { class: "snippet" }, ((t) => (t.length > 160 ? `${t.slice(0, 160)}…` : t))(plainText(hit.text))))));
    othersBox.hidden = !uncited.length;
    const warnings = (done.warnings || []).map((w) => h("div", { class: "muted" }, `⚠ ${w}`));
    const ran = Object.entries(done.stages).filter(([name, st]) => ["dense", "bm25", "graph"].includes(name) && st.state === "ran")
      .map(([name]) => name);
    status.replaceChildren(
      `${done.answer ? done.answer.mode : "no"} answer · ${done.hits.length} passages · signals ${ran.join(", ") || "none"} · `
      + `${fmt((done.timings.total || 0) * 1000, 3)} ms retrieval`,
      ...warnings);
    document.body.dataset.askState = done.citations.length ? "cited" : "answered";
  }

  function showRewrite(data) {
    if (data.rewrite && data.rewrite.method !== "as-is") {
      rewrite.replaceChildren("Follow-up read as: ", h("q", {}, data.question));
    }
  }

  function remember(question, done) {
    const said = done.answer ? done.answer.text : "";
    turns = [...turns, { role: "user", text: question }, { role: "assistant", text: said }].slice(-MAX_TURNS);
    if (current) history.append(current);
    current = h("li", {}, h("div", { class: "q" }, question),
      h("div", { class: "a muted" }, (done.answer && done.answer.short_answer) || said.split("\n")[0].slice(0, 200)));
    newConversation.hidden = false;
  }

  async function ask() {
    const question = input.value.trim();
    if (!question) return;
    clearAnswer();
    let body;
    try {
      body = { question, ...options.request() };
    } catch (err) {
      errors.replaceChildren(errorBox(err));
      document.body.dataset.askState = "error";
      return;
    }
    if (turns.length) body.conversation = turns;
    asked.textContent = question;
    button.disabled = true;
    status.textContent = "Retrieving…";
    document.body.dataset.askState = "asking";
    try {
      for await (const { event, data } of postEvents("/v1/query/stream", body)) {
        if (event === "hits") {
          hits = new Map(data.hits.map((hit) => [hit.chunk_id, hit]));
          renderNotes(notes, data.stages);
          showRewrite(data);
          status.textContent = `${data.hits.length} passages found; answering…`;
        } else if (event === "token") {
          answer.append(data.text);
        } else if (event === "done") {
          renderFinal(data);
          remember(question, data);
          input.value = "";
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
    h("section", {}, form, options.drawer, notes, errors,
      h("div", { class: "row conversation-head" }, history, newConversation),
      h("div", { class: "card" }, asked, rewrite, status, answer, citations, othersBox)),
    h("aside", {}, detail)));
}

// The passage of a citation or a retrieved hit: where it is in its document (its position there, not
// the database's chunk id) and why each signal retrieved it.
function citationDetail(label, c, hit) {
  const out = [h("h3", {}, `${label} ${c.title || c.source}`),
    h("div", { class: "muted where" }, [c.source, `document ${c.document_id}`, c.page != null ? `page ${c.page}` : null,
      c.position != null ? `passage ${c.position + 1} in the document` : null].filter(Boolean).join(" · ")),
    h("div", { class: "passage" }, ...passageNodes(hit ? hit.text : c.quote))];
  if (!hit) return out;
  const rows = Object.keys(hit.ranks).sort().map((s) => h("tr", { dataset: { signal: s } }, h("td", {}, s), h("td", {}, `#${hit.ranks[s]}`), h("td", {}, fmt(hit.scores[s]))));
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
// One multipart POST with upload progress (fetch reports none): resolves to the parsed body, rejects with
// the server's problem (its detail and fix).
function uploadFile(f, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/documents");
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onload = () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) { resolve(body); return; }
      const fix = xhr.status === 401 ? askForKey() : body.fix || "";
      reject(new ApiError(xhr.status, String(body.detail || xhr.statusText || `HTTP ${xhr.status}`), fix));
    };
    xhr.onerror = () => reject(new ApiError(0, `the upload of ${f.name} was interrupted`, "check the server is running and retry"));
    const form = new FormData();
    form.append("file", f);
    xhr.send(form);
  });
}

function statusCell(d) {
  const label = d.status === "failed" ? "failed" : d.status === "pending" ? "pending" : d.chunk_count > 0 ? "indexed" : "no text";
  const cls = { failed: "status failed", pending: "status empty", indexed: "status", "no text": "status empty" }[label];
  return h("td", { class: "status-cell" }, h("span", { class: cls }, label),
    d.status_reason ? h("div", { class: "reason" }, d.status_reason) : null);
}

function renderDocuments() {
  const file = h("input", { type: "file", id: "upload-file", multiple: true });
  const upload = h("button", { id: "upload-button", type: "submit" }, "Upload");
  const formats = h("div", { class: "muted", id: "upload-formats" });
  const drop = h("div", { id: "drop-zone", class: "dropzone" },
    h("div", {}, h("b", {}, "Drop files here"), " or choose them: ", file, upload), formats);
  const queue = h("ul", { id: "upload-list", class: "uploads" });
  const note = h("div", { id: "documents-status", class: "muted" });
  const count = h("div", { id: "documents-count", class: "muted" });
  const errors = h("div", { id: "documents-error" });
  const tbody = h("tbody", { id: "documents-body" });
  const build = h("button", { id: "graph-build", class: "secondary", type: "button", onclick: buildGraph }, "Rebuild graph");
  let uploading = Promise.resolve();

  capabilities().then((caps) => {
    const suffixes = Object.keys(caps.upload_formats).sort();
    file.accept = suffixes.join(",");
    formats.textContent = `Accepted: ${suffixes.join(" ")} · up to ${Math.floor(caps.max_upload_bytes / 2 ** 20)} MiB each`;
  }).catch(() => { /* no key yet: the picker takes any file and the server says what it refuses */ });

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
    return h("tr", { dataset: { source: d.source, status: d.status } }, h("td", { class: "id" }, d.id), h("td", {}, d.title || "–"),
      h("td", { class: "muted source", title: d.source }, fileName(d.source)), h("td", { class: "mime" }, d.mime_type), h("td", { class: "num" }, d.chunk_count),
      statusCell(d), h("td", { class: "action" }, del));
  }

  // Each file gets a line with its own progress bar and outcome; files upload one after another.
  function enqueue(files) {
    errors.replaceChildren();
    const items = [...files].map((f) => {
      const bar = h("progress", { max: 100, value: 0 });
      const said = h("span", { class: "muted" }, "queued");
      const li = h("li", { dataset: { name: f.name, state: "queued" } }, h("span", { class: "name" }, f.name), bar, said);
      queue.append(li);
      return { f, li, bar, said };
    });
    document.body.dataset.uploading = String(Number(document.body.dataset.uploading || 0) + items.length);
    for (const it of items) {
      uploading = uploading.then(async () => {
        it.li.dataset.state = "uploading";
        it.said.textContent = "uploading…";
        try {
          const out = await uploadFile(it.f, (share) => {
            it.bar.value = Math.round(share * 100);
            if (share >= 1) it.said.textContent = "ingesting…";
          });
          it.bar.value = 100;
          it.li.dataset.state = out.outcome;
          it.said.textContent = `${out.outcome}: ${out.document.title || fileName(out.document.source)} (${plural(out.chunks_written, "chunk")})`;
          note.textContent = it.said.textContent;
          await load();
        } catch (err) {
          it.li.dataset.state = "failed";
          it.li.classList.add("failed");  // its bar turns red: a full blue bar read as success
          it.bar.value = 100;
          // The server names an upload by its source, "upload:NAME": the user knows it as NAME.
          const said = err.message.split(`upload:${it.f.name}`).join(it.f.name);
          it.said.replaceChildren(h("span", { class: "reason" }, `failed: ${said}`), err.fix ? h("span", { class: "fix" }, ` Fix: ${err.fix}`) : "");
        } finally {
          document.body.dataset.uploading = String(Number(document.body.dataset.uploading) - 1);
        }
      });
    }
    return uploading;
  }

  function submit(e) {
    e.preventDefault();
    if (!file.files.length) return;
    const files = [...file.files];
    file.value = "";
    enqueue(files);
  }

  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer && e.dataTransfer.files.length) enqueue(e.dataTransfer.files);
  });

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
    h("form", { class: "row", id: "upload-form", onsubmit: submit }, drop, h("span", { style: "flex:1" }), build),
    queue, errors, h("div", { class: "card", id: "documents-card" }, note, count,
      h("table", { class: "docs" }, h("thead", {}, h("tr", {}, ...[["id"], ["title", "20%"], ["source", "30%"], ["type", "15%"], ["chunks"], ["status", "18%"], [""]]
        .map(([t, width]) => h("th", { style: width ? `width:${width}` : null }, t)))), tbody))));
  load();
}

// -- Graph -------------------------------------------------------------------------------------------
let renderer = null;

function killRenderer() {
  if (renderer) { renderer.kill(); renderer = null; }
}

// Labels sit on the side of their node that faces the middle of the view, and sigma fits the labels (not
// only the nodes) inside the canvas, so none is cut off at an edge; a light background keeps them readable
// over edges.
const NODE_STYLES = {
  ...DEFAULT_STYLES.nodes,
  labelVisibility: { whenState: "isHovered", then: "visible", else: { attribute: "labelVisibility", defaultValue: "auto" } },
  labelPosition: { attribute: "labelPosition", defaultValue: "right" },
  labelSize: 13,
  labelColor: "#1d232a",
  labelBackgroundColor: "rgba(255, 255, 255, 0.85)",
  labelBackgroundPadding: 2,
};

const NARROW_CANVAS = 600;
const GENERIC_RELATIONS = ["co-occurs", "mentions"];

function drawView(container, view, onClick) {
  const t0 = performance.now();
  killRenderer();
  const graph = new Graph({ type: "undirected", multi: false });
  const max = Math.max(1e-9, ...view.nodes.map((n) => n.usefulness));
  const count = view.nodes.length;
  // sigma fits the labels inside the canvas: on a phone a dozen full-length labels left the nodes a few pixels
  // to spread over, so a narrow canvas shows fewer labels, shortened (hovering a node shows its whole name).
  const narrow = container.clientWidth < NARROW_CANVAS;
  const shown = narrow ? 6 : 12;
  const shorten = (name) => (narrow && name.length > 16 ? `${name.slice(0, 15)}…` : name);
  view.nodes.forEach((n, i) => {
    const center = n.key === view.center;
    const angle = (2 * Math.PI * i) / Math.max(1, count);
    graph.addNode(n.key, {
      label: shorten(n.name), name: n.name, kind: n.label, x: center ? 0 : Math.cos(angle) * 100, y: center ? 0 : Math.sin(angle) * 100,
      size: center ? 16 : 4 + 10 * Math.sqrt(Math.max(0, n.usefulness) / max), color: COLORS[n.label] || OTHER_COLOR,
      labelVisibility: center || i < shown ? "visible" : "auto",
    });
  });
  for (const e of view.edges) {
    if (graph.hasNode(e.source) && graph.hasNode(e.target) && !graph.hasEdge(e.source, e.target)) {
      // Only a relation its sentence states is written on the edge ("bought by"); "co-occurs" everywhere said nothing.
      const said = GENERIC_RELATIONS.includes(e.label) ? undefined : e.label;
      graph.addEdge(e.source, e.target, { size: Math.min(4, 0.6 + Math.log1p(e.weight)), color: said ? "#9fb0c3" : "#c3ccd6", label: said });
    }
  }
  if (count > 2) {
    // Stronger repulsion and weaker gravity than inferred: the linked documents of a small corpus were squeezed
    // into a knot of overlapping labels in the middle while unlinked nodes took the room around them.
    forceAtlas2.assign(graph, { iterations: 200, settings: { ...forceAtlas2.inferSettings(graph), scalingRatio: 12, gravity: 0.4,
      barnesHutOptimize: count > 150 } });
  }
  if (view.center && graph.hasNode(view.center)) {
    const { x, y } = graph.getNodeAttributes(view.center);
    graph.forEachNode((k, a) => graph.mergeNodeAttributes(k, { x: a.x - x, y: a.y - y }));
  }
  let minX = Infinity;
  let maxX = -Infinity;
  graph.forEachNode((k, a) => { minX = Math.min(minX, a.x); maxX = Math.max(maxX, a.x); });
  const middle = (minX + maxX) / 2;
  graph.forEachNode((k, a) => graph.setNodeAttribute(k, "labelPosition", a.x > middle ? "left" : "right"));
  try {
    renderer = new Sigma(graph, container, {
      styles: { nodes: NODE_STYLES, edges: { ...DEFAULT_STYLES.edges, labelSize: 12, labelColor: "#4d5966" } },
      settings: { renderEdgeLabels: true, labelRenderedSizeThreshold: 6, itemSizesReference: "screen",
        autoRescaleContent: "labels", stagePadding: 24 },
    });
    renderer.on("clickNode", ({ node }) => onClick(node));
    // Where a node is drawn on screen: tests and the screenshot script click it like a user would.
    window.kgragNodePosition = (key) => {
      const at = renderer.framedGraphToViewport(renderer.getNodeDisplayData(key));
      const box = container.getBoundingClientRect();
      return { x: box.left + at.x, y: box.top + at.y };
    };
    window.kgragRenderer = renderer;
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

// What each colour of the drawn view means, most frequent kind first, with how many nodes have it.
function legendFor(view) {
  const counts = new Map();
  for (const n of view.nodes) counts.set(n.label, (counts.get(n.label) || 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label, n]) =>
    h("li", { dataset: { label, color: COLORS[label] || OTHER_COLOR } },
      h("span", { class: "swatch", style: `background:${COLORS[label] || OTHER_COLOR}` }),
      `${KINDS[label] || label.toLowerCase()} `, h("span", { class: "muted" }, String(n))));
}

// A node's kind in the legend's words ("document", "person"), its raw label in the tooltip.
function kindTag(n) {
  return h("span", { class: "label-tag", title: n.label }, KINDS[n.label] || n.label.toLowerCase());
}

function entityItem(n, open) {
  return h("li", { onclick: () => open(n.key), dataset: { key: n.key } }, n.name, kindTag(n),
    h("span", { class: "muted" }, ` · ${plural(n.degree, "link")} · ${plural(n.chunks, "chunk")}`));
}

function renderGraph(params) {
  const container = h("div", { id: "sigma" });
  const stats = h("div", { class: "graph-stats", id: "graph-stats" });
  const legend = h("ul", { class: "graph-legend", id: "graph-legend", "aria-label": "Colour legend" });
  const side = h("aside", { id: "graph-side" });
  const search = h("input", { type: "text", id: "entity-search", placeholder: "Search an entity…", style: "width:100%" });
  const results = h("ul", { class: "results", id: "search-results" });
  const panel = h("div", { id: "graph-panel" });
  side.append(search, results, panel);
  main().replaceChildren(h("div", { class: "graph-layout" }, h("div", { class: "graph-canvas" }, legend, container, stats), side));
  const started = performance.now();
  // A phone turned sideways, or the legend wrapping onto another line, resizes the drawing: sigma sizes its
  // canvases once, so without this they spilled over the line under the drawing.
  new ResizeObserver(() => { if (renderer) renderer.resize().refresh(); }).observe(container);

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
      legend.replaceChildren(...legendFor(view));  // before drawing: the strip takes its height from the canvas
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
      legend.replaceChildren(...legendFor(view));
      drawView(container, view, openEntity);
      const byKey = new Map(view.nodes.map((n) => [n.key, n]));
      const me = byKey.get(view.center);
      const spokes = view.edges.filter((e) => e.source === view.center || e.target === view.center);
      panel.replaceChildren(
        h("h2", { id: "entity-name" }, me.name, kindTag(me)),
        h("div", { class: "muted" }, `${plural(me.chunks, "chunk")} · ${plural(view.total_neighbours, "neighbour")} (showing the ${view.nodes.length - 1} strongest)`),
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
  const workspace = localStorage.getItem(WORKSPACE_STORAGE);
  if (workspace && !STATIC) document.body.dataset.workspace = workspace;
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
  key.addEventListener("change", async () => {
    key.classList.remove("wanted");
    if (key.value) localStorage.setItem(KEY_STORAGE, key.value); else localStorage.removeItem(KEY_STORAGE);
    await loadWorkspaces();
    route();
  });
  const workspace = document.getElementById("workspace");
  if (workspace) {
    workspace.addEventListener("change", () => {
      localStorage.setItem(WORKSPACE_STORAGE, workspace.value);
      route();
    });
  }
  window.addEventListener("hashchange", route);
  loadWorkspaces().then(route);
}

init();
