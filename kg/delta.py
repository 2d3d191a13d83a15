"""Graph deltas: the documents added since a base graph, as records a replica lays over the base.

A full build reads every row and every chunk's text (20 minutes at a million chunks), so a corpus that
large takes its additions as a delta, the way BM25 does (retrieval/bm25_delta.py): one cumulative delta
from the base to the corpus now, published beside the base, served as base plus delta (kg.overlay), and
folded into a new base by a full build once it outgrows ``graph.delta_max_share`` of it.

A delta holds graph-file records (kg.graphfile's node-link form), each written whole, as a full build
of the same corpus would write it:

- every entity the new chunks mention, with all its mentions (old and new), and every entity pair they
  relate, with all its relations: read from Postgres, a few rows per new chunk;
- a node per new document, the ``titled`` edge to the entity its title names, and the mention links
  between documents that the additions change. An older chunk that writes a new document's title must
  now link to it, and may link differently to others (an alias a new title shares now names more
  documents); those chunks are found through the words index (``chunks.words``), never by a scan of
  every chunk. Their documents are scanned again, with the documents they link to, so each changed
  pair of documents is written with both directions' links.

Where a delta differs from a full build of the same corpus, by design:

- a title alias's document frequency (its specificity, kg.documents) counts the new documents that write
  it, but links between two unchanged documents keep the weight the base gave them until compaction.
  This is BM25's trade (base statistics); ``tests/test_graph_delta.py`` measures the difference;
- a document deleted since the base leaves the title index (a replaced document's title then names only its
  new version, as in a full build), but its node and links stay until compaction, hidden from every ranking
  and view (kg.liveness), and the weights of entity links some of whose relations it held stay too;
- a new alias that swallows a shorter base alias in an older chunk ("New York Times" over "New York")
  takes that chunk's link, but the shorter alias's document frequency is not lowered.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
from kgrag.core.models import Embedder
from kgrag.kg.arrays import LINK_VECTOR_STEP
from kgrag.kg.canonical import canonical_name, entity_key
from kgrag.kg.documents import (
    MentionLink,
    TitleDocument,
    TitleIndex,
    sentence_around,
    specificity,
    subject_document,
    tokens,
)
from kgrag.kg.graphfile import (
    DOCUMENT,
    DOCUMENT_LABEL,
    DOCUMENT_PREFIX,
    ENTITY,
    MENTIONS_DOCUMENT,
    TITLED,
    document_id,
    document_node,
    entity_attrs,
    group_relations,
)
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.store import DeltaRows, GraphStore

FORMAT = "kgrag-graph-delta/1"
RECORDS_FILE = "graph-delta.json.gz"
VECTORS_FILE = "graph-delta.vectors.npy"
REMOVED = "removed"
"""An edge record with this key set drops the base's edge between its ends."""


@dataclass(frozen=True, slots=True)
class GraphDelta:
    """One immutable delta: records that add to or replace the base's, and the vectors of its new link sentences."""

    base_artifact: str
    """The digest of the base graph artifact it was built against: it is laid over that base only."""
    corpus_version: int
    deletions: int
    chunk_documents: list[tuple[int, int]]
    """(chunk id, document id) of every chunk added since the base, by id (all above the base's last)."""
    nodes: list[dict[str, Any]]
    """Node records: new nodes whole; a base node's record replaces the fields it holds."""
    edges: list[dict[str, Any]]
    """Edge records, each replacing the base's edge between its ends (or dropping it: ``REMOVED``)."""
    alias_df: dict[str, int]
    """Title aliases whose document frequency the additions changed."""
    removed_documents: list[int] = field(default_factory=list)
    """Base documents deleted since (a replaced document's old version among them): out of the title index, so
    a title they shared with a live document names only that one. Their nodes stay, hidden (kg.liveness)."""
    link_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    link_vectors_model: str = ""

    @property
    def size(self) -> int:
        """Chunks added since the base."""
        return len(self.chunk_documents)


def words(text: str) -> list[str]:
    """A chunk's distinct folded words, as title aliases are written (kg.documents.tokens): the words index."""
    return sorted({t.key for t in tokens(text)})


def build_delta(store: GraphStore, base: LoadedGraph, base_artifact: str, *,
                embedder: Embedder | None = None, previous: GraphDelta | None = None) -> GraphDelta:
    """The delta from ``base`` to the corpus now. The base must be a whole graph (not itself laid over);
    ``previous``, the delta it replaces, lends the link sentences' vectors it already made."""
    last = base.last_chunk_id
    store.fill_words(words)
    rows = store.delta_rows(last)
    nodes, entity_keys = _entity_records(rows)
    edges = _pair_records(rows, entity_keys, base)
    new_documents = sorted({d for _, d in rows.chunk_documents})
    added = [td for head in store.document_heads(new_documents) if (td := subject_document(*head)) is not None]
    home: dict[int, list[int]] = defaultdict(list)
    for chunk_id, doc in rows.chunk_documents:
        home[doc].append(chunk_id)
    removed = _removed_documents(store, base) if rows.deletions != base.deletions() else []
    relinked = _relink(store, base, added, home, last, removed)
    for doc in added:
        key = document_node(doc.document_id)
        nodes.append({"id": key, "kind": DOCUMENT, "name": doc.title, "label": DOCUMENT_LABEL,
                      "aliases": list(doc.aliases), "full_key": doc.full_key,
                      "alias_df": {a: relinked.alias_df(a) for a in doc.aliases}, "home": sorted(home[doc.document_id]),
                      "chunks": [[c, 1] for c in sorted(relinked.mentioned_in.get(doc.document_id, ()))],
                      "mentions": len(relinked.mentioned_in.get(doc.document_id, ()))})
        entity = entity_key(canonical_name(doc.title, strip_disambiguator=True))
        if entity in entity_keys or _is_entity(base, entity):
            edges.append({"kind": TITLED, "weight": 1, "source": entity, "target": key, "relations": [
                {"label": TITLED, "source": key, "target": entity, "weight": 1, "chunks": []}]})
    added_ids = {d.document_id for d in added}
    for doc, chunks in sorted(relinked.mentioned_in.items()):
        if doc not in added_ids:  # a base document now written by other chunks than before
            nodes.append({"id": document_node(doc), "kind": DOCUMENT,
                          "chunks": [[c, 1] for c in sorted(chunks)], "mentions": len(chunks)})
    edges.extend(relinked.edges)
    vectors, model = _new_link_vectors(base, edges, embedder, previous)
    return GraphDelta(base_artifact, rows.corpus_version, rows.deletions, rows.chunk_documents, nodes, edges,
                      relinked.changed_df, removed, vectors, model)


def _removed_documents(store: GraphStore, base: LoadedGraph) -> list[int]:
    """The base's title documents that are no longer stored."""
    ids = [int(d) for d in base.title_index().documents]
    return sorted(set(ids) - store.stored_documents(ids))


def _is_entity(graph: LoadedGraph, key: str) -> bool:
    return bool(key) and graph.node_of(key) is not None and not key.startswith(DOCUMENT_PREFIX)


def _entity_records(rows: DeltaRows) -> tuple[list[dict[str, Any]], set[str]]:
    """Each touched entity's node record from all its mentions (kg.graphfile's, so the same as a full build's)."""
    nodes = []
    for key, group in groupby(rows.mentions, key=attrgetter("key")):
        nodes.append({**entity_attrs(key, list(group)), "id": key})
    return nodes, {n["id"] for n in nodes}


def _pair_records(rows: DeltaRows, entity_keys: set[str], base: LoadedGraph) -> list[dict[str, Any]]:
    """Each touched entity pair's edge record from all its relations. The source is the pair's end listed
    first in the graph (the lesser key): the record is the same whichever end a reader starts from."""
    edges = []
    for (a, b), group in groupby(rows.relations, key=_pair_of):
        rels = [(r.relation, r.source, r.target, r.weight, r.chunk_id) for r in group]
        if all(k in entity_keys or _is_entity(base, k) for k in (a, b)):
            edges.append({"kind": ENTITY, "weight": sum(r[3] for r in rels), "relations": group_relations(rels),
                          "source": a, "target": b})
    return edges


def _pair_of(relation: Any) -> tuple[str, str]:
    a, b = relation.source, relation.target
    return (a, b) if a < b else (b, a)


@dataclass
class _Relinked:
    edges: list[dict[str, Any]]
    mentioned_in: dict[int, set[int]]
    """Document → the chunks that link to it, for every document whose set the additions changed."""
    base: LoadedGraph
    changed_df: dict[str, int]

    def alias_df(self, alias: str) -> int:
        return self.changed_df.get(alias, self.base.alias_df_of(alias, 0))


def merged_titles(base: TitleIndex, added: Iterable[TitleDocument], removed: Iterable[int] = ()) -> TitleIndex:
    """The base's title index with the new documents in it and the removed ones out: only the aliases they
    write change."""
    added, removed = list(added), set(removed)
    documents = Overlay(base.documents, {d.document_id: d for d in added}, removed)
    new_targets: dict[str, set[int]] = defaultdict(set)
    for doc in added:
        for alias in doc.aliases:
            new_targets[alias].add(doc.document_id)
    for alias in changed_aliases(base, [], removed):
        new_targets.setdefault(alias, set())
    over = {a: tuple(sorted((set(base.targets.get(a, ())) - removed) | ids)) for a, ids in new_targets.items()}
    targets = Overlay(base.targets, {a: t for a, t in over.items() if t}, [a for a, t in over.items() if not t])
    prefixes: set[str] = set()
    for alias in new_targets:
        split = alias.split(" ")
        prefixes.update(" ".join(split[:n]) for n in range(1, len(split) + 1))
    return TitleIndex.from_parts(documents, targets, Union(base.prefixes, prefixes))


def changed_aliases(base: LoadedGraph | TitleIndex, added: Iterable[TitleDocument], removed: Iterable[int]
                    ) -> list[str]:
    """The title aliases whose documents change: those of the added documents and of the removed ones."""
    titles = base.title_index() if isinstance(base, LoadedGraph) else base
    out = {a for d in added for a in d.aliases}
    for doc in removed:
        known = titles.documents.get(doc)
        if known is not None:
            out.update(known.aliases)
    return sorted(out)


def _relink(store: GraphStore, base: LoadedGraph, added: list[TitleDocument], home: dict[int, list[int]],
            last: int, removed: list[int]) -> _Relinked:
    """The mention links the additions (and removals from the title index) change, and what they change in the
    documents' mention sets."""
    index = merged_titles(base.title_index(), added, removed)
    new_aliases = changed_aliases(base, added, removed)
    # Documents whose links may change: the new ones, and the older ones that write a changed alias.
    changed = set(home) | store.documents_writing(new_aliases, up_to_chunk=last)
    first = store.texts_of_documents(sorted(changed))
    raw = _matches(index, first)
    partners = {t for *_, targets, _alias, _s in raw for t in targets}
    for doc in changed:
        node = base.document_node_of(doc)
        if node is not None:
            partners.update(_document_neighbours(base, node))
    others = partners - changed
    raw += _matches(index, store.texts_of_documents(sorted(others)))
    # Document frequency: every writer of a changed alias is among the scanned; a base alias adds the new writers.
    writers: dict[str, set[int]] = defaultdict(set)
    for _chunk, doc, _targets, alias, _sentence in raw:
        writers[alias].add(doc)
    new_alias_set = set(new_aliases)
    changed_df = {a: len(writers[a]) for a in new_aliases}
    for alias, docs in writers.items():
        if alias not in new_alias_set and (docs & set(home)):
            changed_df[alias] = base.alias_df_of(alias, 0) + len(docs & set(home))
    relinked = _Relinked([], {}, base, changed_df)
    links: dict[tuple[int, int], MentionLink] = {}
    for chunk_id, doc, targets, alias, sentence in raw:
        if not targets:
            continue
        weight = specificity(relinked.alias_df(alias)) / len(targets)
        for target in targets:
            k = (chunk_id, target)
            if k not in links or links[k].weight < weight:
                links[k] = MentionLink(chunk_id, doc, target, alias, weight, sentence)
    def has_node(doc: int) -> bool:
        return doc in index.documents and (doc in home or base.document_node_of(doc) is not None)

    kept = [link for link in links.values() if has_node(link.target) and has_node(link.source_document)]
    relinked.mentioned_in = _mention_sets(base, kept, {c for c, *_ in raw}, has_node)
    relinked.edges = _link_records(base, kept, changed, has_node)
    return relinked


_Match = tuple[int, int, tuple[int, ...], str, str]


def _matches(index: TitleIndex, chunks: Iterable[tuple[int, int, str]]) -> list[_Match]:
    """(chunk, document, targets, alias, sentence) of every alias the chunks write (kg.documents.scan_mentions);
    a match with no target but the chunk's own document is kept too: it still counts as a writer."""
    raw = []
    for chunk_id, doc, text in chunks:
        found = tokens(text)
        context = {w.key for w in found}
        for start, end, alias in index.matches(found):
            targets = tuple(t for t in index.resolve(alias, context) if t != doc)
            raw.append((chunk_id, doc, targets, alias, sentence_around(text, found[start].start, found[end - 1].end)))
    return raw


def _document_neighbours(graph: LoadedGraph, node: int) -> set[int]:
    """The documents a document node is linked with in the base."""
    out = set()
    for other in graph.neighbours(node)[0].tolist():
        key = graph.key(other)
        if key.startswith(DOCUMENT_PREFIX):
            out.add(document_id(key))
    return out


def _mention_sets(base: LoadedGraph, links: list[MentionLink], scanned: set[int], has_node: Any
                  ) -> dict[int, set[int]]:
    """Each document's linking chunks where the scan changed them: the base's, less the scanned chunks, plus
    the scanned chunks that link to it now."""
    now: dict[int, set[int]] = defaultdict(set)
    for link in links:
        now[link.target].add(link.chunk_id)
    columns = np.flatnonzero(np.isin(base.all_chunk_ids(), np.fromiter(scanned, dtype=np.int64)))
    touched = set(now)
    for column in columns.tolist():
        for node in base.entities_of_chunk(column).tolist():
            key = base.key(node)
            if key.startswith(DOCUMENT_PREFIX):
                touched.add(document_id(key))
    out = {}
    for doc in touched:
        if not has_node(doc):
            continue
        node = base.document_node_of(doc)
        before = set() if node is None else {int(c) for c in base.chunk_ids_at(base.chunk_columns_of_entity(node))}
        after = (before - scanned) | now.get(doc, set())
        if after != before or node is None:
            out[doc] = after
    return out


def _link_records(base: LoadedGraph, links: list[MentionLink], changed: set[int], has_node: Any
                  ) -> list[dict[str, Any]]:
    """The edge record of every document pair with an end in ``changed`` (both ends' links are in ``links``), as
    kg.graphfile writes it, and a removal for each such pair the base links that no longer is."""
    grouped: dict[tuple[int, int], list[MentionLink]] = defaultdict(list)
    for link in links:
        if link.source_document in changed or link.target in changed:
            grouped[(link.source_document, link.target)].append(link)
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for (source, target), group in sorted(grouped.items()):
        a, b = document_node(source), document_node(target)
        best = max(group, key=lambda k: (k.weight, -k.chunk_id))
        pairs[(a, b) if a < b else (b, a)].append({
            "label": "mentions", "source": a, "target": b, "weight": round(best.weight, 6),
            "chunks": sorted({k.chunk_id for k in group}), "alias": best.alias, "sentence": best.sentence})
    records = [{"kind": MENTIONS_DOCUMENT, "weight": max(r["weight"] for r in rels), "relations": rels,
                "source": a, "target": b} for (a, b), rels in sorted(pairs.items())]
    for doc in sorted(changed):
        node = base.document_node_of(doc)
        if node is None or not has_node(doc):
            continue
        for other in sorted(_document_neighbours(base, node)):
            a, b = sorted((document_node(doc), document_node(other)))
            if (a, b) not in pairs:
                pairs[(a, b)] = []
                records.append({"source": a, "target": b, REMOVED: True})
    return records


def _new_link_vectors(base: LoadedGraph, edges: list[dict[str, Any]], embedder: Embedder | None,
                      previous: GraphDelta | None) -> tuple[dict[str, np.ndarray], str]:
    """Vectors of the delta's link sentences the base has none for, by the base's model (none without one):
    the previous delta's where it made them, the rest embedded now."""
    if embedder is None or not base.embeds_links_with(embedder.stamp):
        return {}, ""
    stored = base.link_vectors_for(embedder.stamp)
    sentences = sorted({e["relations"][0].get("sentence", "") for e in edges
                        if e.get("kind") == MENTIONS_DOCUMENT} - {""})
    lent = previous.link_vectors if previous is not None and previous.link_vectors_model == embedder.stamp else {}
    out = {s: lent[s] for s in sentences if s not in stored and s in lent}
    missing = [s for s in sentences if s not in stored and s not in lent]
    if missing:
        out.update(zip(missing, embedder.encode(missing, step=LINK_VECTOR_STEP).astype(np.float16), strict=True))
    return out, embedder.stamp


# -- files ------------------------------------------------------------------------------------------
def write_delta(delta: GraphDelta, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    sentences = sorted(delta.link_vectors)
    record = {"format": FORMAT, "base_artifact": delta.base_artifact, "corpus_version": delta.corpus_version,
              "deletions": delta.deletions, "chunk_documents": [list(p) for p in delta.chunk_documents],
              "nodes": delta.nodes, "edges": delta.edges, "alias_df": delta.alias_df,
              "removed_documents": delta.removed_documents,
              "link_sentences": sentences, "link_vectors_model": delta.link_vectors_model}
    (folder / RECORDS_FILE).write_bytes(gzip.compress(
        json.dumps(record, sort_keys=True, ensure_ascii=False).encode(), mtime=0))
    if sentences:
        np.save(folder / VECTORS_FILE, np.stack([delta.link_vectors[s] for s in sentences]))


def read_delta(folder: Path) -> GraphDelta:
    """A delta folder (raises OSError/ValueError/KeyError when it cannot be read)."""
    record = json.loads(gzip.decompress((folder / RECORDS_FILE).read_bytes()))
    if record.get("format") != FORMAT:
        raise ValueError(f"{folder} holds no {FORMAT} delta (format {record.get('format')!r})")
    sentences = record["link_sentences"]
    vectors = dict(zip(sentences, np.load(folder / VECTORS_FILE), strict=True)) if sentences else {}
    return GraphDelta(record["base_artifact"], int(record["corpus_version"]), int(record["deletions"]),
                      [(int(c), int(d)) for c, d in record["chunk_documents"]], record["nodes"], record["edges"],
                      {a: int(n) for a, n in record["alias_df"].items()}, [int(d) for d in record["removed_documents"]],
                      vectors, record["link_vectors_model"])


# -- overlays: the base's mappings with the delta's entries over them ---------------------------------
class Overlay(Mapping[Any, Any]):
    """A base mapping with entries added or replaced (``over``) and removed (``removed``), without copying it."""

    def __init__(self, base: Mapping[Any, Any], over: Mapping[Any, Any], removed: Iterable[Any] = ()) -> None:
        self._base, self._over, self._removed = base, over, frozenset(removed)

    def __getitem__(self, key: Any) -> Any:
        if key in self._over:
            return self._over[key]
        if key in self._removed:
            raise KeyError(key)
        return self._base[key]

    def __contains__(self, key: object) -> bool:
        return key in self._over or (key not in self._removed and key in self._base)

    def __iter__(self) -> Any:
        yield from (k for k in self._base if k not in self._over and k not in self._removed)
        yield from self._over

    def __len__(self) -> int:
        """Without a pass over the base (a million-entry mapped table): counted from the delta's entries."""
        added = sum(1 for k in self._over if k not in self._base)
        gone = sum(1 for k in self._removed if k in self._base and k not in self._over)
        return len(self._base) + added - gone


class Union:
    """Membership in either of two containers (the title prefixes of a base and its delta)."""

    def __init__(self, base: Any, more: set[str]) -> None:
        self._base, self._more = base, more

    def __contains__(self, item: object) -> bool:
        return item in self._more or item in self._base
