"""The package's shape, checked from its source: who may read the serving graph's arrays, how long a function
in kg/ and retrieval/ may grow, that imports only ever form a DAG, and that no module keeps a cache of its own
(resources belong to core.runtime.Runtime, values derived from a graph to the graph).

Read with ``ast`` (only LoadedGraph is imported, for its field names), so a violation fails here however it
got in."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator

from kgrag.kg.serving import LoadedGraph

from tests.conftest import REPO_ROOT

PACKAGES = ("core", "ingest", "kg", "retrieval", "api", "eval")
GRAPH_OWNERS = {"kg/serving.py", "kg/arrays.py", "kg/assemble.py"}
"""The modules that make, store and answer for a LoadedGraph: the only ones that read its fields."""
SKIPPED: tuple[str, ...] = ()
"""None: retrieval/answer/ (rewritten in the same round) is held to the same rules."""
MAX_FUNCTION_LINES = 80


def _modules(*, skip: tuple[str, ...] = SKIPPED) -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            rel = path.relative_to(REPO_ROOT).as_posix()
            if "/results/" not in rel and not rel.startswith(skip):
                yield rel, ast.parse(path.read_text(), rel)


def _mentions_graph(annotation: ast.expr | None) -> bool:
    return annotation is not None and "LoadedGraph" in ast.unparse(annotation)


def _graph_producers(modules: list[tuple[str, ast.Module]]) -> set[str]:
    """Names of the functions and methods annotated to return a LoadedGraph, wherever that name is defined in
    the package (``current`` also names ArtifactStore's, so a call to it says nothing)."""
    returns: dict[str, set[bool]] = {}
    for _, tree in modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                returns.setdefault(node.name, set()).add(_mentions_graph(node.returns))
    return {name for name, graph in returns.items() if graph == {True}}


def _called_name(call: ast.expr) -> str | None:
    if isinstance(call, ast.Call):
        func = call.func
        return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return None


def field_reads(tree: ast.Module, producers: set[str]) -> list[tuple[int, str]]:
    """(line, expression) for every read of a LoadedGraph field through a name or ``self.x`` known to hold one:
    a parameter or variable annotated with it, a variable assigned from a function annotated to return one, or
    the argument of a ``derived`` maker (``graph.derived(name, lambda g: ...)``)."""
    fields = {f.name for f in dataclasses.fields(LoadedGraph)}
    held: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            held |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if _mentions_graph(a.annotation)}
        elif isinstance(node, ast.AnnAssign) and _mentions_graph(node.annotation):
            held.add(ast.unparse(node.target))
        elif isinstance(node, ast.Assign) and _called_name(node.value) in producers:
            held |= {ast.unparse(t) for t in node.targets}
        elif isinstance(node, ast.NamedExpr) and _called_name(node.value) in producers:
            held.add(node.target.id)
        elif isinstance(node, ast.Call) and _called_name(node) == "derived":
            held |= {a.args.args[0].arg for a in node.args if isinstance(a, ast.Lambda) and a.args.args}
    return sorted((node.lineno, ast.unparse(node)) for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and node.attr in fields and ast.unparse(node.value) in held)


def test_only_the_graphs_own_modules_read_its_fields() -> None:
    """Readers go through LoadedGraph's methods, so its layout can change in three files, not in every reader."""
    modules = list(_modules())
    producers = _graph_producers(modules)
    assert {"load_graph", "loaded_view"} <= producers  # the scan still sees where graphs come from
    offenders = [f"{rel}:{line}: {expr}" for rel, tree in modules if rel not in GRAPH_OWNERS
                 for line, expr in field_reads(tree, producers)]
    assert offenders == []


def test_the_field_scan_finds_each_way_a_graph_is_held() -> None:
    """The scan itself: a check that finds nothing because it looks nowhere would pass as well as a clean tree."""
    tree = ast.parse("\n".join([
        "def f(graph: LoadedGraph, other: Thing) -> None:",
        "    graph.keys; other.keys; graph.node_of('x')",
        "    g = load_graph(path); g.chunk_ids",
        "    cached: LoadedGraph | None = None; cached.home",
        "    graph.derived('x', lambda h: h.link_vectors)",
    ]))
    assert [expr for _, expr in field_reads(tree, {"load_graph"})] == [
        "graph.keys", "g.chunk_ids", "cached.home", "h.link_vectors"]


def test_no_function_in_kg_or_retrieval_is_longer_than_80_lines() -> None:
    """A function that long holds several stages; named, each can be read (and tested) on its own."""
    long = [f"{rel}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for rel, tree in _modules() if rel.startswith(("kg/", "retrieval/"))
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


def _module_name(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    return ".".join(["kgrag", *(parts[:-1] if parts[-1] == "__init__" else parts)])


def _module_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """The package's modules this one imports, at the top or inside a function (a function-level import is
    still a dependency, only a later one); a ``TYPE_CHECKING`` block, which never runs, is left out."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:  # the package imports absolutely (test_packaging)
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found & known


def test_no_import_cycle_among_the_packages_modules() -> None:
    """Imports point one way, so any module can be read, and imported, after the ones it names."""
    modules = {_module_name(rel): tree for rel, tree in _modules(skip=())}  # an answer module may close a cycle too
    known = set(modules)
    edges = {name: _module_imports(tree, known) - {name} for name, tree in modules.items()}
    assert edges["kgrag.kg.overlay"] >= {"kgrag.kg.serving", "kgrag.kg.delta"}  # the scan sees imports
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for nxt in sorted(edges[name]):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[name] = 2

    for name in sorted(edges):
        if name not in state:
            walk(name, [name])
    assert cycles == []


def test_core_names_no_package_above_it() -> None:
    """core is the bottom of the stack: a module name of a package above it, imported or written in a string for
    importlib (the parser sandbox's preload), is an upward edge the import graph does not show."""
    above = re.compile(r"\bkgrag\.(ingest|kg|retrieval|api|eval)\b")
    offenders = [f"{rel}:{node.lineno} {ast.unparse(node)[:80]}" for rel, tree in _modules() if rel.startswith("core/")
                 for node in ast.walk(tree)
                 if isinstance(node, ast.Import | ast.ImportFrom | ast.Constant) and above.search(
                     node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
                     else "" if isinstance(node, ast.Constant) else ast.unparse(node))]
    assert offenders == []


CONTAINERS = {"dict", "set", "list", "OrderedDict", "defaultdict", "Counter", "deque", "WeakKeyDictionary",
              "WeakValueDictionary", "WeakSet"}


def _is_cache_decorator(node: ast.expr) -> bool:
    text = ast.unparse(node.func if isinstance(node, ast.Call) else node)
    return text.rsplit(".", 1)[-1] in {"lru_cache", "cache"}


def _module_containers(tree: ast.Module) -> set[str]:
    """Names the module binds, at its top, to a mutable container: a display or a container's constructor."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value
            made = isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] in CONTAINERS
            if made or isinstance(value, ast.Dict | ast.Set | ast.List | ast.DictComp | ast.SetComp | ast.ListComp):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def cache_writes(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, what) for each way a module keeps state of its own: a function or method decorated with
    ``functools.cache``/``lru_cache`` (the cache lives on the module's or class's function), a ``global``
    rebinding, and a write from inside a function into a module-level container (``NAME[key] = ...``,
    ``NAME.setdefault``, ``.add``, ``.append``, ``.update``...)."""
    mutators = {"setdefault", "add", "append", "update", "__setitem__", "extend", "insert", "appendleft"}
    containers = _module_containers(tree)
    found: list[tuple[int, str]] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        found += [(fn.lineno, f"@cache {fn.name}") for d in fn.decorator_list if _is_cache_decorator(d)]
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                found += [(node.lineno, f"global {n}") for n in node.names]
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id in containers:
                found.append((node.lineno, f"{node.value.id}[...] ="))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in mutators and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id in containers:
                found.append((node.lineno, f"{node.func.value.id}.{node.func.attr}"))
    return sorted(set(found))


def test_no_module_level_cache() -> None:
    """A module-level cache outlives the runtime that filled it, is shared by every test and tenant, and hides
    what a process holds: resources belong to core.runtime.Runtime, values derived from a graph to the graph."""
    offenders = [f"{rel}:{line} {what}" for rel, tree in _modules() for line, what in cache_writes(tree)]
    assert offenders == []


def test_the_cache_scan_finds_each_kind_of_module_cache() -> None:
    tree = ast.parse("\n".join([
        "import functools, weakref",
        "_SEEN: weakref.WeakKeyDictionary[str, int] = weakref.WeakKeyDictionary()",
        "_MEMO = {}",
        "TABLE = {'a': 1}",
        "@functools.lru_cache(maxsize=8)",
        "def f(x): return TABLE[x]",
        "def g(x):",
        "    _SEEN[x] = 1",
        "    _MEMO.setdefault(x, 2)",
        "    local = {}; local[x] = 3",
    ]))
    assert [what for _, what in cache_writes(tree)] == ["@cache f", "_SEEN[...] =", "_MEMO.setdefault"]
