"""LaTeX: pylatexenc turns the body into text (accents, quotes, dashes; math kept verbatim; comments and unknown
commands dropped), with sectioning commands as Markdown headings, lists as `-` items and `tabular` as Markdown
tables. The preamble is skipped; `\\title{}` is the title. `\\input` and `\\include` never read a file."""

from __future__ import annotations

import re

from pylatexenc import latexwalker
from pylatexenc.latex2text import EnvironmentTextSpec, LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.macrospec import LatexContextDb

from botyard.ingestion.parse.writer import MarkdownWriter, one_line, render_table

_SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
_BODY = re.compile(r"\\begin\s*\{document\}(.*?)(\\end\s*\{document\}|\Z)", re.DOTALL)
_TITLE = re.compile(r"\\title\s*(\[[^\]]*\])?\s*\{")
_MARKER = "\x00"  # wraps generated Markdown so the line clean-up below leaves it alone


def parse_tex(source: str, out: MarkdownWriter) -> str | None:
    """Write the document body as Markdown; return the `\\title`."""
    body_match = _BODY.search(source)
    body = body_match.group(1) if body_match else source
    first = 0 if re.search(r"\\(part|chapter)\b", body) else 2  # articles start at \section
    converter = LatexNodes2Text(latex_context=_context(first), math_mode="verbatim", strict_latex_spaces=True)
    out.block(_tidy(converter.latex_to_text(body)))
    return _title(source, converter)


def _context(first: int) -> LatexContextDb:
    macros = [
        MacroTextSpec(name, simplify_repl=_heading(max(1, index - first + 1))) for index, name in enumerate(_SECTIONS)
    ]
    macros += [
        MacroTextSpec("item", simplify_repl=_item),
        MacroTextSpec("maketitle", discard=True),
        MacroTextSpec("tableofcontents", discard=True),
        MacroTextSpec("input", discard=True),
        MacroTextSpec("include", discard=True),
        MacroTextSpec("hline", discard=True),
        MacroTextSpec("cite", simplify_repl=""),
        MacroTextSpec("label", discard=True),
        MacroTextSpec("ref", simplify_repl=""),
    ]
    environments = [EnvironmentTextSpec(name, simplify_repl=_table) for name in ("tabular", "tabular*", "tabularx")]
    environments.append(EnvironmentTextSpec("figure", simplify_repl=_figure))
    db = get_default_latex_context_db()  # a new database on each call, safe to extend
    db.add_context_category("botyard-markdown", macros=macros, environments=environments, prepend=True)
    return db


def _heading(level: int) -> object:
    def repl(node: latexwalker.LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
        args = node.nodeargd.argnlist if node.nodeargd else []
        text = str(l2tobj.nodelist_to_text([args[-1]])) if args and args[-1] is not None else ""
        return f"\n\n{_MARKER}{'#' * level} {one_line(text)}{_MARKER}\n\n"

    return repl


def _item(node: latexwalker.LatexMacroNode, l2tobj: LatexNodes2Text) -> str:
    return f"\n{_MARKER}- {_MARKER}"


def _figure(node: latexwalker.LatexEnvironmentNode, l2tobj: LatexNodes2Text) -> str:
    return f"\n\n{l2tobj.nodelist_to_text(node.nodelist)}\n\n"


def _table(node: latexwalker.LatexEnvironmentNode, l2tobj: LatexNodes2Text) -> str:
    rows: list[list[str]] = []
    cells: list[str] = []
    current: list[latexwalker.LatexNode] = []

    def end_cell() -> None:
        cells.append(one_line(l2tobj.nodelist_to_text(current)).replace("|", "\\|"))
        current.clear()

    for child in node.nodelist:
        if child.isNodeType(latexwalker.LatexSpecialsNode) and child.specials_chars == "&":
            end_cell()
        elif child.isNodeType(latexwalker.LatexMacroNode) and child.macroname in ("\\", "tabularnewline"):
            end_cell()
            if any(cells):
                rows.append(cells.copy())
            cells.clear()
        else:
            current.append(child)
    end_cell()
    if any(cells):
        rows.append(cells)
    if not rows:
        return ""
    table = render_table(rows, max(len(row) for row in rows))
    return f"\n\n{_MARKER}{table.replace(chr(10), _MARKER + chr(10) + _MARKER)}{_MARKER}\n\n"


def _tidy(text: str) -> str:
    """Trim the indentation pylatexenc leaves on text lines and fold runs of blank lines."""
    lines = []
    for line in text.split("\n"):
        lines.append(line.replace(_MARKER, "") if _MARKER in line else line.strip())
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return re.sub(r"^(- .*)\n\n(?=- )", r"\1\n", text, flags=re.MULTILINE).strip()


def _title(source: str, converter: LatexNodes2Text) -> str | None:
    match = _TITLE.search(source)
    if match is None:
        return None
    depth, start = 1, match.end()
    for end in range(start, min(len(source), start + 2000)):
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        if depth == 0:
            return one_line(converter.latex_to_text(source[start:end])) or None
    return None
