"""Text from documents, defused before it goes into a prompt as data: nothing in it may pose as one of our
delimiters (`<document>`, `<reference_documents>`, `<session_document(s)>`, a tool's `<function_result>`, the
judge's `<message>`) or as a chat-template token
(`<|im_start|>`, `<s>`, `[INST]`, `<<SYS>>`, `<start_of_turn>`...).

A model does not read characters the way a regular expression does: `< /document>`, the same in full-width
characters, with an angle quotation mark (U+2039) for `<`, or with a zero-width space inside all look like our
closing tag to it. So every character that may open a tag is looked at through a fold of what follows it (Unicode
NFKC, case folded, default-ignorable code points dropped, spaces inside the tag dropped), and when the fold is one
of the delimiters or template tokens, that opening character alone is replaced by an entity (`&lt;`, `&#91;`). The
text keeps everything else as written: the model can still quote it, and its citations still match the chunk.
"""

from __future__ import annotations

import re
import unicodedata

_OPENERS = "<\uff1c\ufe64\u2039\u2329\u3008\u27e8\u02c2\u1438\u276e\u29fc\u00ab[\uff3b"
"""Characters that open a tag to a reader: `<` and its look-alikes (full-width, small, angle quotation marks, angle
brackets, modifier and syllabic less-than signs), and `[` (full-width too) for `[INST]`."""
_OPENER = re.compile(f"[{re.escape(_OPENERS)}]")
_ANGLE_ENTITY, _BRACKET_ENTITY = "&lt;", "&#91;"

_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
"""Unicode's default-ignorable code points (DerivedCoreProperties.txt): invisible, so a reader never sees them."""

_LOOKAHEAD = 48
"""Characters after an opener that the fold reads: the longest token below, with room for spaces and invisibles."""

_TAG = re.compile(
    r"""<(?:
        /?(?:document|reference[_\-]?documents|session[_\-]?documents?|function[_\-]?result|message)\b  # ours
      | \|[^|<>\n]{1,32}\|                                                  # <|im_start|>, <|eot_id|>, DeepSeek's
      | /?s>                                                                # <s>, </s>
      | <?/?sys>                                                            # <<SYS>>, <</SYS>>
      | (?:start|end)_of_turn\b | /?(?:bos|eos)>                            # Gemma's turns, <bos>, <eos>
    )
    | \[/?inst\]                                                            # [INST], [/INST]
    """,
    re.VERBOSE,
)
_PLAIN_TAG = re.compile(
    r"""<\s*(?:
        /?\s*(?:document|reference[_\-]?documents|session[_\-]?documents?|function[_\-]?result|message)\b
      | \|[^|<>\n]{1,32}\|
      | /?\s*s\s*>
      | <\s*/?\s*sys\s*> | /?\s*sys\s*>
      | (?:start|end)_of_turn\b | /?\s*(?:bos|eos)\s*>
    )
    | \[\s*/?\s*inst\s*\]""",
    re.VERBOSE | re.IGNORECASE,
)
"""`_TAG` as written in plain ASCII, spaces allowed inside."""
_CLOSER = re.compile("[>\\]\uff1e\uff3d\u203a\u232a\u3009\u27e9\u02c3\u276f\u29fd\u00bb\n]")
"""Where a tag ends: what follows it cannot make it one of ours."""
_LOOK_ALIKE = str.maketrans(dict.fromkeys("\u2039\u2329\u3008\u27e8\u02c2\u1438\u276e\u29fc\u00ab", "<"))


def defuse(text: str) -> str:
    """`text` with every opener of a delimiter or a template token replaced by an entity."""
    if not _OPENER.search(text):
        return text
    starts: set[int] = set()
    for match in _PLAIN_TAG.finditer(text):  # written in ASCII: one pass, at C speed
        starts.add(match.start())
        if match.group().startswith("<") and (inner := match.group().find("<", 1)) > 0:
            starts.add(match.start() + inner)  # "<<SYS>>": both brackets
    if not text.isascii():  # full-width, look-alike or invisible characters: such an opener is read through the fold
        for opener in _OPENER.finditer(text):
            start = opener.start()
            window = text[start : start + _LOOKAHEAD]
            window = window[: (end.end() if (end := _CLOSER.search(window, 1)) else len(window))]
            if not window.isascii() and _TAG.match(_fold(window)):
                starts.add(start)
    pieces = []
    last = 0
    for start in sorted(starts):
        pieces += [text[last:start], _BRACKET_ENTITY if _fold(text[start]) == "[" else _ANGLE_ENTITY]
        last = start + 1
    return "".join([*pieces, text[last:]])


def _fold(text: str) -> str:
    """What a reader sees of `text`: NFKC, case folded, without invisible characters or spaces, look-alike angle
    brackets as `<`."""
    visible = _IGNORABLE.sub("", unicodedata.normalize("NFKC", text))
    return "".join(visible.split()).casefold().translate(_LOOK_ALIKE)
