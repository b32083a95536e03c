"""One canonical reply, rendered for each channel within its limits.

The canonical reply is the stored answer: its Markdown text with citation markers (`[1]`) and its citations' links.
Telegram gets HTML made only of the tags it accepts (`b`, `i`, `code`, `pre`, `a`, `blockquote`), every text
escaped, so a reply can never be refused as malformed ("can't parse entities"); Markdown it cannot show (tables,
images) degrades to its text. A reply longer than a message is split at paragraph boundaries, then lines, then
words, each part valid on its own. The generic channel gets the Markdown and the citations as they are.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).disable("image")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_BLOCKS = re.compile(r"\n\s*\n")
_INLINE_TAGS = {"strong": "b", "em": "i", "s": "s"}


@dataclass(frozen=True)
class Reply:
    """The answer as every channel starts from it."""

    text: str
    """Markdown, with citation markers."""
    links: Mapping[str, str]
    """Citation marker (`[1]`) -> the link it stands for, for those that have one."""


def telegram_parts(reply: Reply, limit: int) -> list[str]:
    """The reply as Telegram HTML messages, each at most `limit` characters."""
    pieces = [_telegram_html(block, reply.links) for block in _pieces(reply.text, limit, reply.links)]
    return _packed([piece for piece in pieces if piece], limit)


def _telegram_html(markdown: str, links: Mapping[str, str]) -> str:
    return "".join(_blocks(_MARKDOWN.parse(markdown), links)).strip()


def _blocks(tokens: Sequence[Token], links: Mapping[str, str]) -> Iterator[str]:
    numbers: list[int] = []
    for token in tokens:
        kind = token.type
        if kind == "inline":
            yield _inline(token.children or [], links)
        elif kind == "heading_open":
            yield "<b>"
        elif kind == "heading_close":
            yield "</b>\n\n"
        elif kind in ("paragraph_close", "bullet_list_close", "ordered_list_close"):
            yield "\n" if token.hidden else "\n\n"
        elif kind == "ordered_list_open":
            numbers.append(int(token.attrs.get("start", 1) or 1))
        elif kind == "bullet_list_open":
            numbers.append(0)
        elif kind == "list_item_open":
            yield _bullet(numbers)
        elif kind in ("fence", "code_block"):
            yield f"<pre>{html.escape(token.content.rstrip())}</pre>\n\n"
        elif kind == "blockquote_open":
            yield "<blockquote>"
        elif kind == "blockquote_close":
            yield "</blockquote>\n\n"
        elif kind == "hr":
            yield "\n"
        if kind in ("bullet_list_close", "ordered_list_close") and numbers:
            numbers.pop()


def _bullet(numbers: list[int]) -> str:
    if not numbers or numbers[-1] == 0:
        return "• "
    numbers[-1] += 1
    return f"{numbers[-1] - 1}. "


def _inline(children: Sequence[Token], links: Mapping[str, str]) -> str:
    out: list[str] = []
    for child in children:
        kind = child.type
        if kind == "text":
            out.append(_cited(child.content, links))
        elif kind == "code_inline":
            out.append(f"<code>{html.escape(child.content)}</code>")
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind.endswith("_open") and kind[:-5] in _INLINE_TAGS:
            out.append(f"<{_INLINE_TAGS[kind[:-5]]}>")
        elif kind.endswith("_close") and kind[:-6] in _INLINE_TAGS:
            out.append(f"</{_INLINE_TAGS[kind[:-6]]}>")
        elif kind == "link_open":
            href = str(child.attrs.get("href", ""))
            out.append(f'<a href="{html.escape(href)}">' if _linkable(href) else "<a>")
        elif kind == "link_close":
            out.append("</a>")
    text = "".join(out)
    return text.replace("<a>", "").replace("</a>", "") if "<a>" in text else text


def _linkable(href: str) -> bool:
    return href.lower().startswith(("https://", "http://"))


def _cited(text: str, links: Mapping[str, str]) -> str:
    """Escaped text whose citation markers link to their sources (a marker without a link stays as it is)."""
    out, last = [], 0
    for found in _MARKER.finditer(text):
        link = links.get(found.group(0))
        if link is None or not _linkable(link):
            continue
        out.append(html.escape(text[last : found.start()]))
        out.append(f'<a href="{html.escape(link)}">{html.escape(found.group(0))}</a>')
        last = found.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _pieces(markdown: str, limit: int, links: Mapping[str, str]) -> Iterator[str]:
    """The Markdown cut into blocks each of which renders within `limit` (paragraphs, else lines, else words)."""
    for block in _BLOCKS.split(markdown):
        if len(_telegram_html(block, links)) <= limit:
            yield block
            continue
        for line in block.split("\n"):
            if len(_telegram_html(line, links)) <= limit:
                yield line
                continue
            yield from _words(line, limit // 2)  # escaping and links at most double a plain piece


def _words(line: str, size: int) -> Iterator[str]:
    piece = ""
    for word in line.split(" "):
        while len(word) > size:
            if piece:
                yield piece
                piece = ""
            yield word[:size]
            word = word[size:]
        if piece and len(piece) + 1 + len(word) > size:
            yield piece
            piece = word
        else:
            piece = f"{piece} {word}" if piece else word
    if piece:
        yield piece


def _packed(pieces: list[str], limit: int) -> list[str]:
    """Whole pieces joined by blank lines into as few messages as fit."""
    parts: list[str] = []
    for piece in pieces:
        if parts and len(parts[-1]) + 2 + len(piece) <= limit:
            parts[-1] = f"{parts[-1]}\n\n{piece}"
        else:
            parts.append(piece)
    return parts
