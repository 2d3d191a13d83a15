"""The README's screenshots of the web UI, made by driving the real UI, not by hand.

Ingests examples/ into a throw-away data home (embedded PostgreSQL), builds its graph, serves the
app on 127.0.0.1 and drives headless Chromium (Debian's `chromium`) through each page:

    HF_HUB_OFFLINE=1 python bench/screenshots.py   # docs/ui-ask.png, ui-documents.png, ui-graph.png (1280x800)
                                                   # and docs/ui-phone-*.png, the same pages at a phone's 390x844

Needs the dev extras (websockets) and chromium; nothing is fetched from the network.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.core.types import LoadedDocument

    from tests.browser import Page

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

QUESTION = "Who founded the company that acquired Lumen Robotics?"
ENTITY = "Tomas Berg"
SIZES = {"ui-": (1280, 800), "ui-phone-": (390, 844)}
"""File name prefix → viewport: a laptop's and a phone's (issue 46: the UI had never been looked at on one)."""


def example_documents() -> list[LoadedDocument]:
    """examples/ loaded under repository-relative sources ("examples/skua_drone.md"): ingested by path, each source
    would be the absolute path of whoever made the screenshots, shown in the README's pictures."""
    from kgrag.ingest.loaders import SUPPORTED_SUFFIXES, load_bytes

    return [load_bytes(p.read_bytes(), source=p.relative_to(ROOT).as_posix(), suffix=p.suffix, default_title=p.stem)
            for p in sorted((ROOT / "examples").iterdir()) if p.suffix.lower() in SUPPORTED_SUFFIXES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNGs (default docs/)")
    args = parser.parse_args()

    import soak
    from kgrag.api.app import create_app
    from kgrag.core.nlp import load_spacy
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import AnswerSettings, Settings
    from kgrag.ingest.pipeline import Ingestor
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore

    from tests.browser import browser_page

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kgrag-screens-") as home:
        # Reranking as a newcomer has it (on, and offline without weights unless they are cached): the pictures
        # show its one-line note, not a warning for a setting nobody would make.
        settings = Settings(_env_file=None, home=Path(home), answer=AnswerSettings(backend="extractive"))
        rt = Runtime(settings)
        try:
            Ingestor.from_runtime(rt).ingest_documents(example_documents())
            build_graph(GraphStore(rt.db), settings.graph, settings.graph_path, load_spacy(settings.graph.spacy_model))
            with soak.serve_in_thread(create_app(runtime=rt)) as url:
                for prefix, (width, height) in SIZES.items():
                    with browser_page(width, height) as page:
                        take(page, url, args.out, prefix)
        finally:
            rt.close()


def take(page: Page, url: str, out: Path, prefix: str) -> None:
    """The three pages, as a user reaches them: a cited answer with a citation open, the documents, a neighbourhood."""
    page.goto(f"{url}/#ask")
    page.wait_for("document.body.dataset.page === 'ask'")
    page.evaluate(f"""(() => {{ document.getElementById('question').value = {QUESTION!r};
        document.getElementById('ask-button').click(); }})()""")
    page.wait_for("document.body.dataset.askState === 'cited'", timeout=120)
    page.evaluate("""(() => { const b = [...document.querySelectorAll('button.cite')];
        (b[1] || b[0]).click(); })()""")  # a graph-found passage when there is one
    page.wait_for("document.getElementById('citation-detail').dataset.citation")
    shot(page, out / f"{prefix}ask.png")

    page.goto(f"{url}/#documents")
    page.wait_for("document.body.dataset.documents")
    shot(page, out / f"{prefix}documents.png")

    page.goto(f"{url}/#graph?entity={ENTITY.replace(' ', '%20')}")
    page.wait_for("document.body.dataset.graphView === 'neighbourhood'", timeout=60)
    time.sleep(0.5)  # sigma draws on the next animation frames
    shot(page, out / f"{prefix}graph.png")


def shot(page: Page, path: Path) -> None:
    page.screenshot(path)
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


if __name__ == "__main__":
    main()
