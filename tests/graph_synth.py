"""A generated graph file at corpus scale (30k+ entities), shaped like a real one, without a 30k-chunk ingest.

Like the 2Wiki graph it has a few nationality words mentioned everywhere (the hubs a degree
ranking puts first), many people, places and organisations, and a document title per "document"
linking its entities. Written in the same format as ``kgrag graph build`` writes (kg/graphfile).
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

from kgrag.kg.graphfile import FORMAT, write_atomic

HUBS = ("American", "British", "French", "German")
LABELS = ("PERSON", "PERSON", "PERSON", "GPE", "ORG", "WORK_OF_ART", "LOC", "EVENT")


def synthetic_graph(entities: int = 30_000, *, per_document: int = 8, seed: int = 7) -> dict[str, Any]:
    """Node-link data: ``entities`` nodes in documents of ``per_document`` entities plus a title each."""
    rng = random.Random(seed)
    nodes: dict[str, dict[str, Any]] = {}
    edges: dict[tuple[str, str], int] = {}

    def node(key: str, name: str, label: str) -> dict[str, Any]:
        return nodes.setdefault(key, {"id": key, "name": name, "label": label, "aliases": [], "chunks": [],
                                      "mentions": 0, "pagerank": 0.0})

    for hub in HUBS:
        node(hub.lower(), hub, "NORP")
    chunk = 0
    doc = 0
    while len(nodes) < entities:
        doc += 1
        title = node(f"document {doc} title", f"Document {doc} Title", "TITLE")
        members = [title]
        for j in range(per_document):
            label = LABELS[(doc + j) % len(LABELS)]
            members.append(node(f"entity {doc}-{j}", f"Entity {doc}-{j}", label))
        members.append(nodes[HUBS[doc % len(HUBS)].lower()])
        if doc > 1 and rng.random() < 0.5:  # a link to an earlier document, as multi-hop corpora have
            members.append(nodes[f"entity {rng.randrange(1, doc)}-0"])
        for _ in range(2):
            chunk += 1
            for m in members:
                m["chunks"].append([chunk, 1])
                m["mentions"] += 1
        for a_i, a in enumerate(members):
            for b in members[a_i + 1:]:
                pair = (a["id"], b["id"]) if a["id"] < b["id"] else (b["id"], a["id"])
                edges[pair] = edges.get(pair, 0) + 2
    edge_list = [{"source": a, "target": b, "weight": w, "relations": [{"label": "co-occurs", "weight": w}]}
                 for (a, b), w in sorted(edges.items())]
    manifest = {"format": FORMAT, "corpus_version": 1, "generated": "tests/graph_synth.py"}
    return {"directed": False, "multigraph": False, "graph": {"manifest": manifest},
            "nodes": [nodes[k] for k in sorted(nodes)], "edges": edge_list}


def write_synthetic_graph(path: Path, entities: int = 30_000, *, database_id: str = "",
                          corpus_version: int = 1) -> dict[str, Any]:
    """``database_id``, ``corpus_version``: the database a server will check the file against and its corpus
    version (a graph names the state it was built from; at another version the views hide whatever the
    database no longer holds, and this graph's chunks are in no database)."""
    data = synthetic_graph(entities)
    data["graph"]["manifest"]["database_id"] = database_id
    data["graph"]["manifest"]["corpus_version"] = corpus_version
    write_atomic(path, gzip.compress(json.dumps(data, separators=(",", ":")).encode(), compresslevel=1, mtime=0))
    return data
