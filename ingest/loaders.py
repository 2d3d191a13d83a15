"""Turn files (PDF, Word .docx, Markdown, plain text, HTML, CSV) into text pages with a title.

Each loader raises IngestError with a reason a person can act on; the caller carries on with
the rest of the batch. PDFs keep their page numbers so answers can cite them.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from frontmatter import YAMLHandler
from kgrag.core.errors import IngestError
from kgrag.core.settings import IngestSettings
from kgrag.core.text import ANY_CONTROL, CONTROL, SURROGATE, clean_line, heading_line, surrogate_char, surrogate_problem
from kgrag.core.types import LoadedDocument, Page

PARSER_MODULES = (__name__, "lxml.etree", "docx", "pypdf", "bs4", "yaml", "frontmatter", "trafilatura")
"""What a parser sandbox's fork server imports once (core.sandbox), so each worker starts with them and its
memory limit is set above them: this module and the parsers it calls. Ingest names them, since it owns them."""

SUPPORTED_SUFFIXES: dict[str, str] = {
    ".pdf": "application/pdf",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".csv": "text/csv",
}


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clean_text(text: str) -> str:
    """Drop control characters (Postgres refuses NUL; ESC sequences drive terminals) and normalise line endings.
    A lone surrogate (a PDF's broken UTF-16) becomes U+FFFD: no encoder takes it, so the file could not be
    stored at all."""
    return SURROGATE.sub("\ufffd", CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))


def clean_title(text: str) -> str:
    """A title is one line shown in tables and terminals (core.text.clean_line): a heading, a front-matter
    title or an HTML <title> must not carry a bidi override any more than a typed one may."""
    return clean_line(text)


def escape_controls(text: str) -> str:
    """Every C0/C1 control spelled out as ``\\xNN``: printable, and distinct names stay distinct. So is a byte
    of a file name that is not UTF-8 (Python holds it as a lone surrogate, U+DC80-U+DCFF, which the database
    cannot take: the whole batch's statement failed on it)."""
    text = ANY_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}" if ord(m.group()) >= 0xDC80
                         else f"\\u{ord(m.group()):04x}", text)


def decode_text(data: bytes, source: str) -> tuple[str, dict[str, str]]:
    """UTF-8 (with or without BOM); anything else is decoded with replacement and flagged."""
    # The whole file, not a prefix: a text header over binary content (NULs from byte 8193 on) was
    # accepted with the NULs silently dropped. One memchr over the bytes, cheap next to embedding.
    if (at := data.find(b"\x00")) >= 0:
        raise IngestError(
            f"{source} looks binary (it contains NUL bytes, the first at byte {at}), not text",
            fix=f"check the file type; only {', '.join(sorted(SUPPORTED_SUFFIXES))} files are ingested",
        )
    try:
        return data.decode("utf-8-sig"), {}
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), {"encoding_note": "not valid UTF-8; decoded with replacement"}


def load_file(path: Path, *, max_bytes: int | None = None, limits: IngestSettings | None = None) -> LoadedDocument:
    """The file read and parsed here, in this process (``Ingestor`` parses in its sandbox instead)."""
    data, source = read_file(path, max_bytes=max_bytes)
    return load_bytes(data, source=source, suffix=path.suffix, default_title=path.stem, limits=limits)


def read_file(path: Path, *, max_bytes: int | None = None) -> tuple[bytes, str]:
    """A file's bytes and its source (the resolved path), after the checks that need no parser."""
    suffix = path.suffix.lower()
    mime = SUPPORTED_SUFFIXES.get(suffix)
    if mime is None:
        raise IngestError(
            f"{path} has an unsupported type {suffix or '(no extension)'}",
            fix=f"convert it to one of {', '.join(sorted(SUPPORTED_SUFFIXES))}",
        )
    try:
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise IngestError(
                f"{path} is {size / 1e6:.0f} MB, above the {max_bytes / 1e6:.0f} MB limit per file",
                fix="split it into smaller files, or raise KGRAG_INGEST__MAX_FILE_BYTES",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot read {path} ({exc.strerror or exc})", fix="check the path and permissions") from exc
    # The path becomes the source, shown in every listing: its controls are spelled out (still one
    # source per file, the same on every run), never stored raw.
    return data, escape_controls(str(path.resolve()))


HEADED_TYPES = frozenset({"text/plain", "application/pdf"})
"""Types with no title field of their own whose first line is often their title (a CSV's is its header row)."""


def load_bytes(data: bytes, *, source: str, suffix: str, default_title: str,
               limits: IngestSettings | None = None) -> LoadedDocument:
    """``default_title`` (the file stem) is the last resort: a title field, then a heading first line, win.
    ``limits`` bound what a small file may expand to (front matter, zip entries); the defaults when None."""
    suffix = suffix.lower()
    mime = SUPPORTED_SUFFIXES.get(suffix)
    if mime is None:
        raise IngestError(f"{source} has an unsupported type {suffix!r}",
                          fix=f"use one of {', '.join(sorted(SUPPORTED_SUFFIXES))}")
    if not data.strip():
        raise IngestError(f"{source} is empty", fix="nothing to ingest; add text to the file")
    loader = _LOADERS[mime]
    title, pages, meta = loader(data, source, limits or IngestSettings())
    pages = tuple(p for p in (Page(clean_text(pg.text).strip(), pg.number) for pg in pages) if p.text)
    if not pages:
        raise IngestError(f"{source} has no extractable text", fix="check the file has text content")
    if not title and mime in HEADED_TYPES:
        title = heading_line(pages[0].text)
    return LoadedDocument(
        source=source, title=clean_title(title or "")[:500] or clean_title(default_title) or source, mime_type=mime,
        pages=pages, content_hash=content_hash(data), metadata=meta,
    )


def load_text(text: str, *, source: str, title: str, metadata: dict[str, object] | None = None) -> LoadedDocument:
    """A document given as text (API uploads of JSON, eval corpora): hashed like a file."""
    cleaned = clean_text(text).strip()
    if not cleaned:
        raise IngestError(f"{source} is empty", fix="nothing to ingest; send some text")
    return LoadedDocument(
        source=source, title=clean_title(title) or source, mime_type="text/plain", pages=(Page(cleaned, None),),
        content_hash=content_hash((title + "\x1f" + cleaned).encode()), metadata=dict(metadata or {}),
    )


_Loaded = tuple[str | None, list[Page], dict[str, object]]


def _load_text(data: bytes, source: str, limits: IngestSettings) -> _Loaded:
    text, meta = decode_text(data, source)
    return None, [Page(text)], dict(meta)


_MD_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _load_markdown(data: bytes, source: str, limits: IngestSettings) -> _Loaded:
    """YAML front matter (between ``---`` lines) becomes the document's metadata, so `--filter
    ticker=2330` finds it; its ``title`` wins over the first heading."""
    import frontmatter
    import yaml

    text, meta = decode_text(data, source)
    out: dict[str, object] = dict(meta)
    handler = frontmatter.detect_format(text, frontmatter.handlers)
    if isinstance(handler, YAMLHandler):
        handler = _BoundedYAML(source, limits)
    try:
        post = frontmatter.loads(text, handler=handler) if handler is not None else None
    except (yaml.YAMLError, ValueError) as exc:  # kept whole as text: a broken header must not lose the file
        out["front_matter_note"] = f"front matter could not be parsed ({type(exc).__name__}); kept as text"
        body, fields = text, {}
    else:
        body, fields = ((post.content, _json_safe(post.metadata, source, limits.max_metadata_bytes))
                        if post is not None else (text, {}))
    title = fields.get("title") if isinstance(fields.get("title"), str) else None
    heading = _MD_HEADING.search(body)
    return title or (heading.group(1) if heading else None), [Page(body)], {**fields, **out}


class _BoundedYAML(YAMLHandler):  # type: ignore[misc]
    """python-frontmatter's YAML handler with the front matter's size and alias expansion bounded."""

    def __init__(self, source: str, limits: IngestSettings) -> None:
        super().__init__()
        self.source, self.limits = source, limits

    def load(self, fm: str, **kwargs: object) -> object:
        size = len(fm.encode())
        if size > self.limits.max_front_matter_bytes:
            raise IngestError(f"{self.source} has {size} bytes of front matter, over the limit of "
                              f"{self.limits.max_front_matter_bytes}",
                              fix="move long values into the text, or raise KGRAG_INGEST__MAX_FRONT_MATTER_BYTES")
        return bounded_yaml(fm, self.limits.max_front_matter_nodes, self.source,
                            max_bytes=self.limits.max_metadata_bytes)


def bounded_yaml(text: str, max_nodes: int, source: str, *, max_bytes: int | None = None) -> object:
    """Safe YAML whose aliases may be used, but whose value expanded (each alias counted as the whole value it
    names) holds at most ``max_nodes`` nodes and ``max_bytes`` bytes of scalars: "billion laughs" (nine
    anchors, each listing the previous one nine times) is a few hundred bytes that expand to 9^9 values, and
    one 60,000-character string aliased a thousand times is 60 KB that expands to 60 MB of metadata, stored
    and listed with the document. The check walks the composed node graph, in which an alias is one shared
    node, so it costs what the text does; recursive aliases are refused the same way."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError as exc:
            raise IngestError(f"{source}'s front matter is nested too deeply to read",
                              fix="flatten the front matter") from exc
        if node is None:
            return None
        _check_expansion(node, max_nodes, source, max_bytes)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_expansion(root: object, max_nodes: int, source: str, max_bytes: int | None = None) -> None:
    """Nodes and scalar bytes counted bottom-up, each node once: an alias adds its target's totals."""
    import yaml

    def children(node: object) -> list[object]:
        if isinstance(node, yaml.MappingNode):
            return [part for pair in node.value for part in pair]
        if isinstance(node, yaml.SequenceNode):
            return list(node.value)
        return []

    sizes: dict[int, int] = {}
    sizes_bytes: dict[int, int] = {}  # the scalars' text as written: about what the metadata's JSON holds
    open_nodes: set[int] = set()  # the ancestors of the node being walked: meeting one again is a cycle
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_nodes.discard(key)
            parts = children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in parts)
            sizes_bytes[key] = (len(str(node.value).encode("utf-8", "surrogatepass"))  # type: ignore[attr-defined]
                                if isinstance(node, yaml.ScalarNode) else sum(sizes_bytes[id(c)] for c in parts))
            if sizes[key] > max_nodes:
                raise IngestError(f"{source}'s front matter expands to over {max_nodes} values through its YAML "
                                  "aliases (an alias bomb?)", fix="write the values out instead of through "
                                  "aliases, or raise KGRAG_INGEST__MAX_FRONT_MATTER_NODES")
            if max_bytes is not None and sizes_bytes[key] > max_bytes:
                raise IngestError(f"{source}'s front matter expands to over {max_bytes} bytes of metadata, each "
                                  "use of a YAML alias counting as its whole value (an alias bomb?)",
                                  fix="write long values once in the text instead of through aliases, or raise "
                                  "KGRAG_INGEST__MAX_METADATA_BYTES")
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise IngestError(f"{source}'s front matter has a YAML alias that contains itself",
                              fix="remove the recursive alias from the front matter")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children(node) if id(c) not in sizes)


def _json_safe(value: dict[str, object], source: str, max_bytes: int) -> dict[str, object]:
    """YAML gives dates and other non-JSON values; metadata is jsonb, and filters compare text. YAML's
    ``.nan`` and ``.inf`` are floats jsonb refuses, as it refuses NUL, and its ``"\\ud800"`` escape makes a
    lone surrogate nothing can encode: each named here, as this file's failure with the entry that holds it,
    not the database's (which failed the whole batch of a folder)."""
    import json

    total = 0  # the entries' JSON, each as {key: value}: together exactly the whole object's
    for key, item in value.items():
        try:
            text = json.dumps({key: item}, default=str, allow_nan=False, ensure_ascii=False)
        except ValueError as exc:
            raise IngestError(f"{source}'s front matter value {str(key)[:40]!r} is not a finite number "
                              "(.nan or .inf), which metadata cannot hold",
                              fix="quote it to keep it as text (e.g. x: '.nan'), or remove it") from exc
        if "\\u0000" in text:
            raise IngestError(f"{source}'s front matter entry {str(key)[:40]!r} holds a NUL character, which "
                              "metadata cannot hold", fix="remove the NUL (\\0) from the front matter")
        if (bad := surrogate_char(text)) is not None:
            raise IngestError(f"{source}'s front matter entry {str(key).encode('utf-8', 'replace').decode()[:40]!r} "
                              f"holds {surrogate_problem(bad)}", fix="write the character itself in the front "
                              "matter (YAML's \\ud800 escape is half of a UTF-16 pair), or remove it")
        total += len(text.encode())
    if total > max_bytes:
        raise IngestError(f"{source}'s front matter makes {total} bytes of metadata, over the limit of {max_bytes}",
                          fix="move long values into the text, or raise KGRAG_INGEST__MAX_METADATA_BYTES")
    return dict(json.loads(json.dumps(value, default=str)))


def _load_html(data: bytes, source: str, limits: IngestSettings) -> _Loaded:
    from bs4 import BeautifulSoup

    text, meta = decode_text(data, source)
    try:
        soup = BeautifulSoup(text, "lxml")
    except RecursionError as exc:  # pathologically nested markup
        raise IngestError(f"{source} is nested too deeply to parse", fix="simplify the HTML") from exc
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    title = soup.title.get_text(strip=True) if soup.title else None
    if not title and (h1 := soup.find("h1")):
        title = h1.get_text(" ", strip=True)
    main = _main_content(text)
    if main:
        return title, [Page(main)], {**meta, "html_extraction": "main content"}
    try:
        body = soup.get_text("\n")
    except RecursionError as exc:
        raise IngestError(f"{source} is nested too deeply to parse", fix="simplify the HTML") from exc
    body = re.sub(r"\n\s*\n+", "\n\n", body)
    return title, [Page(body)], {**meta, "html_extraction": "all text (no main content found)"}


def _main_content(html: str) -> str | None:
    """The page's main text by trafilatura, without navigation, headers, footers and cookie banners (whose
    "Home", "Careers" would otherwise be indexed and become graph entities). None when it finds none."""
    import trafilatura

    try:
        text = trafilatura.extract(html, include_comments=False, include_tables=True, deduplicate=False)
    except Exception:  # a page it cannot handle (deep nesting, odd markup): the caller keeps all text
        return None
    return text if text and text.strip() else None


def _load_docx(data: bytes, source: str, limits: IngestSettings) -> _Loaded:
    """Paragraphs and table rows in document order; the title from the file's properties or a Title paragraph."""
    import io

    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph
    from lxml.etree import XMLSyntaxError

    try:
        check_zip(data, source, limits)
        document = Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, XMLSyntaxError) as exc:
        if isinstance(exc, XMLSyntaxError) and "NO_MEMORY" in str(exc.error_log):
            raise MemoryError from exc  # libxml2 out of memory: the sandbox names its limit
        raise IngestError(f"{source} is not a readable Word .docx file ({type(exc).__name__})",
                          fix="check the file opens in a word processor; save older .doc files as .docx") from exc
    lines: list[str] = []
    title = (document.core_properties.title or "").strip() or None
    for block in document.element.body.iterchildren():
        tag = block.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(block, document)
            if paragraph.text.strip():
                lines.append(paragraph.text)
                if title is None and paragraph.style is not None and paragraph.style.name in ("Title", "Heading 1"):
                    title = paragraph.text.strip()
        elif tag == "tbl":
            for row in Table(block, document).rows:
                cells = [c.text.strip() for c in row.cells]
                if any(cells):
                    lines.append(" | ".join(cells))
    return title, [Page("\n".join(lines))], {}


RATIO_FLOOR = 1024 * 1024
"""Entries smaller than this uncompressed are not held to the ratio: a small repetitive part may compress well."""


def check_zip(data: bytes, source: str, limits: IngestSettings) -> None:
    """Refuse a zip (a .docx) whose entries would expand past the limits, from its directory, before any
    entry is read; then refuse XML parts that declare a DOCTYPE. Word never writes one (OOXML forbids
    DTDs), and a DOCTYPE's entities are how a 1 KB part expands to gigabytes of text.

    An entry's declared size bounds what reading it yields (zipfile stops there, then checks the CRC), so a
    directory that lies gets the file refused, never a bigger read."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = archive.infolist()
        total = sum(e.file_size for e in entries)
        if total > limits.max_unpacked_bytes:
            raise IngestError(f"{source} unpacks to {total} bytes, over the limit of {limits.max_unpacked_bytes}",
                              fix="split the document, or raise KGRAG_INGEST__MAX_UNPACKED_BYTES")
        for entry in entries:
            ratio = entry.file_size / max(entry.compress_size, 1)
            if entry.file_size > RATIO_FLOOR and ratio > limits.max_compression_ratio:
                raise IngestError(f"{source}'s part {entry.filename[:80]} expands {ratio:.0f}x when unpacked, over "
                                  f"the limit of {limits.max_compression_ratio:g}x (a zip bomb?)",
                                  fix="check the file; if it is genuine, raise KGRAG_INGEST__MAX_COMPRESSION_RATIO")
        for entry in entries:
            if entry.filename.endswith((".xml", ".rels")) and _declares_doctype(archive, entry):
                raise IngestError(f"{source}'s part {entry.filename[:80]} declares a DOCTYPE (entity declarations), "
                                  "which Word never writes", fix="re-save the document from a word processor")


def _declares_doctype(archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> bool:
    """Scanned in 1 MiB steps: the XML is never held whole here."""
    tail = b""
    with archive.open(entry) as part:
        while block := part.read(1024 * 1024):
            window = tail + block
            if b"<!DOCTYPE" in window or b"<!ENTITY" in window:
                return True
            tail = window[-16:]
    return False


def _load_csv(data: bytes, source: str, limits: IngestSettings) -> _Loaded:
    """Each row as one line of ``column: value`` pairs, so a row reads as a statement a chunk can carry."""
    import csv
    import io

    text, meta = decode_text(data, source)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise IngestError(f"{source} is not a readable CSV file ({exc})",
                          fix="check its quoting and delimiter") from exc
    if not rows:
        return None, [], dict(meta)
    header = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
    lines = []
    for row in rows[1:]:
        pairs = [f"{header[i] if i < len(header) else f'column {i + 1}'}: {v.strip()}"
                 for i, v in enumerate(row) if v.strip()]
        lines.append("; ".join(pairs))
    return None, [Page("\n".join(lines))], {**meta, "csv_rows": len(rows) - 1, "csv_columns": header}


def _load_pdf(data: bytes, source: str, limits: IngestSettings) -> _Loaded:
    with _pypdf_messages() as said:
        return _read_pdf(data, source, limits, said)


@contextmanager
def _pypdf_messages() -> Iterator[list[str]]:
    """pypdf's log warnings from this thread ("invalid pdf header: …"), kept for the file's reason instead of
    going raw to stderr, where they interleave with the CLI's progress and name no file."""
    said: list[str] = []
    me = threading.get_ident()

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.thread == me:
                said.append(record.getMessage().strip())

    logger = logging.getLogger("pypdf")
    handler = _Collect(level=logging.WARNING)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield said
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _read_pdf(data: bytes, source: str, limits: IngestSettings, said: list[str]) -> _Loaded:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise IngestError(f"{source} is an encrypted PDF", fix="decrypt it (e.g. qpdf --decrypt) and ingest again")
        pages = [Page(page.extract_text() or "", number=i) for i, page in enumerate(reader.pages, start=1)]
        title = None
        if reader.metadata and reader.metadata.title:
            title = str(reader.metadata.title)
    except IngestError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        detail = "; ".join([str(exc), *dict.fromkeys(m for m in said if m)])
        raise IngestError(f"{source} is not a readable PDF ({detail})", fix="check the file is a valid PDF") from exc
    if not any(p.text.strip() for p in pages):
        raise IngestError(f"{source} has no text layer (scanned PDF?)", fix="run OCR on it first, e.g. ocrmypdf")
    return title, pages, {"page_count": len(pages)}


_LOADERS: dict[str, Callable[[bytes, str, IngestSettings], _Loaded]] = {
    "application/pdf": _load_pdf,
    "text/markdown": _load_markdown,
    "text/plain": _load_text,
    "text/html": _load_html,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": _load_docx,
    "text/csv": _load_csv,
}


OUTSIDE_LINK_FLAG = "--follow-outside-links"


def discover(paths: list[Path], *, follow_outside_links: bool = False
             ) -> tuple[list[Path], list[tuple[str, str]], list[tuple[str, str]]]:
    """Expand folders into supported files (sorted, recursive, hidden entries left out).

    Returns files, (path, reason) misses, and (path, reason) for what a folder holds but is not
    ingested, so none is passed over without a word: files of a type kgrag does not read, and links
    that resolve outside the folder being ingested: `kgrag ingest DIR` must not pick up /etc/passwd through a
    link someone left in DIR. ``follow_outside_links`` (the CLI's --follow-outside-links) follows
    them, folders included, each real folder once. A path named explicitly is always taken.
    """
    files: list[Path] = []
    missing: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    for p in paths:
        if p.is_dir():
            found: list[Path] = []
            _walk(p, follow_outside_links, found, skipped)
            files.extend(sorted(found))
        elif p.is_file() and p.suffix.lower() not in SUPPORTED_SUFFIXES:
            # skipped as it would be inside a folder: a type kgrag cannot read is no failed document to keep
            skipped.append((str(p.resolve()), unsupported_reason(p.suffix)))
        elif p.is_file():
            files.append(p)
        else:
            missing.append((str(p), "no such file or folder"))
    return files, missing, skipped


def unsupported_reason(suffix: str) -> str:
    return (f"{suffix.lower() or '(no extension)'} files are not ingested; "
            f"supported: {', '.join(sorted(SUPPORTED_SUFFIXES))}")


def _walk(root: Path, follow_outside: bool, files: list[Path], skipped: list[tuple[str, str]]) -> None:
    base = root.resolve()
    seen = {base}
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            link = entry.is_symlink()
            real = entry.resolve() if link else None
            outside = real is not None and real != base and base not in real.parents
            if entry.is_dir():
                if outside and not follow_outside:
                    skipped.append((str(entry), f"a link to a folder outside {root}: not followed "
                                                f"(pass {OUTSIDE_LINK_FLAG} to follow it)"))
                elif (real or entry.resolve()) not in seen:
                    seen.add(real or entry.resolve())
                    stack.append(entry)
            elif entry.is_file() and entry.suffix.lower() not in SUPPORTED_SUFFIXES:
                skipped.append((str(entry.resolve()), unsupported_reason(entry.suffix)))
            elif entry.is_file():
                if outside and not follow_outside:
                    skipped.append((str(entry), f"a link to a file outside {root}: skipped "
                                                f"(pass {OUTSIDE_LINK_FLAG} to ingest it)"))
                else:
                    files.append(entry)
