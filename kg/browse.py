"""Bounded views of a loaded graph for people: search, an entity's neighbourhood, an overview.

A browser cannot draw a 30k-entity graph usefully (the old HTML export froze for minutes, and
its top-by-degree cut was a hairball of nationality words). Every view here returns at most a
fixed number of entities, whatever the graph's size, and the overview ranks entities by
*usefulness*: connected, but specific (mentioned in few chunks), with document titles first.

These functions read the graph through kg.serving.LoadedGraph's methods, so the API and the UI never
depend on how the graph is held.

A graph file is rebuilt by a graph build, not by a delete, so the loaded graph can still name a
document deleted since. A delete is often a privacy request, so every view takes a ``Liveness`` (which
of the graph's chunks still exist, see kg.liveness) and shows nothing that only deleted chunks support:
entities mentioned only there and the deleted document's node are gone, shared entities lose the links
and evidence that came from it. kg.export.live_only does the same for the exports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from kgrag.core.errors import NotFoundError
from kgrag.core.text import SENTENCE_END_INLINE, split_sentences
from kgrag.kg.canonical import canonical_name, entity_key
from kgrag.kg.extract import TITLE_LABEL
from kgrag.kg.graphfile import DOCUMENT_PREFIX, TITLED
from kgrag.kg.liveness import Liveness
from kgrag.kg.serving import LoadedGraph

MAX_VIEW = 300
"""No view returns more entities than this, however large the graph."""
EVIDENCE_PER_EDGE = 3
LABEL_WEIGHT = {TITLE_LABEL: 2.0, "NORP": 0.25, "LANGUAGE": 0.25}
"""Document titles are what a reader navigates by; nationality and language words link everything to
everything (the hairball of "American", "British")."""


@dataclass(frozen=True, slots=True)
class EntityView:
    key: str
    name: str
    label: str
    degree: int
    """Distinct neighbours."""
    chunks: int
    """Chunks that mention it (its document frequency)."""
    usefulness: float


@dataclass(frozen=True, slots=True)
class EdgeView:
    source: str
    target: str
    label: str
    weight: float
    evidence_chunks: tuple[int, ...] = ()
    """Chunks that mention both ends (the UI shows their sentences); filled for a neighbourhood's spokes."""
    sentence: str = ""
    """For a document's mention link to another document, the sentence that makes it ("Lumen Robotics was
    bought by Northwind Dynamics in 2019."): what ``relation_phrase`` reads the edge's relation from."""


@dataclass(frozen=True, slots=True)
class GraphView:
    nodes: tuple[EntityView, ...]
    edges: tuple[EdgeView, ...]
    center: str | None = None
    total_neighbours: int = 0
    """For a neighbourhood: how many neighbours the entity has, of which ``nodes`` shows the strongest."""


@dataclass(frozen=True, slots=True)
class _Derived:
    usefulness: np.ndarray
    degree: np.ndarray
    lowered: tuple[str, ...]
    twin_of: dict[int, int]
    """Entity node → the document node its name titles ("Lothair II" the PERSON and the document "Lothair
    II"): one thing to a reader, so views show the document and fold the entity's links into it."""
    twins: dict[int, int]
    """Document node → its twin entity (the reverse of ``twin_of``)."""


def _touched(graph: LoadedGraph, node: int) -> np.ndarray:
    """The chunk columns behind a node: those that mention it and, for a document, its own."""
    return np.union1d(graph.chunk_columns_of_entity(node), graph.home_columns(node))


def _edge_shown(graph: LoadedGraph, a: int, b: int, live: Liveness | None) -> bool:
    """Both ends shown, and the edge not drawn from deleted chunks only (an edge with no chunk behind
    it in the arrays, such as a title link, stands or falls with its ends)."""
    if live is None:
        return True
    if live.hidden[a] or live.hidden[b]:
        return False
    behind = np.intersect1d(_touched(graph, a), _touched(graph, b), assume_unique=True)
    return behind.size == 0 or bool(live.live_columns[behind].any())


def _derived(graph: LoadedGraph) -> _Derived:
    """Computed once per loaded graph and kept by it (a new build is a new object), in a few milliseconds
    at 30k entities."""
    return graph.derived("browse", _derive)


def _derive(graph: LoadedGraph) -> _Derived:
    degree = graph.neighbour_counts()
    chunks = np.asarray(graph.mention_counts(), dtype=np.float64)
    specificity = np.log((1.0 + graph.chunk_count) / (1.0 + chunks))
    weights = np.array([LABEL_WEIGHT.get(label, 1.0) for label in graph.all_labels()], dtype=np.float64)
    usefulness = np.log1p(degree) * specificity * weights
    twin_of = title_twins(graph)
    return _Derived(usefulness=usefulness, degree=degree, lowered=tuple(n.lower() for n in graph.all_names()),
                    twin_of=twin_of, twins={doc: entity for entity, doc in twin_of.items()})


def title_twins(graph: LoadedGraph) -> dict[int, int]:
    """Entity → document pairs joined by a ``titled`` edge, read off the edge-label matrix in one pass."""
    rows, columns = graph.labelled_pairs(TITLED)
    if not rows.size:
        return {}
    is_document = np.array([k.startswith(DOCUMENT_PREFIX) for k in graph.all_keys()], dtype=bool)
    pairs = [(int(a), int(b)) for a, b in zip(rows.tolist(), columns.tolist(), strict=True)
             if not is_document[a] and is_document[b]]
    return dict(sorted(pairs))


def usefulness(graph: LoadedGraph) -> np.ndarray:
    """log(1 + neighbours) × log(chunks / chunks mentioning it) × a label weight, per entity.

    Degree alone favours words that occur everywhere; dividing by how widely an entity is mentioned
    keeps the entities that connect *specific* things (a film, its director, the director's school).
    """
    return _derived(graph).usefulness


def _entity(graph: LoadedGraph, i: int, d: _Derived) -> EntityView:
    return EntityView(key=graph.key(i), name=graph.name(i), label=graph.label(i), degree=int(d.degree[i]),
                      chunks=int(graph.mention_counts()[i]), usefulness=round(float(d.usefulness[i]), 4))


def _shown_as(d: _Derived, node: int, live: Liveness | None) -> int:
    """The node a view shows for ``node``: its document when it is a document's title entity (unless that
    document is deleted: an entity other documents still mention then stands for itself)."""
    doc = d.twin_of.get(node)
    return node if doc is None or (live is not None and live.hidden[doc]) else doc


def search(graph: LoadedGraph, query: str, limit: int = 20, live: Liveness | None = None) -> list[EntityView]:
    """Entities whose name or an alias contains ``query``: exact, then prefix, then word start, then anywhere."""
    d = _derived(graph)
    q = query.strip().lower()
    if not q:
        return []
    word = re.compile(r"\b" + re.escape(q))
    found: dict[int, int] = {}
    for i, name in enumerate(d.lowered):
        if q in name:
            found[i] = 0 if name == q else 1 if name.startswith(q) else 2 if word.search(name) else 3
    q_key = entity_key(q)
    for alias in graph.alias_keys() if q_key else ():  # keys only: owners are read for the few that match
        if q_key in alias:
            for i in graph.aliased(alias):
                found.setdefault(i, 4)
    if live is not None:
        found = {i: rank for i, rank in found.items() if live.shows(i)}
    for twin in [i for i in found if _shown_as(d, i, live) != i]:  # the document stands for its title entity
        rank = found.pop(twin)
        found[d.twin_of[twin]] = min(rank, found.get(d.twin_of[twin], rank))
    ranked = sorted(found, key=lambda i: (found[i], -d.usefulness[i], graph.name(i)))[: min(limit, MAX_VIEW)]
    return [_entity(graph, i, d) for i in ranked]


def resolve(graph: LoadedGraph, entity: str, live: Liveness | None = None) -> int:
    """An entity's index from its key, its name or an alias; a NotFoundError that suggests close names.

    The name as the views show it is matched before its canonical key: a title such as "The The" or
    "x (y) (z)" canonicalises to another name's key ("the") or to none, and search listed the very
    name that opening it then refused. An entity ``live`` hides is not found (a deleted document's
    names are not confirmed either)."""
    d = _derived(graph)

    def shown(i: int) -> bool:
        return live is None or live.shows(i)

    node = graph.node_of(entity)
    if node is not None and shown(node):
        return _shown_as(d, node, live)
    wanted = " ".join(entity.split()).lower()
    named = [i for i, name in enumerate(d.lowered) if name == wanted and shown(i)]
    if named:
        best = max(named, key=lambda i: (i in d.twin_of.values() or graph.key(i).startswith(DOCUMENT_PREFIX),
                                         d.usefulness[i]))
        return _shown_as(d, best, live)
    node = graph.node_of(entity_key(canonical_name(entity)))
    if node is not None and shown(node):
        return _shown_as(d, node, live)
    owners = [i for i in graph.aliased(entity_key(canonical_name(entity))) if shown(i)]
    if owners:
        best = max(owners, key=lambda i: d.usefulness[i])
        return _shown_as(d, best, live)
    close = [e.name for e in search(graph, entity.split()[0] if entity.split() else entity, limit=3, live=live)]
    raise NotFoundError(f"no entity named {entity!r} in the graph",
                        fix=f"try one of {close}" if close else "search for one with GET /v1/graph/entities?q=")


def _edges_among(graph: LoadedGraph, members: list[int], live: Liveness | None = None) -> list[EdgeView]:
    chosen = set(members)
    edges = []
    for a in members:
        around, weights = graph.neighbours(a)
        for b, w in zip(around.tolist(), weights.tolist(), strict=True):
            if b in chosen and a < b and _edge_shown(graph, a, b, live):
                edges.append(EdgeView(graph.key(a), graph.key(b), graph.edge_label(a, b), round(w, 4),
                                      sentence=graph.sentence_between(a, b)))
    return edges


def shared_chunks(graph: LoadedGraph, a: int, b: int, limit: int = EVIDENCE_PER_EDGE,
                  live: Liveness | None = None) -> tuple[int, ...]:
    """Chunks that mention both entities: where the edge between them came from (the live ones only)."""
    both = np.intersect1d(graph.chunk_columns_of_entity(a), graph.chunk_columns_of_entity(b), assume_unique=True)
    if live is not None:
        both = both[live.live_columns[both]]
    both = both[:limit]
    return tuple(int(c) for c in graph.chunk_ids_at(both))


def neighbourhood(graph: LoadedGraph, entity: str, limit: int = 40, live: Liveness | None = None) -> GraphView:
    """The entity and its ``limit`` strongest neighbours (edge weight, then usefulness), with the edges
    among them; each spoke carries the chunks that are its evidence. A document and its title entity are
    one node here: the entity's links show as the document's. ``live``: see ``Liveness``."""
    center = resolve(graph, entity, live)
    d = _derived(graph)
    twin = d.twins.get(center)
    strength: dict[int, float] = {}
    for node in (center, twin) if twin is not None else (center,):
        around, around_weights = graph.neighbours(node)
        for b, w in zip(around.tolist(), around_weights.tolist(), strict=True):
            if not _edge_shown(graph, node, b, live):
                continue
            b = _shown_as(d, b, live)
            if b != center:
                strength[b] = max(strength.get(b, 0.0), w)
    neighbours = list(strength)
    order = sorted(neighbours, key=lambda j: (-strength[j], -d.usefulness[j], j))
    shown = order[: max(0, min(limit, MAX_VIEW - 1))]
    members = [center, *shown]
    folded = [*members, *(t for m in members if (t := d.twins.get(m)) is not None)]
    key_of = {graph.key(t): graph.key(doc) for t, doc in d.twin_of.items() if doc in members}
    edges: dict[tuple[str, str], EdgeView] = {}
    for e in _edges_among(graph, folded, live):
        source, target = key_of.get(e.source, e.source), key_of.get(e.target, e.target)
        if source == target:
            continue
        source, target = sorted((source, target))
        if graph.key(center) in (source, target):
            other = graph.node_of(target) if source == graph.key(center) else graph.node_of(source)
            evidence = shared_chunks(graph, center, other, live=live) or (
                shared_chunks(graph, twin, d.twins.get(other, other), live=live) if twin is not None else ())
            e = EdgeView(source, target, e.label, e.weight, evidence, e.sentence)
        else:
            e = EdgeView(source, target, e.label, e.weight, e.evidence_chunks, e.sentence)
        kept = edges.get((source, target))
        if kept is None or kept.weight < e.weight:
            # A document and its title entity fold into one node, so one spoke can come from several edges:
            # the heaviest gives the weight, but a link sentence (and the relation it states) is kept
            # whichever edge brought it: the heavier "co-occurs" had hidden it on every person's page.
            if kept is not None and kept.sentence and not e.sentence:
                e = replace(e, label=kept.label, sentence=kept.sentence)
            edges[(source, target)] = e
        elif e.sentence and not kept.sentence:
            edges[(source, target)] = replace(kept, label=e.label, sentence=e.sentence)
    return GraphView(nodes=tuple(_entity(graph, i, d) for i in members), edges=tuple(edges.values()),
                     center=graph.key(center), total_neighbours=len(neighbours))


def overview(graph: LoadedGraph, limit: int = 150, live: Liveness | None = None) -> GraphView:
    """A map of what the corpus is about: its documents first (what a reader navigates by; by usefulness
    alone "Bergen" and "Luleå" came before them), then the most useful entities, each seed with its two most
    useful neighbours (so the map shows connections, not a scatter of titles), then more by usefulness."""
    d = _derived(graph)
    n = min(limit, MAX_VIEW, graph.node_count)
    if n == 0:
        return GraphView(nodes=(), edges=())

    def rank(i: int) -> tuple[bool, float, str]:
        return not graph.key(i).startswith(DOCUMENT_PREFIX), -float(d.usefulness[i]), graph.key(i)

    order = np.array(sorted((i for i in range(graph.node_count)
                             if _shown_as(d, i, live) == i and (live is None or live.shows(i))), key=rank),
                     dtype=np.int64)
    members: dict[int, None] = {}
    for seed in order[: max(1, n // 3)].tolist():
        if len(members) >= n:
            break
        members[seed] = None
        around, _ = graph.neighbours(seed)
        best = sorted((j for j in around.tolist() if _shown_as(d, j, live) == j and _edge_shown(graph, seed, j, live)),
                      key=lambda j: (-d.usefulness[j], j))
        for j in [j for j in best if j not in members][:2]:
            if len(members) < n and d.usefulness[j] > 0:
                members[j] = None
    for i in order.tolist():
        if len(members) >= n:
            break
        members.setdefault(i, None)
    chosen = sorted(members, key=rank)
    return GraphView(nodes=tuple(_entity(graph, i, d) for i in chosen),
                     edges=tuple(_edges_among(graph, chosen, live)))


def most_useful(graph: LoadedGraph, limit: int) -> list[str]:
    """The keys of the ``limit`` most useful entities, best first."""
    d = _derived(graph)
    order = [i for i in np.argsort(-d.usefulness, kind="stable").tolist() if i not in d.twin_of]
    return [graph.key(i) for i in order[: max(0, limit)]]


def within_hops(graph: LoadedGraph, entity: str, hops: int, limit: int) -> list[str]:
    """The entity and what lies within ``hops`` of it, nearest first, at most ``limit`` keys
    (each ring's strongest-linked first, so a hub's ring is cut to its most useful members)."""
    d = _derived(graph)
    start = resolve(graph, entity)
    seen = {start: None}
    ring = [start]
    for _ in range(hops):
        nxt: dict[int, float] = {}
        for a in ring:
            for b in graph.neighbours(a)[0].tolist():
                b = d.twin_of.get(b, b)
                if b not in seen:
                    nxt[b] = max(nxt.get(b, 0.0), float(d.usefulness[b]))
        ring = sorted(nxt, key=lambda b: (-nxt[b], b))[: max(0, limit - len(seen))]
        seen.update(dict.fromkeys(ring))
        if len(seen) >= limit or not ring:
            break
    return [graph.key(i) for i in seen]


def evidence_sentences(text: str, names: list[str], limit: int = 2) -> list[str]:
    """The sentences of a chunk that name all of ``names`` (else any of them); else the chunk's start.

    A neighbourhood shows why two entities are linked; the whole chunk is too much to read per edge.
    """
    sentences = split_sentences(text, SENTENCE_END_INLINE)
    lowered = [n.lower() for n in names if n]
    every = [s for s in sentences if all(n in s.lower() for n in lowered)]
    some = [s for s in sentences if any(n in s.lower() for n in lowered)]
    picked = (every or some)[:limit]
    if picked:
        return picked
    return [text[:300] + ("…" if len(text) > 300 else "")] if text else []


_RELATION_DEPS = {"prep", "agent", "dative", "prt"}


def relation_phrase(parse: Callable[[str], Any], sentence: str, names: list[str]) -> str:
    """The verb that links a named thing in the sentence, with its preposition: "bought by" in "Lumen Robotics
    was bought by Northwind Dynamics", "founded" in "Marta Kask founded it". Empty when no name is found in
    the sentence or no verb governs it (the caller keeps "mentions").

    Every edge read "co-occurs" or "mentions" although the sentence behind it says how the two are related
    (issue 46); the graph build keeps no verb for a document's mention link, so the view reads it here.
    ``parse``: a spaCy pipeline (any callable returning a parsed Doc); names are tried in order, then each
    one's last word ("Kask" for "Marta Kask")."""
    lowered = sentence.lower()
    tried = [*names, *(n.split()[-1] for n in names if len(n.split()) > 1)]
    found = next(((lowered.find(n.lower()), len(n)) for n in tried if n and lowered.find(n.lower()) >= 0), None)
    if found is None:
        return ""
    doc = parse(sentence)
    span = doc.char_span(found[0], found[0] + found[1], alignment_mode="expand")
    if span is None:
        return ""
    token, prep = span.root, None
    for _ in range(8):  # up the tree to the governing verb, remembering the preposition passed on the way
        if token.pos_ in ("VERB", "AUX") and token.i != span.root.i:
            words = [token.text.lower(), *(t.text.lower() for t in token.children if t.dep_ == "prt")]
            return " ".join([*words, prep.text.lower()] if prep is not None and prep.head.i == token.i else words)
        if token.dep_ in _RELATION_DEPS:
            prep = token
        if token.head.i == token.i:
            break
        token = token.head
    return ""


def graph_stats(graph: LoadedGraph) -> dict[str, int]:
    return {"entities": graph.node_count, "edges": graph.edge_count, "chunks": graph.chunk_count}


__all__ = ["EdgeView", "EntityView", "GraphView", "evidence_sentences", "graph_stats",
           "most_useful", "neighbourhood", "overview", "relation_phrase", "resolve", "search", "shared_chunks",
           "usefulness",
           "within_hops"]
