"""kg.subjects: a document whose title cannot name it is named by the subject its text opens with."""

from __future__ import annotations

from pathlib import PurePath

import pytest
from kgrag.kg.documents import document_layer, subject_document
from kgrag.kg.subjects import (
    document_subject,
    passage_subject,
    subject_variants,
    text_subject,
    untitled_subject,
    usable_title,
)


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
    # a heading that is no name: the sentence below it says what the document is about
    ("# Skua drone\n\nThe Skua is an inspection drone made by Northwind Dynamics.", "The Skua"),
    # a first line that only looks like a heading: the sentence it starts still counts whole
    ("Gayle Kawaipuna Prejean (April 14, 1943 – April 14, 1992)\nwas a Hawaiian nationalist.",
     "Gayle Kawaipuna Prejean"),
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
    assert doc.aliases == ("henry walter moore", "henry moore", "walter moore")  # a person: any given name
    titled = subject_document(4, "Henry Walter Moore", "2wiki:4", "")
    assert titled is not None and titled.aliases == ("henry walter moore",)  # a real title gets no guessed variants


@pytest.mark.parametrize(("opening", "variants"), [
    # a person (the opening gives dates) by any given name and the surname, or by a quoted nickname
    ("David Ryan Adams (born November 5, 1974) is an American singer.", ("David Adams", "Ryan Adams")),
    ('Gian-Carla "Gia" Coppola (born January 1, 1987) is an American film director.',
     ("Gian-Carla Coppola", "Gia Coppola")),
    # the names the opening states
    ("Robert Rihmeek Williams (born May 6, 1987), known professionally as Meek Mill, is an American rapper.",
     ("Robert Williams", "Rihmeek Williams", "Meek Mill")),
    ("Vladimir Rostislavovich Gardin (born Vladimir Rostislavovich Blagonravov; – 28 May 1965) was a director.",
     ("Vladimir Gardin", "Rostislavovich Gardin", "Vladimir Rostislavovich Blagonravov")),
    # not a person: no given-name variants ("York Library" names nothing)
    ("New York Public Library is a library in New York City.", ("New Library",)),
])
def test_a_subject_goes_by_the_names_prose_and_its_opening_give(opening: str, variants: tuple[str, ...]) -> None:
    assert subject_variants(text_subject(opening), opening) == variants


def test_a_titled_document_also_goes_by_the_names_its_opening_states() -> None:
    doc = subject_document(5, "Onika Maraj", "wiki:5", "Onika Tanya Maraj (born 1982), known professionally as "
                                                      "Nicki Minaj, is a rapper. She was later known as a judge.")
    assert doc is not None and doc.aliases == ("onika maraj", "nicki minaj")


@pytest.mark.parametrize(("text", "subject"), [
    ("A Nest of Noblemen is a 1969 Soviet drama film.", "A Nest of Noblemen"),
    ("An Event is a 1969 Yugoslav film.", "An Event"),
])
def test_a_name_may_open_with_an_article(text: str, subject: str) -> None:
    assert text_subject(text) == subject


def test_an_article_before_a_common_noun_is_no_name() -> None:
    assert text_subject("A study of statins was carried out in 2001.") == ""


def test_untitled_documents_link_by_subject() -> None:
    """Without titles there were no document links at all; with subjects, prose naming one links to it."""
    heads = [(1, "c:1", "c:1", "Ermengarde of Tours (died 851) was a Frankish queen."),
             (2, "c:2", "c:2", "Lothair II was a king. His mother was Ermengarde of Tours.")]
    layer = document_layer(heads, [(20, 2, "Lothair II was a king. His mother was Ermengarde of Tours.")])
    assert [(link.target, link.alias) for link in layer.links] == [(1, "ermengarde of tours")]
    assert layer.links[0].sentence == "His mother was Ermengarde of Tours."


@pytest.mark.parametrize(("source", "opening", "subject"), [
    ("wiki/jonas_meier.txt", "Jonas Meier joined in 2015. He leads Project Heron.", "Jonas Meier"),
    ("wiki/Project Heron.docx", "Work on project heron began in 2020. Project Heron ships the Wren-3.",
     "Project Heron"),
    ("wiki/acme.txt", "The drones of ACME fly far.", "ACME"),          # one word, mid-sentence: a name
    ("wiki/acme.txt", "ACME builds drones.", ""),                      # one word at a sentence start: maybe not
    ("wiki/notes.txt", "Notes from the meeting with Anna.", ""),
    ("wiki/report-q3.pdf", "The Q3 report shows growth.", ""),        # not capitalised as a name
    ("2wiki:381", "In 381 the council met.", ""),                      # an id names nothing
    ("wiki/heron.txt", "Project Heron is led by Jonas Meier.", "Project Heron"),  # the opening's own subject first
])
def test_a_file_named_after_its_subject_names_it_when_the_opening_does_not(
        source: str, opening: str, subject: str) -> None:
    assert untitled_subject(source, opening) == subject
    assert passage_subject(PurePath(source).stem, source, opening) == subject
    assert document_subject(source, source, opening, max_words=12) == (subject, False)


def test_an_untitled_file_named_after_a_person_gets_the_links_that_name_them() -> None:
    """A company wiki's "jonas_meier.txt" that opens "Jonas Meier joined in 2015." had no subject, so the
    project page naming him linked nowhere."""
    heads = [(1, "jonas_meier", "wiki/jonas_meier.txt", "Jonas Meier joined in 2015. He works in Zurich."),
             (2, "heron", "wiki/heron.txt", "Project Heron builds firmware. It is led by Jonas Meier.")]
    layer = document_layer(heads, [(20, 2, "Project Heron builds firmware. It is led by Jonas Meier.")])
    assert (1, "jonas meier") in [(link.target, link.alias) for link in layer.links]
