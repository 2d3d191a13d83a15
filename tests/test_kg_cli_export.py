"""`kgrag graph build|stats|export` through the real CLI, and the exports loaded back by their readers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from kgrag.api.cli import app
from kgrag.core.runtime import Runtime
from kgrag.core.settings import GraphSettings
from kgrag.kg.store import GraphStore
from typer.testing import CliRunner

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)


@pytest.fixture
def cli_env(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    """The CLI reads its settings from the environment: point it at the test's database and home."""
    monkeypatch.setenv("KGRAG_HOME", str(runtime.settings.home))
    monkeypatch.setenv("KGRAG_DATABASE__URL", str(runtime.settings.database.url))
    ingest_folder(runtime)
    return runtime


def _invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    return result


def test_cli_build_stats_and_refusal_while_another_build_runs(cli_env: Runtime, nlp: Any) -> None:
    result = _invoke("graph", "build")
    assert result.exit_code == 0, result.output
    assert "entities" in result.output and "chunks covered" in result.output
    assert cli_env.settings.graph_path.exists()

    again = _invoke("graph", "build")
    assert again.exit_code == 0 and re.search(r"chunks processed now\s*│?\s*0", again.output), again.output

    stats = _invoke("graph", "stats", "--top", "3")
    assert stats.exit_code == 0 and "current" in stats.output and "12 of 12 chunks processed" in stats.output

    with GraphStore(cli_env.db).build_lock():
        refused = _invoke("graph", "build")
    assert refused.exit_code == 1
    assert "another `kgrag graph build` is running" in refused.output


def test_exports_load_back_with_networkx(cli_env: Runtime, nlp: Any, tmp_path: Path) -> None:
    build(cli_env, nlp)
    graphml, node_link = tmp_path / "g.graphml", tmp_path / "g.json"
    assert _invoke("graph", "export", "-f", "graphml", "-o", str(graphml)).exit_code == 0
    assert _invoke("graph", "export", "-f", "json", "-o", str(node_link)).exit_code == 0
    g = nx.read_graphml(graphml)
    assert g.nodes["harlow biotech"]["name"] == "Harlow Biotech"
    assert g.has_edge("harlow biotech", "miriam okafor")
    assert json.loads(g.nodes["miriam okafor"]["chunks"])
    h = nx.node_link_graph(json.loads(node_link.read_text()), edges="edges")
    assert set(h.nodes) == set(g.nodes) and h.number_of_edges() == g.number_of_edges()

    sub = tmp_path / "sub.json"
    result = _invoke("graph", "export", "-f", "json", "-o", str(sub), "--entity", "harlow biotech", "--hops", "1")
    assert result.exit_code == 0, result.output
    s = nx.node_link_graph(json.loads(sub.read_text()), edges="edges")
    assert "miriam okafor" in s and "aldermere university" not in s  # two hops away
    top = tmp_path / "top.graphml"
    assert _invoke("graph", "export", "-f", "graphml", "-o", str(top), "--top", "4", "--by", "degree").exit_code == 0
    assert nx.read_graphml(top).number_of_nodes() == 4
    missing = _invoke("graph", "export", "-f", "json", "-o", str(sub), "--entity", "Harlow Biotek Ltd")
    assert missing.exit_code == 1 and "no entity named" in missing.output


def test_export_without_a_graph_says_to_build(cli_env: Runtime, tmp_path: Path) -> None:
    result = _invoke("graph", "export", "-f", "html", "-o", str(tmp_path / "x.html"))
    assert result.exit_code == 1 and "kgrag graph build" in result.output


def test_html_view_is_self_contained_and_embeds_evidence(cli_env: Runtime, nlp: Any, tmp_path: Path) -> None:
    build(cli_env, nlp)
    page = tmp_path / "graph.html"
    assert _invoke("graph", "export", "-f", "html", "-o", str(page)).exit_code == 0
    html = page.read_text()
    assert "<script src" not in html and "<link" not in html  # nothing to fetch: script, style and data inline
    data = json.loads(re.search(r"window.KGRAG_STATIC = (.*?);</script>", html, re.S).group(1).replace("<\\/", "</"))
    names = {n["name"] for n in data["entities"]}
    assert "Aldermere University" in names
    evidence = " ".join(s for v in data["views"].values() for e in v["edges"] for ev in e["evidence"]
                        for s in ev["sentences"])
    assert "protein chemistry" in evidence  # the sentences behind the links travel with the file


def test_html_view_draws_in_headless_chromium(cli_env: Runtime, nlp: Any, tmp_path: Path) -> None:
    """The export is the UI's Graph page: it draws the overview and opens a neighbourhood from file://."""
    from kgrag.kg import browse
    from kgrag.kg.holder import load_graph

    from tests.browser import browser_page

    report = build(cli_env, nlp)
    page_file = tmp_path / "graph.html"
    assert _invoke("graph", "export", "-f", "html", "-o", str(page_file)).exit_code == 0
    with browser_page() as page:
        page.goto(page_file.as_uri())
        page.wait_for("document.body.dataset.graphView === 'overview'", timeout=60)
        assert page.evaluate("document.body.dataset.graphRenderer") == "webgl"
        graph = load_graph(report.path, document_edge_weight=cli_env.settings.graph.document_edge_weight)
        twins = browse.title_twins(graph)  # a document and its title entity are drawn as one node
        assert twins and int(page.evaluate("document.body.dataset.graphNodes")) == min(graph.node_count - len(twins),
                                                                                       120)
        page.evaluate("""(() => { const s = document.getElementById('entity-search');
            s.value = 'Aldermere'; s.dispatchEvent(new Event('input')); })()""")
        page.wait_for("document.querySelector('#search-results li[data-key]')")
        page.evaluate("document.querySelector('#search-results li[data-key]').click()")
        page.wait_for("document.body.dataset.graphView === 'neighbourhood'")
        assert page.evaluate("document.getElementById('entity-name').innerText").startswith("Aldermere")
        assert page.evaluate("document.querySelectorAll('.edge .ev').length") > 0


def test_graphml_export_survives_characters_xml_cannot_hold(tmp_path: Path) -> None:
    from kgrag.kg.export import write_graphml

    g = nx.Graph(manifest={"format": "kgrag-graph/1"})
    g.add_node("odd\ufffename", name="Odd\x01Name", label="ORG", aliases=["O\ud800"], chunks=[[1, 1]])
    g.add_node("plain", name="Plain", label="PERSON", aliases=[], chunks=[[1, 1]])
    g.add_edge("odd\ufffename", "plain", weight=1, relations=[{"label": "co-occurs", "chunks": [1]}])
    write_graphml(g, tmp_path / "odd.graphml")
    back = nx.read_graphml(tmp_path / "odd.graphml")
    assert back.number_of_nodes() == 2 and back.number_of_edges() == 1
    assert back.nodes["plain"]["name"] == "Plain"


HOSTILE = ["<!--<script>", "</script><script>document.body.innerHTML=''</script>", "<!-- a & b > c",
           "]]><![CDATA[", "line\u2028sep\u2029arator", "&lt;amp&gt; & <b>bold</b>"]


def _hostile_page() -> str:
    """The live HTML export (the UI's Graph page) of a graph whose names and evidence are hostile."""
    from kgrag.api.ui_export import static_page, static_views
    from kgrag.kg.assemble import loaded_view

    evidence = {1: ("<!--<script>", "<script>src", "<!--<script> text </script> & more")}
    hostile = loaded_view(_hostile_graph(), Path("hostile"), document_edge_weight=GraphSettings().document_edge_weight)
    views = static_views(hostile, lambda ids: {i: evidence[i] for i in ids
                                                                                      if i in evidence})
    return static_page(views)


def test_html_view_embeds_hostile_text_escaped() -> None:
    html = _hostile_page()
    blob = html.split("window.KGRAG_STATIC = ", 1)[1].split(";</script>", 1)[0]
    assert not any(ch in blob for ch in "<>&"), "the embedded JSON must not hold <, > or & raw"
    assert "\\u003c!--\\u003cscript\\u003e" in blob and "\\u0026" in blob
    names = {n["name"] for n in json.loads(blob)["entities"]}
    assert names == set(HOSTILE)  # still the same data once parsed


def _hostile_graph() -> nx.Graph:
    g = nx.Graph(manifest={"format": "kgrag-graph/2"})
    for i, name in enumerate(HOSTILE):
        g.add_node(f"n{i}", name=name, label="ORG", aliases=[name], chunks=[[1, 1]], pagerank=0.1, mentions=1)
    for i in range(1, len(HOSTILE)):
        g.add_edge("n0", f"n{i}", weight=1, relations=[{"label": "<!--", "weight": 1, "chunks": [1]}])
    return g


def test_html_view_with_hostile_names_is_drawn_in_headless_chromium(tmp_path: Path) -> None:
    from tests.browser import browser_page

    page_file = tmp_path / "hostile.html"
    page_file.write_text(_hostile_page(), encoding="utf-8")
    with browser_page() as page:
        page.goto(page_file.as_uri())
        page.wait_for("document.body.dataset.graphView === 'overview'", timeout=60)
        assert int(page.evaluate("document.body.dataset.graphNodes")) == len(HOSTILE)


def test_a_home_that_never_built_exports_the_published_graph(cli_env: Runtime, nlp: Any, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    build(cli_env, nlp)
    monkeypatch.setenv("KGRAG_HOME", str(tmp_path / "another-home"))  # same database, empty data home
    out = tmp_path / "g.json"
    result = _invoke("graph", "export", "-f", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "another-home" / "graph" / "graph.json.gz").read_bytes() == \
        cli_env.settings.graph_path.read_bytes()
    assert any(n.get("name") == "Harlow Biotech" for n in json.loads(out.read_text())["nodes"])
