"""How long a replica takes to load the graph, and what it then holds: the gzip JSON file parsed into
matrices, against the arrays a build writes beside it (memory-mapped).

    HF_HUB_OFFLINE=1 python bench/graph_load.py --graph .kgrag/eval/2wikimultihopqa/graph/graph.json.gz
    HF_HUB_OFFLINE=1 python bench/graph_load.py --graph … --copies 14     # ~100k chunks (bench/graph_scale.py's copies)

Not a test. Each load runs in a fresh child process, so its seconds and its RSS after the load are
its own; the page cache is warm for both (the files were just written), as on a replica that has just
downloaded them.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))


def _child(mode: str, path: Path) -> None:
    import psutil
    from kgrag.core.settings import GraphSettings
    from kgrag.kg.arrays import folder_of as arrays_folder
    from kgrag.kg.holder import load_graph

    weight = GraphSettings().document_edge_weight
    t0 = time.perf_counter()
    if mode == "json":
        from kgrag.kg.assemble import from_node_link
        from kgrag.kg.graphfile import read_data

        graph = from_node_link(read_data(path), path=path, signature=(0, 0, 0), document_edge_weight=weight)
    else:
        graph = load_graph(path, document_edge_weight=weight)
    seconds = time.perf_counter() - t0
    if mode == "arrays":  # the arrays were used, not a fallback parse
        assert any(p.name.endswith(".npy") for p in arrays_folder(path).iterdir())
        assert type(graph.chunk_ids).__name__ == "memmap", "load_graph fell back to parsing the file"
    print(json.dumps({"seconds": round(seconds, 2), "rss_mb": round(psutil.Process().memory_info().rss / 2**20, 1),
                      "stats": graph.stats}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", type=Path, required=True)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--child", choices=["json", "arrays"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.graph)
        return
    from graph_scale import replicate
    from kgrag.core.settings import GraphSettings
    from kgrag.kg import arrays
    from kgrag.kg.assemble import from_node_link
    from kgrag.kg.graphfile import read_data

    weight = GraphSettings().document_edge_weight

    data = read_data(args.graph)
    if args.copies > 1:
        data = replicate(data, args.copies)
    with tempfile.TemporaryDirectory(prefix="kgrag-graph-load-") as tmp:
        path = Path(tmp) / "graph.json.gz"
        blob = gzip.compress(json.dumps(data, sort_keys=True, separators=(",", ":")).encode(), compresslevel=6,
                             mtime=0)
        path.write_bytes(blob)
        t0 = time.perf_counter()
        loaded = from_node_link(data, path=path, signature=(0, 0, 0), document_edge_weight=weight)
        arrays.save(loaded, arrays.folder_of(path), source_sha256=hashlib.sha256(blob).hexdigest(),
                    document_edge_weight=weight)
        arrays_s = time.perf_counter() - t0
        arrays_bytes = sum(p.stat().st_size for p in arrays.folder_of(path).iterdir())
        del loaded, data
        results = {}
        for mode in ("json", "arrays"):
            out = subprocess.run([sys.executable, __file__, "--graph", str(path), "--child", mode],
                                 capture_output=True, text=True, check=True)
            results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
    print(json.dumps({"graph": str(args.graph), "copies": args.copies, "stats": results["json"]["stats"],
                      "file_bytes": len(blob), "arrays_bytes": arrays_bytes,
                      "build_side_arrays_s": round(arrays_s, 2), "load": results}, indent=2))
    json_s, arrays_s2 = results["json"]["seconds"], results["arrays"]["seconds"]
    print(f"load: parsed JSON {json_s} s ({results['json']['rss_mb']} MB RSS) vs mapped arrays {arrays_s2} s "
          f"({results['arrays']['rss_mb']} MB RSS)")


if __name__ == "__main__":
    main()
