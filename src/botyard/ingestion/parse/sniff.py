"""What a file really is. Binary containers are recognised by their bytes alone: a PDF named `.txt` is parsed as a
PDF, and an executable named `.pdf` is refused (`unsupported type`). Text cannot be told apart by its bytes, so
among text formats the extension (then the declared content type, then a look at the text) decides; a text file
named like a binary format (`notes.pdf` holding plain text) is parsed as the text it is."""

from __future__ import annotations

import codecs
import io
import re
import zipfile
from pathlib import PurePosixPath

import charset_normalizer
import olefile

from botyard.ingestion.parse.model import ParseError

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
# Magic bytes of common formats we do not read, to name them in the error instead of guessing.
KNOWN_BINARY = (
    (b"MZ", "Windows executable"),
    (b"\x7fELF", "ELF executable"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "Mach-O or Java class"),
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"RIFF", "RIFF media"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"Rar!", "RAR archive"),
    (b"%!PS", "PostScript"),
    (b"{\\rtf", "RTF document"),
)
TEXT_EXTENSIONS = {
    "txt": "txt",
    "text": "txt",
    "md": "md",
    "markdown": "md",
    "csv": "csv",
    "tsv": "csv",
    "json": "json",
    "html": "html",
    "htm": "html",
    "xhtml": "html",
    "tex": "tex",
}
TEXT_CONTENT_TYPES = {
    "text/plain": "txt",
    "text/markdown": "md",
    "text/csv": "csv",
    "text/tab-separated-values": "csv",
    "application/json": "json",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/x-tex": "tex",
    "application/x-tex": "tex",
}
OOXML_MAIN_TYPES = (
    ("wordprocessingml.document.main+xml", "docx"),
    ("ms-word.document.macroEnabled.main+xml", "docx"),
    ("wordprocessingml.template.main+xml", "docx"),
    ("spreadsheetml.sheet.main+xml", "xlsx"),
    ("ms-excel.sheet.macroEnabled.main+xml", "xlsx"),
    ("spreadsheetml.template.main+xml", "xlsx"),
    ("presentationml.presentation.main+xml", "pptx"),
    ("ms-powerpoint.presentation.macroEnabled.main+xml", "pptx"),
)
OOXML_MAIN_PARTS = (("word/document.xml", "docx"), ("xl/workbook.xml", "xlsx"), ("ppt/presentation.xml", "pptx"))
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
_HTML_START = re.compile(r"\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)[\s>]", re.IGNORECASE | re.DOTALL)
MAX_NAME = 255


def safe_name(raw: str) -> str:
    """The base name only (POSIX or Windows paths alike), without NULs or control characters. Used for the
    extension and in messages; never touches the file system."""
    cleaned = "".join(ch for ch in raw.replace("\\", "/") if ch.isprintable())
    name = PurePosixPath(cleaned).name.strip()
    return name[:MAX_NAME] if name not in ("", ".", "..") else "file"


def extension(name: str) -> str:
    stem, _, ext = name.rpartition(".")
    return ext.lower() if stem else ""


def binary_kind(data: bytes) -> str | None:
    """`pdf`, `zip` or `ole` when the bytes are one of the containers we read; None for anything else."""
    if b"%PDF-" in data[:1024]:  # readers accept junk before the header, so a PDF may not start with it
        return "pdf"
    if data.startswith(ZIP_MAGICS):
        return "zip"
    if data.startswith(OLE_MAGIC):
        return "ole"
    return None


def zip_kind(archive: zipfile.ZipFile, content_types: bytes) -> str:
    """docx, xlsx or pptx from the package's main content type (its member names as a fallback)."""
    for marker, kind in OOXML_MAIN_TYPES:
        if marker.encode() in content_types:
            return kind
    names = set(archive.namelist())
    for part, kind in OOXML_MAIN_PARTS:
        if part in names:
            return kind
    if b"opendocument" in content_types or "mimetype" in names:
        raise ParseError("unsupported type", "OpenDocument files are not supported")
    raise ParseError("unsupported type", "a zip archive that is not an Office document")


def ole_kind(data: bytes) -> str:
    """doc or xls from the streams of an OLE2 compound file (legacy Office)."""
    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:  # bytes, never a name: olefile opens short str as a path
            streams = {"/".join(entry) for entry in ole.listdir()}
    except Exception as error:  # olefile raises many types on a damaged file
        raise ParseError("corrupt", f"unreadable OLE2 file: {type(error).__name__}") from error
    if "EncryptedPackage" in streams:
        raise ParseError("encrypted", "password-protected Office document")
    if "WordDocument" in streams:
        return "doc"
    if "Workbook" in streams or "Book" in streams:
        return "xls"
    if "PowerPoint Document" in streams:
        raise ParseError("unsupported type", "legacy PowerPoint (.ppt) is not supported; save it as .pptx")
    raise ParseError("unsupported type", "an OLE2 file that is not a Word or Excel document")


def text_kind(data: bytes, name: str, content_type: str | None) -> str:
    """For bytes that are not a container we read: refuse binary data, else pick a text format."""
    for magic, what in KNOWN_BINARY:
        if data.startswith(magic):
            raise ParseError("unsupported type", what)
    if looks_binary(data):
        raise ParseError("unsupported type", "binary data")
    kind = TEXT_EXTENSIONS.get(extension(name))
    if kind is None and content_type:
        kind = TEXT_CONTENT_TYPES.get(content_type.split(";")[0].strip().lower())
    if kind is None:  # no text extension: a text file named .pdf, .docx, .bin ...
        head = decode_text(data[:4096])
        return "html" if _HTML_START.match(head) else "txt"
    return kind


def looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    return b"\x00" in head or len(_CONTROL.findall(head)) > len(head) // 20


def decode_text(data: bytes) -> str:
    """Text from bytes: a BOM decides, else UTF-8, else the detected charset (cp1252 as the last resort)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start >= len(data) - 3:  # a multi-byte character cut at the end of a sample
            return data[: error.start].decode("utf-8")
    best = charset_normalizer.from_bytes(data[:65536]).best()
    encoding = best.encoding if best is not None else "cp1252"
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:
        return data.decode("cp1252", errors="replace")
