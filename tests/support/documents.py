"""Sample files for the parse tests, generated here (nothing downloaded, no binaries committed): normal documents
made with the same libraries people use to write them, and hostile ones built byte by byte."""

from __future__ import annotations

import io
import struct
import zipfile

import docx
import openpyxl
import pptx
import pptx.util
import xlwt
from fpdf import FPDF

TABLE = [("Plan", "Price"), ("Basic", "10"), ("Pro", "20")]


def docx_document() -> bytes:
    document = docx.Document()
    document.core_properties.title = "Pricing guide"
    document.add_heading("Pricing", level=1)
    document.add_paragraph("Our plans are simple and fair.")
    document.add_paragraph("Cancel any time", style="List Bullet")
    document.add_paragraph("No setup fee", style="List Bullet")
    document.add_paragraph("Sign up", style="List Number")
    document.add_heading("Plans", level=2)
    table = document.add_table(rows=len(TABLE), cols=2)
    for row, values in enumerate(TABLE):
        for column, value in enumerate(values):
            table.cell(row, column).text = value
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def xlsx_workbook() -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Plans"
    for row in TABLE:
        sheet.append([row[0], int(row[1]) if row[1].isdigit() else row[1]])
    workbook.create_sheet("Regions").append(["Region", "Zone"])
    workbook["Regions"].append(["eu-west", "Europe"])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def xls_workbook() -> bytes:
    workbook = xlwt.Workbook()
    sheet = workbook.add_sheet("Plans")
    for row, values in enumerate(TABLE):
        sheet.write(row, 0, values[0])
        sheet.write(row, 1, int(values[1]) if values[1].isdigit() else values[1])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def pptx_deck() -> bytes:
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
    assert slide.shapes.title is not None
    slide.shapes.title.text = "Why Botyard"
    body = slide.placeholders[1].text_frame
    body.text = "Self-hosted"
    body.add_paragraph().text = "Answers from your sources"
    slide.notes_slide.notes_text_frame.text = "Mention the offline mode."
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    assert slide.shapes.title is not None
    slide.shapes.title.text = "Pricing"
    inch = pptx.util.Inches
    table = slide.shapes.add_table(len(TABLE), 2, inch(1), inch(2), inch(6), inch(2)).table
    for row, values in enumerate(TABLE):
        for column, value in enumerate(values):
            table.cell(row, column).text = value
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def pdf_report() -> bytes:
    pdf = FPDF()
    pdf.set_title("Quarterly report")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 22)
    pdf.cell(0, 14, "Quarterly report", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", "", 11)
    pdf.multi_cell(0, 6, "Revenue grew in every region this quarter. " * 6, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("helvetica", "B", 16)
    pdf.cell(0, 10, "Prices", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", "", 11)
    with pdf.table() as table:
        for values in TABLE:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Prices are per month and exclude tax.")
    return bytes(pdf.output())


def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF from numbered objects (1-based, object 1 is the catalog), with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _stream(content: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n%s\nendstream" % (len(content), extra, content)


def many_pages_pdf(count: int) -> bytes:
    """`count` pages sharing one content stream: a big page tree in little time and few bytes."""
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    content = _stream(b"BT /F1 12 Tf 72 720 Td (A page of the long report.) Tj ET")
    first_page = 5
    kids = b" ".join(b"%d 0 R" % (first_page + index) for index in range(count))
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
    )
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count)]
    return raw_pdf([*objects, content, font, *([page] * count)])


def cyclic_pdf() -> bytes:
    """A page tree that contains itself, and a form XObject that draws itself."""
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    form = _stream(
        b"/X1 Do", b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X1 5 0 R >> >> "
    )
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 6 0 R >> /XObject << /X1 5 0 R >> >> >>"
    )
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
            page,
            _stream(b"BT /F1 12 Tf 72 720 Td (Loop) Tj ET /X1 Do"),
            form,
            font,
        ]
    )


def replace_member(package: bytes, name: str, payload: bytes) -> bytes:
    """The zip package with one member replaced (or added)."""
    source = zipfile.ZipFile(io.BytesIO(package))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            if member.filename != name:
                target.writestr(member, source.read(member))
        target.writestr(name, payload)
    return buffer.getvalue()


def zip_bomb(package: bytes, size: int = 64 * 1024 * 1024) -> bytes:
    """The package with an extra member of `size` zero bytes (deflates about a thousand times)."""
    return replace_member(package, "customXml/item1.xml", b"\0" * size)


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r>
<w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"""


# Legacy Word: a compound file (CFB v3, 512-byte sectors) holding a Word 97 `WordDocument` and `1Table` stream.
END_OF_CHAIN, FREE, FAT_SECTOR, NO_STREAM = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
SECTOR = 512


def compound_file(streams: dict[str, bytes]) -> bytes:
    """Streams are padded to 4 KiB at least, so all of them live in regular sectors (no mini stream)."""
    fat = [FAT_SECTOR, END_OF_CHAIN]  # sector 0: the FAT, sector 1: the directory
    data = bytearray()
    entries = [_dir_entry("Root Entry", 5, END_OF_CHAIN, 0, child=1)]
    for index, (name, raw) in enumerate(streams.items(), start=1):
        size = max(4096, -(-len(raw) // SECTOR) * SECTOR)
        start = len(fat)
        fat.extend(range(start + 1, start + size // SECTOR))
        fat.append(END_OF_CHAIN)
        data += raw.ljust(size, b"\0")
        last = index == len(streams)
        entries.append(_dir_entry(name, 2, start, size, right=NO_STREAM if last else index + 1))
    assert len(fat) <= SECTOR // 4 and len(entries) <= 4, "sample too big for one FAT and one directory sector"
    header = bytearray(SECTOR)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIIIIIIII", header, 40, 0, 1, 1, 0, 4096, END_OF_CHAIN, 0, END_OF_CHAIN, 0)
    struct.pack_into("<109I", header, 76, 0, *([FREE] * 108))
    fat_sector = struct.pack(f"<{SECTOR // 4}I", *fat, *([FREE] * (SECTOR // 4 - len(fat))))
    directory = b"".join(entries).ljust(SECTOR, b"\0")
    return bytes(header + fat_sector + directory + data)


def _dir_entry(name: str, kind: int, start: int, size: int, *, child: int = NO_STREAM, right: int = NO_STREAM) -> bytes:
    entry = bytearray(128)
    raw = (name + "\0").encode("utf-16-le")
    entry[: len(raw)] = raw
    struct.pack_into("<HBB", entry, 64, len(raw), kind, 1)
    struct.pack_into("<III", entry, 68, NO_STREAM, right, child)
    struct.pack_into("<IQ", entry, 116, start, size)
    return bytes(entry)


def word97_document(text: str, *, encrypted: bool = False) -> bytes:
    """A .doc whose main story is `text` (Word's marks: \\r paragraph, \\x07 cell, \\x13-\\x15 fields), stored in
    two pieces: an ASCII half "compressed" as cp1252, the rest as UTF-16."""
    split = next((index for index, char in enumerate(text) if ord(char) > 127), len(text))
    first, second = text[:split].encode("cp1252"), text[split:].encode("utf-16-le")
    first_at, second_at = 1024, 1024 + -(-len(first) // SECTOR) * SECTOR
    fib = bytearray(second_at + len(second))
    struct.pack_into("<HH", fib, 0, 0xA5EC, 0x00C1)
    struct.pack_into("<H", fib, 10, 0x0200 | (0x0100 if encrypted else 0))  # 1Table; encrypted
    struct.pack_into("<H", fib, 32, 14)  # csw: 14 shorts of FibRgW97
    struct.pack_into("<H", fib, 62, 22)  # cslw: 22 longs of FibRgLw97
    struct.pack_into("<i", fib, 64 + 12, len(text))  # ccpText
    struct.pack_into("<H", fib, 152, 93)  # cbRgFcLcb: the FibRgFcLcb97 pairs
    cps = struct.pack("<3i", 0, split, len(text))
    pieces = struct.pack("<HIH", 0, (first_at * 2) | 0x40000000, 0) + struct.pack("<HIH", 0, second_at, 0)
    clx = b"\x02" + struct.pack("<I", len(cps + pieces)) + cps + pieces
    struct.pack_into("<II", fib, 154 + 33 * 8, 0, len(clx))  # fcClx, lcbClx
    fib[first_at : first_at + len(first)] = first
    fib[second_at : second_at + len(second)] = second
    return compound_file({"WordDocument": bytes(fib), "1Table": clx})
