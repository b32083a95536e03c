"""Checks that run before an Office library sees a zip package: zip bombs (declared sizes, member count,
compression ratio) and XML with a DTD (entity expansion: billion laughs, external entities).

Python's `zipfile` never inflates a member past its declared size, so the declared sizes are a real bound for the
libraries we call. The libraries' own XML parsers also resist entities (lxml with `resolve_entities=False` in
python-docx and python-pptx, defusedxml in openpyxl); refusing any DTD first makes that a second line rather than
the only one. Office Open XML never contains a DTD."""

from __future__ import annotations

import io
import re
import zipfile

import defusedxml.ElementTree

from botyard.ingestion.parse.model import ParseError, ParseLimits

MIB = 1024 * 1024
# Deflated XML reaches 20 to 50 to 1; a member over 1 MiB inflating beyond this ratio is a bomb, not a document.
MAX_RATIO = 200
RATIO_FLOOR = MIB
# A DTD must come before the root element, which in real Office parts comes within the first few hundred bytes.
PROLOG_BYTES = 64 * 1024
_DTD = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)
_XML_SUFFIXES = (".xml", ".rels", ".vml")
_CORE_TITLE = "{http://purl.org/dc/elements/1.1/}title"


def open_zip(data: bytes, limits: ParseLimits) -> zipfile.ZipFile:
    """Open a zip package once its central directory passes the bomb checks."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as error:
        raise ParseError("corrupt", f"not a readable zip package: {error}") from error
    members = archive.infolist()
    if len(members) > limits.max_zip_members:
        raise ParseError("too large", f"{len(members)} zip members (limit {limits.max_zip_members})")
    total = 0
    for member in members:
        if member.flag_bits & 0x1:
            raise ParseError("encrypted", "the zip package is encrypted")
        total += member.file_size
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise ParseError("too large", f"zip member {member.filename!r} inflates {ratio:.0f} times (zip bomb)")
    if total > limits.max_unzipped_mb * MIB:
        raise ParseError("too large", f"{total // MIB} MiB uncompressed (limit {limits.max_unzipped_mb} MiB)")
    return archive


def read_member(archive: zipfile.ZipFile, name: str, limit: int = -1) -> bytes:
    """A member's bytes (at most `limit`), or b"" when it is missing."""
    try:
        with archive.open(name) as member:
            return member.read(limit)
    except KeyError:
        return b""
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as error:
        raise ParseError("corrupt", f"unreadable zip member {name!r}: {error}") from error


def refuse_dtds(archive: zipfile.ZipFile) -> None:
    """Refuse the package if any XML part declares a DTD or an entity."""
    for member in archive.infolist():
        if not member.filename.lower().endswith(_XML_SUFFIXES):
            continue
        head = read_member(archive, member.filename, PROLOG_BYTES)
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            head = head.decode("utf-16", errors="ignore").encode()
        if _DTD.search(head):
            raise ParseError("unsafe", f"XML part {member.filename!r} declares a DTD (entity expansion)")


def core_title(archive: zipfile.ZipFile) -> str | None:
    """The document title from the package's core properties (`docProps/core.xml`), if set."""
    raw = read_member(archive, "docProps/core.xml", MIB)
    if not raw:
        return None
    try:
        root = defusedxml.ElementTree.fromstring(raw)
    except Exception:  # a damaged or hostile properties part only costs us the title
        return None
    element = root.find(_CORE_TITLE)
    title = (element.text or "").strip() if element is not None else ""
    return title or None
