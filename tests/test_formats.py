"""Word .docx, CSV rows, HTML main content, and every file of another type counted and listed."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest
from docx import Document
from kgrag.api.cli import app
from kgrag.core.errors import IngestError
from kgrag.ingest.loaders import load_bytes, load_file
from typer.testing import CliRunner

NEWS_PAGE = b"""<!DOCTYPE html><html><head><title>Acme news</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/careers">Careers</a></li><li><a href="/about">About us</a></li>
</ul></nav>
<header><div class="menu">Home | Careers | Investors | Contact</div></header>
<main><article><h1>Acme opens a plant in Tartu</h1>
<p>Acme Robotics opened a battery plant in Tartu on Monday. The plant employs 300 people and makes cells for
warehouse robots.</p>
<p>Chief executive Liis Tamm said the site was chosen for its rail links to Riga and Tallinn.</p></article></main>
<footer>&copy; 2024 Acme &middot; Careers &middot; Privacy policy &middot; Cookie settings</footer></body></html>"""


def docx_bytes() -> bytes:
    doc = Document()
    doc.core_properties.title = ""
    doc.add_heading("Ferry operations 2024", level=0)
    doc.add_paragraph("The Vormsi ferry carried 41,000 passengers between Rohukula and Sviby.")
    table = doc.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "route", "crossings"
    table.cell(1, 0).text, table.cell(1, 1).text = "Rohukula-Sviby", "2,310"
    doc.add_paragraph("Winter ice closed the route for nine days in February.")
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def test_docx_paragraphs_and_tables_in_order_with_its_title() -> None:
    doc = load_bytes(docx_bytes(), source="ops.docx", suffix=".docx", default_title="ops")
    text = doc.pages[0].text
    assert doc.title == "Ferry operations 2024"
    assert doc.mime_type.endswith("wordprocessingml.document")
    assert text.index("41,000 passengers") < text.index("Rohukula-Sviby | 2,310") < text.index("Winter ice")


def test_a_broken_docx_is_refused_by_name_with_the_fix() -> None:
    with pytest.raises(IngestError, match=r"not a readable Word \.docx file") as caught:
        load_bytes(b"PK\x03\x04 not really a zip", source="bad.docx", suffix=".docx", default_title="bad")
    assert caught.value.fix and ".docx" in caught.value.fix


def test_csv_rows_become_column_value_lines() -> None:
    data = b"ship,yard,year\nKelpie,Aalto Shipyards,2017\nSkua,,2021\n"
    doc = load_bytes(data, source="ships.csv", suffix=".csv", default_title="ships")
    assert doc.pages[0].text.splitlines() == ["ship: Kelpie; yard: Aalto Shipyards; year: 2017",
                                              "ship: Skua; year: 2021"]
    assert doc.metadata["csv_rows"] == 2 and doc.metadata["csv_columns"] == ["ship", "yard", "year"]
    semicolons = load_bytes(b"city;country\nTartu;Estonia\n", source="c.csv", suffix=".csv", default_title="c")
    assert semicolons.pages[0].text == "city: Tartu; country: Estonia"


def test_html_keeps_the_main_content_not_the_navigation() -> None:
    doc = load_bytes(NEWS_PAGE, source="news.html", suffix=".html", default_title="news")
    text = doc.pages[0].text
    assert "battery plant in Tartu" in text and "Liis Tamm" in text
    for boilerplate in ("Home", "Careers", "Investors", "Privacy policy", "Cookie settings"):
        assert boilerplate not in text, boilerplate
    assert doc.metadata["html_extraction"] == "main content" and doc.title == "Acme news"

    fragment = load_bytes(b"<p>Tide tables</p>", source="f.html", suffix=".html", default_title="f")
    assert fragment.pages[0].text == "Tide tables"  # nothing to call main content: all text, and said so
    assert fragment.metadata["html_extraction"].startswith("all text")


def test_every_file_of_another_type_is_counted_and_listed(tmp_path: Path, fresh_database_url: str) -> None:
    folder = tmp_path / "mixed"
    (folder / "sub").mkdir(parents=True)
    (folder / "ops.docx").write_bytes(docx_bytes())
    (folder / "ships.csv").write_text("ship,yard\nKelpie,Aalto Shipyards\n")
    (folder / "news.html").write_bytes(NEWS_PAGE)
    (folder / "budget.xlsx").write_bytes(b"PK\x03\x04")
    (folder / "sub" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "Makefile").write_text("all:\n")
    (folder / ".DS_Store").write_bytes(b"\x00")  # hidden: not content, passed over
    env = {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "250"}
    out = CliRunner().invoke(app, ["ingest", str(folder)], env=env)
    assert out.exit_code == 0, out.output
    assert re.search(r"│ added +│ 3 +│", out.output)
    assert re.search(r"│ other type or outside link \(skipped\) +│ 3 +│", out.output)
    flat = " ".join(out.output.split())
    for name, suffix in (("budget.xlsx", ".xlsx"), ("sub/photo.png", ".png"), ("Makefile", "(no extension)")):
        assert f"skipped: {(folder / name).resolve()}: {suffix} files are not ingested; supported:" in flat, name
    assert ".DS_Store" not in flat
    listing = CliRunner().invoke(app, ["documents", "list"], env=env).output
    assert "wordprocessingml" in listing and "text/csv" in listing


def test_a_file_of_another_type_named_alone_is_skipped_as_in_a_folder(tmp_path: Path, fresh_database_url: str) -> None:
    """`kgrag ingest org-chart.png` used to leave a permanent "failed" row; in a folder the same file is skipped."""
    png = tmp_path / "org-chart.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    env = {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "250"}
    out = CliRunner().invoke(app, ["ingest", str(png)], env=env)
    assert out.exit_code == 0, out.output
    assert re.search(r"│ other type or outside link \(skipped\) +│ 1 +│", out.output)
    assert re.search(r"│ failed +│ 0 +│", out.output)
    flat = " ".join(out.output.split())
    assert f"skipped: {png.resolve()}: .png files are not ingested; supported:" in flat
    listing = CliRunner().invoke(app, ["documents", "list"], env=env).output
    assert "org-chart" not in listing and "no documents yet" in listing


def test_a_plain_text_file_is_titled_by_its_heading_line_else_its_stem() -> None:
    """A .txt has no title field; the short line it opens with is its title, the file stem only a last resort."""
    headed = load_bytes(b"Project Heron\n\nThe Wren-3 firmware is developed under Project Heron.\n",
                        source="project_heron.txt", suffix=".txt", default_title="project_heron")
    assert headed.title == "Project Heron"
    prose = load_bytes(b"The Wren-3 firmware is developed under Project Heron.\nIt ships in May.\n",
                       source="wren.txt", suffix=".txt", default_title="wren")
    assert prose.title == "wren"  # a sentence is no heading
    one_line = load_bytes(b"Project Heron", source="p.txt", suffix=".txt", default_title="p")
    assert one_line.title == "p"  # a heading of nothing is the whole text, not a title
    table = load_bytes(b"city,country\nTartu,Estonia\n", source="c.csv", suffix=".csv", default_title="c")
    assert table.title == "c"  # a CSV's first line is its header row


def test_pypdf_complaints_become_the_files_reason_not_raw_stderr(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    """pypdf logged "invalid pdf header: b'not a'" to stderr, naming no file, between the CLI's progress lines."""
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"not a pdf at all")
    with caplog.at_level(logging.DEBUG), pytest.raises(IngestError) as failed:
        load_file(bad)
    assert "is not a readable PDF" in failed.value.message and "invalid pdf header" in failed.value.message
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]
    assert "invalid pdf header" not in capfd.readouterr().err
    assert logging.getLogger("pypdf").propagate  # restored for everyone else
