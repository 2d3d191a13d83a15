"""Writes corpus/incident-HB-2025-007.pdf, the corpus's one PDF, from the text below.

The PDF is committed; this script is its source, so the text can be read and changed without a PDF
editor. Run with the dev extras installed (fpdf2): ``python eval/golden/harbour_agency/make_pdf.py``.
The output is fixed (no creation date), so re-running it leaves the committed file unchanged.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

TITLE = "Incident report HB-2025-007"

SECTIONS: list[tuple[str, str]] = [
    ("Summary",
     "Incident HB-2025-007: fuel spill at Quay 4, 14 February 2025. Reported by Amara Nwosu, Safety and "
     "Environment Officer. Classification: pollution, moderate."),
    ("What happened",
     "At about 06:40 on 14 February 2025 the dredger Maud Ellen was taking on marine gas oil at Quay 4 from "
     "the agency's shore tank. A hose coupling split during the transfer. The pump was stopped within two "
     "minutes, but an estimated 340 litres of marine gas oil reached the water, of which 290 litres were "
     "recovered with booms and a skimmer before the afternoon tide."),
    ("Response",
     "The Signal Station was told of the spill at 06:44. Booms were laid across the mouth of the Quay 4 berth "
     "by 07:30, and the harbour remained open to other traffic throughout. No birds were found oiled."),
    ("Cause",
     "The coupling that split had been supplied by Brightwater Fuels in 2019 and had not been replaced since. "
     "It showed corrosion on the inner face that could not be seen from outside."),
    ("Actions",
     "All couplings at Quay 4 were replaced by 28 February 2025. The fuel transfer policy was revised to require "
     "couplings to be replaced on a fixed schedule. The clean-up cost is to be recovered from the supplier."),
]


def build(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(dt.datetime(2025, 2, 20, tzinfo=dt.UTC))  # fixed: the same bytes on every run
    pdf.set_title(TITLE)
    pdf.set_author("Merrow Harbour Agency")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 15)
    pdf.multi_cell(0, 9, TITLE, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    for heading, text in SECTIONS:
        pdf.set_font("Helvetica", "B", 12)
        pdf.multi_cell(0, 7, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    pdf.output(str(path))


if __name__ == "__main__":
    build(Path(__file__).resolve().parent / "corpus" / "incident-HB-2025-007.pdf")
