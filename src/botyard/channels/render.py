"""One canonical reply, rendered for each channel within its limits.

The canonical reply is the stored answer: its Markdown text with citation markers (`[1]`) and its citations' links.
Telegram gets HTML made only of the tags it accepts (`b`, `i`, `code`, `pre`, `a`, `blockquote`), every text
escaped, so a reply can never be refused as malformed ("can't parse entities"); Markdown it cannot show (tables,
images) degrades to its text. A reply longer than a message is split at paragraph boundaries, then lines, then
words, each part valid on its own. Slack gets its mrkdwn likewise (`SLACK`). The generic channel gets the
Markdown and the citations as they are.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).disable("image")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_BLOCKS = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Reply:
    """The answer as every channel starts from it."""

    text: str
    """Markdown, with citation markers."""
    links: Mapping[str, str]
    """Citation marker (`[1]`) -> the link it stands for, for those that have one."""


@dataclass(frozen=True)
class Dialect:
    """How one channel writes what Markdown says: the marks around bold, italic and struck text, a link, a quote,
    code, and how its plain text is escaped."""

    marks: Mapping[str, tuple[str, str]]
    link: Callable[[str], tuple[str, str]]
    """A link's href -> what goes before and after its text."""
    code: Callable[[str], str]
    pre: Callable[[str], str]
    quote: tuple[str, str]
    escape: Callable[[str], str]


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


TELEGRAM = Dialect(
    marks={"strong": ("<b>", "</b>"), "em": ("<i>", "</i>"), "s": ("<s>", "</s>"), "heading": ("<b>", "</b>")},
    link=lambda href: (f'<a href="{html.escape(href)}">', "</a>"),
    code=lambda text: f"<code>{html.escape(text)}</code>",
    pre=lambda text: f"<pre>{html.escape(text)}</pre>",
    quote=("<blockquote>", "</blockquote>"),
    escape=html.escape,
)
"""Telegram's HTML (https://core.telegram.org/bots/api#html-style)."""
SLACK = Dialect(
    marks={"strong": ("*", "*"), "em": ("_", "_"), "s": ("~", "~"), "heading": ("*", "*")},
    link=lambda href: (f"<{_slack_escape(href)}|", ">"),
    code=lambda text: f"`{_slack_escape(text)}`",
    pre=lambda text: f"```{_slack_escape(text)}```",
    quote=("> ", ""),
    escape=_slack_escape,
)
"""Slack's mrkdwn (https://docs.slack.dev/messaging/formatting-message-text)."""


def markdown_escaped(text: str) -> str:
    """Plain text that Markdown reads as it is (a name, a choice put into a reply)."""
    return re.sub(r"([\\`*_\[\]<>#])", r"\\\1", text)


def telegram_parts(reply: Reply, limit: int) -> list[str]:
    """The reply as Telegram HTML messages, each at most `limit` characters."""
    return parts(reply, limit, TELEGRAM)


def parts(reply: Reply, limit: int, dialect: Dialect) -> list[str]:
    """The reply written in `dialect`, as messages of at most `limit` characters each."""
    pieces = [_written(block, reply.links, dialect) for block in _pieces(reply.text, limit, reply.links, dialect)]
    return _packed([piece for piece in pieces if piece], limit)


def _written(markdown: str, links: Mapping[str, str], dialect: Dialect) -> str:
    return "".join(_blocks(_MARKDOWN.parse(markdown), links, dialect)).strip()


def _blocks(tokens: Sequence[Token], links: Mapping[str, str], dialect: Dialect) -> Iterator[str]:
    numbers: list[int] = []
    for token in tokens:
        kind = token.type
        if kind == "inline":
            yield _inline(token.children or [], links, dialect)
        elif kind == "heading_open":
            yield dialect.marks["heading"][0]
        elif kind == "heading_close":
            yield dialect.marks["heading"][1] + "\n\n"
        elif kind in ("paragraph_close", "bullet_list_close", "ordered_list_close"):
            yield "\n" if token.hidden else "\n\n"
        elif kind == "ordered_list_open":
            numbers.append(int(token.attrs.get("start", 1) or 1))
        elif kind == "bullet_list_open":
            numbers.append(0)
        elif kind == "list_item_open":
            yield _bullet(numbers)
        elif kind in ("fence", "code_block"):
            yield dialect.pre(token.content.rstrip()) + "\n\n"
        elif kind == "blockquote_open":
            yield dialect.quote[0]
        elif kind == "blockquote_close":
            yield dialect.quote[1] + "\n\n"
        elif kind == "hr":
            yield "\n"
        if kind in ("bullet_list_close", "ordered_list_close") and numbers:
            numbers.pop()


def _bullet(numbers: list[int]) -> str:
    if not numbers or numbers[-1] == 0:
        return "• "
    numbers[-1] += 1
    return f"{numbers[-1] - 1}. "


def _inline(children: Sequence[Token], links: Mapping[str, str], dialect: Dialect) -> str:
    out: list[str] = []
    closing: list[str] = []  # what each open link ends with ("" for a link that is not shown as one)
    for child in children:
        kind = child.type
        name = kind.rsplit("_", 1)[0]
        if kind == "text":
            out.append(_cited(child.content, links, dialect, linked=not closing or not closing[-1]))
        elif kind == "code_inline":
            out.append(dialect.code(child.content))
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind.endswith("_open") and name in dialect.marks:
            out.append(dialect.marks[name][0])
        elif kind.endswith("_close") and name in dialect.marks:
            out.append(dialect.marks[name][1])
        elif kind == "link_open":
            href = str(child.attrs.get("href", ""))
            before, after = dialect.link(href) if _linkable(href) else ("", "")
            out.append(before)
            closing.append(after)
        elif kind == "link_close" and closing:
            out.append(closing.pop())
    return "".join(out)


def _linkable(href: str) -> bool:
    return href.lower().startswith(("https://", "http://"))


def _cited(text: str, links: Mapping[str, str], dialect: Dialect, *, linked: bool = True) -> str:
    """Escaped text whose citation markers link to their sources (a marker without a link, or inside a link,
    stays as it is)."""
    out, last = [], 0
    for found in _MARKER.finditer(text) if linked else ():
        link = links.get(found.group(0))
        if link is None or not _linkable(link):
            continue
        before, after = dialect.link(link)
        out.append(dialect.escape(text[last : found.start()]))
        out.append(f"{before}{dialect.escape(found.group(0))}{after}")
        last = found.end()
    out.append(dialect.escape(text[last:]))
    return "".join(out)


def _pieces(markdown: str, limit: int, links: Mapping[str, str], dialect: Dialect) -> Iterator[str]:
    """The Markdown cut into blocks each of which renders within `limit` (paragraphs, else lines, else words)."""
    for block in _BLOCKS.split(markdown):
        if len(_written(block, links, dialect)) <= limit:
            yield block
            continue
        for line in block.split("\n"):
            if len(_written(line, links, dialect)) <= limit:
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
