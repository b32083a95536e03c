"""HTML: trafilatura finds the main text and the title of a web page; when it finds nothing (a short page, an
odd layout), the whole body converted with markdownify is the fallback."""

from __future__ import annotations

import contextlib
import json
import re

import bs4
import markdownify
import trafilatura

from botyard.ingestion.parse.writer import MarkdownWriter, one_line

# Page furniture dropped by the fallback (trafilatura drops it by itself).
_BOILERPLATE = ("script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "svg", "iframe")
_BLANK_LINES = re.compile(r"\n{3,}")
_STRUCTURE = re.compile(r"^(#{1,6} |\| |- |\d+\. )", re.MULTILINE)


class _Converter(markdownify.MarkdownConverter):
    """markdownify with ATX headings and `-` bullets, images and scripts dropped, and no escaping of `_` and `*`
    (escapes would only add noise to the indexed text)."""

    def __init__(self) -> None:
        super().__init__(
            heading_style=markdownify.ATX,
            bullets="-",
            strip=["img", "script", "style"],
            escape_underscores=False,
            escape_asterisks=False,
            escape_misc=False,
            table_infer_header=True,
        )


def html_to_markdown(html: str | bs4.BeautifulSoup) -> str:
    """Any HTML as Markdown."""
    soup = html if isinstance(html, bs4.BeautifulSoup) else bs4.BeautifulSoup(html, "html.parser")
    text = _Converter().convert_soup(soup)
    return _BLANK_LINES.sub("\n\n", text).strip()


def parse_html(text: str, out: MarkdownWriter) -> str | None:
    """Write the page's main content; return its title."""
    extracted = trafilatura.extract(
        text,
        output_format="markdown",
        with_metadata=True,  # the metadata comes first, as a `---` front matter block
        include_tables=True,
        include_formatting=True,
        include_links=False,
        include_images=False,
        favor_recall=True,
    )
    title, markdown = _split_front_matter(extracted or "")
    # On short pages trafilatura falls back to flat text lines, losing headings and tables: then the page's own
    # structure is worth more, unless the flat text is much shorter (it left out boilerplate we would keep).
    if not _STRUCTURE.search(markdown):
        soup = bs4.BeautifulSoup(text, "html.parser")
        title = title or (one_line(soup.title.get_text()) if soup.title else None)
        for element in soup.find_all(_BOILERPLATE):
            element.decompose()
        main = soup.find("main") or soup.find("article") or soup.body or soup
        fallback = html_to_markdown(bs4.BeautifulSoup(str(main), "html.parser"))
        if not markdown.strip() or (_STRUCTURE.search(fallback) and len(fallback) < 2 * len(markdown) + 200):
            markdown = fallback
    out.block(markdown)
    return title or None


def _split_front_matter(extracted: str) -> tuple[str | None, str]:
    if not extracted.startswith("---\n"):
        return None, extracted
    header, _, body = extracted[4:].partition("\n---\n")
    title = next((line[6:].strip() for line in header.splitlines() if line.startswith("title:")), None)
    return _yaml_scalar(title) if title else None, body


def _yaml_scalar(value: str) -> str:
    """The front matter is YAML: a title that starts with a special character ("/docs", "@home") comes quoted."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        with contextlib.suppress(ValueError):
            return str(json.loads(value))  # a double-quoted YAML scalar uses JSON's escapes
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value
