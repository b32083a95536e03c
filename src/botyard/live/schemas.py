from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from botyard.schemas import RequestModel


class OperatorReply(RequestModel):
    text: Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
