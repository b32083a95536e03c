"""Builds an `AnswerRun` from the process's runtime (its retriever and answerer)."""

from __future__ import annotations

from botyard.answering.tools import ToolCaller
from botyard.chat.answer import AnswerRun, Prepared
from botyard.runtime import Runtime


def answer_run(runtime: Runtime, prepared: Prepared, *, events: bool) -> AnswerRun:
    """Pings are for SSE only: the plain-text format has no framing to carry them."""
    ping = runtime.settings.chat_ping_seconds if events else None
    caller = ToolCaller(runtime.egress, runtime.settings.tool_call_timeout)
    return AnswerRun(prepared, runtime.database, runtime.retriever, runtime.answerer, ping, runtime.admission, caller)
