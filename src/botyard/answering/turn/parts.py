"""The long-lived parts every answer of a process uses (`AnswerParts`), in a room of their own so that each stage of
the turn (search, stream, run) reads them without importing another stage."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from botyard.answering.base import Answerer
from botyard.answering.routing.supervisor import ChosenAgent
from botyard.answering.tools import Tool
from botyard.db.session import Database
from botyard.retrieval.retriever import Retriever


@dataclass(frozen=True, kw_only=True)
class AnswerParts:
    """The long-lived parts every answer of a process uses, built once (`Runtime`)."""

    database: Database
    retriever: Retriever | None
    answerer: Answerer
    admission: asyncio.Semaphore
    """Bounds the answers that prepare and search at once (`answer_admission`; one `Slot` per answer)."""
    call_tool: Callable[[Tool, dict[str, Any]], Awaitable[str]] | None = None
    greeting: Callable[[ChosenAgent, str], Awaitable[str | None]] | None = None
    """Small talk's friendly reply for a chatbot's only agent when its knowledge has no answer (`AgentRouter`)."""
