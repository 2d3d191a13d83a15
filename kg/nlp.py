"""What each graph step runs of a spaCy pipeline, and its identity for the manifest.

Pipelines are loaded by kgrag.core.nlp.load_spacy and owned by the Runtime (``Runtime.spacy``): the
build and the query-time linker share one instance, passed in.
"""

from __future__ import annotations

from typing import Any

SYNTAX_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")
"""The ``syntax`` build: the parser gives sentences and subject–verb–object, the lemmatizer the verb."""
ENTITY_COMPONENTS = ("senter", "sentencizer", "ner")
"""The ``entities`` build: NER plus the cheap sentence splitter (about twice as fast as the syntax pipeline)."""
LINK_COMPONENTS = ("ner",)
"""What question linking runs: the small model's NER has its own tok2vec, so nothing else is needed."""


def disabled_for(nlp: Any, wanted: tuple[str, ...]) -> list[str]:
    """Components to switch off so only ``wanted`` (and what they listen to) run."""
    return [name for name in nlp.pipe_names if name not in wanted]


def model_id(nlp: Any) -> str:
    """Name and version for the manifest: a different model means different entities."""
    meta = nlp.meta
    return f"{meta.get('lang', 'xx')}_{meta.get('name', '?')}-{meta.get('version', '?')}"
