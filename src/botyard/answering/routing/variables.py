"""Agent variables filled from the conversation, offline: a typed pattern extractor.

An agent declares variables (`name`, `description`, `type` string/number/boolean, `default_value` `{content,
static}`). Each user message may fill them: an email address for a variable whose name or description speaks of an
email, a phone number for one about a phone, the first number for a `number`, a plain yes or no for a `boolean`.
Other strings need a model to understand the message, so offline they keep their value. A `static` variable is
fixed to its default and never filled. Values live in the session's `meta.variables`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ()./-]{5,}\d(?!\w)")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?(?![\w])")
_YES = re.compile(r"^\s*(yes|yeah|yep|sure|of course|correct|true|absolutely)\b", re.IGNORECASE)
_NO = re.compile(r"^\s*(no|nope|not really|false|never)\b", re.IGNORECASE)
SHORT_ANSWER_WORDS = 6
"""Only a short message ("Yes please", "No, thanks") is read as a yes or no."""


def is_static(variable: Mapping[str, Any]) -> bool:
    default = variable.get("default_value") or {}
    return isinstance(default, Mapping) and str(default.get("static", 0)) in ("1", "True", "true")


def _about(variable: Mapping[str, Any], *words: str) -> bool:
    text = f"{variable.get('name', '')} {variable.get('description', '')}".lower()
    return any(word in text for word in words)


def _value(variable: Mapping[str, Any], message: str) -> str | None:
    kind = str(variable.get("type") or "string")
    if kind == "boolean":
        if len(message.split()) > SHORT_ANSWER_WORDS:
            return None
        return "true" if _YES.search(message) else "false" if _NO.search(message) else None
    if _about(variable, "email", "e-mail"):
        found = _EMAIL.search(message)
        return found.group(0) if found else None
    if _about(variable, "phone", "mobile", "telephone"):
        found = _PHONE.search(message)
        return found.group(0).strip() if found and sum(c.isdigit() for c in found.group(0)) >= 7 else None
    if kind == "number":
        return _number(variable, message)
    return None


def _number(variable: Mapping[str, Any], message: str) -> str | None:
    """The number the message gives: the first one after a word of the variable's name ("order 1234" for
    `order_number`), else the first one; digits of an email address or a phone number do not count."""
    text = _PHONE.sub(lambda m: " " * len(m.group(0)), _EMAIL.sub(lambda m: " " * len(m.group(0)), message))
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return None
    lowered = text.lower()
    hints = [word for word in re.split(r"[^a-z]+", str(variable.get("name", "")).lower()) if len(word) > 2]
    after = [lowered.find(word) for word in hints if word in lowered]
    start = min(after) if after else -1
    chosen = next((found for found in numbers if found.start() > start), numbers[0])
    return chosen.group(0).replace(",", ".")


def extract(definitions: Iterable[Mapping[str, Any]], message: str) -> dict[str, str]:
    """The values `message` gives the non-static variables among `definitions` (first definition of a name wins)."""
    found: dict[str, str] = {}
    for variable in definitions:
        name = str(variable.get("name") or "")
        if not name or name in found or is_static(variable):
            continue
        value = _value(variable, message)
        if value is not None:
            found[name] = value
    return found
