"""retrieval.conversation without a model: what a user's follow-up text may contain."""

from __future__ import annotations

from typing import Any

import pytest
from kgrag.retrieval.conversation import Turn, resolve_offline

from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)


@pytest.mark.parametrize("subject", [r"\1", r"\g<0>", "Polar Cells"])
def test_an_elliptical_follow_up_swaps_in_the_user_s_words_verbatim(nlp: Any, subject: str) -> None:
    earlier = [Turn("user", "Where is Corvid Systems headquartered?"), Turn("assistant", "In Lisbon [1].")]
    question, resolved = resolve_offline(f"And {subject}?", earlier, nlp)
    assert question == f"Where is {subject} headquartered?"  # a backslash is text, not a group reference
    assert resolved == {"Corvid Systems": subject}


@pytest.mark.parametrize(("asked", "answer", "follow_up", "standalone"), [
    # the small NER reads "Kittiwake Boatworks" as a person and "Brigid Ashworth" as a building
    ("Which boatbuilder built the Gannet?", "Kittiwake Boatworks built the Gannet in 2016.", "Where is it based?",
     "Where is Kittiwake Boatworks based?"),
    ("Who is the Harbour Director?", "Brigid Ashworth.", "Where was she born?", "Where was Brigid Ashworth born?"),
])
def test_a_pronoun_finds_the_answer_s_name_whatever_label_ner_gave_it(
        nlp: Any, asked: str, answer: str, follow_up: str, standalone: str) -> None:
    turns = [Turn("user", asked), Turn("assistant", answer)]
    assert resolve_offline(follow_up, turns, nlp)[0] == standalone


@pytest.mark.parametrize(("answer", "follow_up", "standalone"), [
    ("Copperfield Systems, with its Ledgerline product.", "When was that company established?",
     "When was Copperfield Systems established?"),
    ("Mairead Quill is Head of Finance at the council.", "Since when has she held that post?",
     "Since when has Mairead Quill held the post of Head of Finance?"),
    ("Mairead Quill is Head of Finance at the council.", "Where was this person born?",
     "Where was Mairead Quill born?"),
])
def test_a_demonstrative_noun_stands_for_the_earlier_name_or_role_of_its_kind(
        nlp: Any, answer: str, follow_up: str, standalone: str) -> None:
    turns = [Turn("user", "Who runs it?"), Turn("assistant", answer)]
    question, resolved = resolve_offline(follow_up, turns, nlp)
    assert question == standalone
    assert resolved
    # a "that" that points at no kind of thing is left as the user wrote it
    assert resolve_offline("Is that right?", turns, nlp) == ("Is that right?", {})


def test_a_follow_up_question_opening_with_and_is_no_ellipsis_and_of_them_is_what_was_counted(nlp: Any) -> None:
    """"And how many of them had arrived?" is a question of its own: pasting it into the earlier question as if it
    were a name ("… for the how many of them had arrived to Run project") made it unanswerable."""
    earlier = [Turn("user", "How many survey buoys were bought for the Tern project?"),
               Turn("assistant", "8 survey buoys were bought from Kessock Marine.")]
    question, resolved = resolve_offline("And how many of them had been deployed by June?", earlier, nlp)
    assert question == "And how many of the survey buoys had been deployed by June?", question
    assert resolved == {"them": "the survey buoys"}
    swapped, _ = resolve_offline("And Polar Cells?", [Turn("user", "Who founded Lumen Robotics?")], nlp)
    assert swapped == "Who founded Polar Cells?"
