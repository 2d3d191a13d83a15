"""kg.subjects: a document whose title cannot name it is named by the subject its text opens with."""

from __future__ import annotations

import pytest
from kgrag.kg.documents import document_layer, subject_document
from kgrag.kg.subjects import document_subject, subject_variants, text_subject, usable_title


@pytest.mark.parametrize(("text", "subject"), [
    ("Ermengarde of Tours (died 851) was the daughter of Hugh of Tours.", "Ermengarde of Tours"),
    ("Teutberga( died 11 November 875) was a queen of Lotharingia.", "Teutberga"),
    ("Brother is a song by the American rock band Pearl Jam.", "Brother"),
    ("The Beatles were an English rock band.", "The Beatles"),
    ("Project Heron\n\nThe Wren-3 firmware is developed under Project Heron.", "Project Heron"),
    ("# Jonas Meier\n\nJonas Meier leads Project Heron.", "Jonas Meier"),
    # the name before the first aside (parenthesis, comma, semicolon), name particles, nested parentheses
    ('Archambaud IX of Bourbon( died 1249), called Le Jeune(" The Young"), was a ruler.', "Archambaud IX of Bourbon"),
    ("Conall mac Taidg( died c. 807)( Conall son of Tadc) was a king of the Picts.", "Conall mac Taidg"),
    ("Fist of Fury II( a.k.a. Chinese Connection 2 (Tschang Fu)) is a 1977 film.", "Fist of Fury II"),
    ("Ranganath ; (born 1949) was an Indian film actor.", "Ranganath"),
    ("Lou Ye , born 1965, is a Chinese screenwriter-director.", "Lou Ye"),
])
def test_the_opening_names_the_subject(text: str, subject: str) -> None:
    assert text_subject(text) == subject


@pytest.mark.parametrize("text", [
    "The aim of this study was to test whether statins lower risk.",  # a clause, not a name
    "It was a cold day. Nothing happened.",                            # a pronoun
    "We measured the expression of BRCA1 in 40 tumours.",              # no copula, no heading
    "In 1990 the plant was closed.\nMore text.",                       # a clause, not a name
    "The aim of this study, as designed, was to test statins.",       # a clause before the aside too
])
def test_an_opening_that_names_nothing_gives_no_subject(text: str) -> None:
    assert text_subject(text) == ""


def test_a_title_is_used_unless_it_only_stands_in_for_a_missing_one() -> None:
    assert usable_title("Lothair II", "2wiki:4", 12)
    assert not usable_title("2wiki:4", "2wiki:4", 12)                 # ingest's stand-in for no title
    assert not usable_title("jonas_meier", "wiki/jonas_meier.txt", 12)  # a file stem
    assert not usable_title(" ".join(["word"] * 13), "paper:1", 12)    # no prose repeats it
    assert document_subject("2wiki:4", "2wiki:4", "Lothair II (835 – 869) was king.", max_words=12) == \
        ("Lothair II", False)
    assert document_subject("Lothair II", "2wiki:4", "Something else is here.", max_words=12) == ("Lothair II", True)


def test_a_subject_found_in_text_gets_the_variants_prose_writes() -> None:
    assert subject_variants("The Limestone Coast") == ("Limestone Coast",)
    assert subject_variants("Henry Walter Moore") == ("Henry Moore",)
    assert subject_variants("Ermengarde of Tours") == ()
    doc = subject_document(3, "2wiki:3", "2wiki:3", "Henry Walter Moore (born 1849) was an English cricketer.")
    assert doc is not None and doc.title == "Henry Walter Moore"
    assert doc.aliases == ("henry walter moore", "henry moore")
    titled = subject_document(4, "Henry Walter Moore", "2wiki:4", "")
    assert titled is not None and titled.aliases == ("henry walter moore",)  # a real title gets no guessed variants


def test_untitled_documents_link_by_subject() -> None:
    """Without titles there were no document links at all; with subjects, prose naming one links to it."""
    heads = [(1, "c:1", "c:1", "Ermengarde of Tours (died 851) was a Frankish queen."),
             (2, "c:2", "c:2", "Lothair II was a king. His mother was Ermengarde of Tours.")]
    layer = document_layer(heads, [(20, 2, "Lothair II was a king. His mother was Ermengarde of Tours.")])
    assert [(link.target, link.alias) for link in layer.links] == [(1, "ermengarde of tours")]
    assert layer.links[0].sentence == "His mother was Ermengarde of Tours."
