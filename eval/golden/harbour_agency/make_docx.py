"""Writes the corpus's two Word files (a staff profile and a contract summary) from the text below.

The .docx files are committed; this script is their source. Run with the project installed
(python-docx): ``python eval/golden/harbour_agency/make_docx.py``. The core properties carry a fixed
date, so re-running it gives the same text (the zip container's timestamps may differ).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

PROFILE = ("Staff profile", [
    "Name: Owen Tregarthen",
    "Role: Channels and Dredging Coordinator",
    "Department: Marine Operations",
    "Owen Tregarthen came to the agency in 2016 after twelve years as a hydrographic surveyor. He plans the "
    "dredging of the approach channel and the harbour berths and checks the depth surveys after each campaign.",
    "Owen manages the maintenance dredging contract with Orrin Dredging, CT-2023-018, and reports to the "
    "Harbour Master.",
])

CONTRACT = ("Contract summary CT-2024-031", [
    "Works: North Breakwater Renewal (project PR-2024-004).",
    "Employer: Merrow Harbour Agency. Contractor: Calder Marine Engineering.",
    "Contract value: £2,150,000, excluding the agency's contingency.",
    "Start of works: 3 February 2025. Completion date: 30 November 2025.",
    "Delay damages: £4,000 for each day the works finish after the completion date.",
    "Employer's representative: Tobias Renwick. Contractor's site agent: Colm Devlin.",
])


def write(path: Path, title: str, paragraphs: list[str]) -> None:
    from docx import Document

    doc = Document()
    doc.core_properties.title = title
    doc.core_properties.author = "Merrow Harbour Agency"
    fixed = dt.datetime(2025, 1, 1)
    doc.core_properties.created = fixed
    doc.core_properties.modified = fixed
    doc.add_heading(title, level=1)
    for text in paragraphs:
        doc.add_paragraph(text)
    doc.save(str(path))


if __name__ == "__main__":
    corpus = Path(__file__).resolve().parent / "corpus"
    write(corpus / "profile-07.docx", *PROFILE)
    write(corpus / "contract-CT-2024-031.docx", *CONTRACT)
