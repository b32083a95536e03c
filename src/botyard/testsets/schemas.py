from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator
from typing_extensions import TypedDict

from botyard.models.kinds import TestRunStatus
from botyard.schemas import RequestModel
from botyard.testsets.csvfile import MAX_CASES, MAX_QUESTION

Name = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
Question = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUESTION, strip_whitespace=True)]
Expected = Annotated[str, StringConstraints(min_length=1, max_length=1000, strip_whitespace=True)]


class CaseIn(RequestModel):
    question: Question
    expect_any: list[Expected] = Field(
        default_factory=list, max_length=50, description="Texts a right answer holds one of (case and spacing aside)."
    )
    expect_refuse: bool = Field(default=False, description="The bot must say it does not know.")

    @model_validator(mode="after")
    def _one_expectation(self) -> CaseIn:
        if self.expect_refuse == bool(self.expect_any):
            raise ValueError("give `expect_any` (one or more texts) or `expect_refuse: true`, not both")
        return self


class TestSetCreate(RequestModel):
    name: Name
    cases: list[CaseIn] = Field(default_factory=list, max_length=MAX_CASES)
    run_after_changes: bool = Field(default=False, description="Run the set each time the knowledge changes.")


class TestSetUpdate(RequestModel):
    name: Name | None = None
    run_after_changes: bool | None = None


class CaseOut(TypedDict):
    uuid: str
    question: str
    expect_any: list[str]
    expect_refuse: bool


class TestSetOut(TypedDict):
    uuid: str
    chatbot_uuid: str
    name: str
    run_after_changes: bool
    case_count: int
    created_at: str
    modified_at: str


class TestSetDetail(TestSetOut):
    cases: list[CaseOut]


Change = Literal["fixed", "broken", "new"]


class ResultOut(TypedDict):
    question: str
    passed: bool
    reply: str
    confidence: str | None
    expect_any: list[str]
    expect_refuse: bool
    change: Change | None
    """Since the set's previous finished run: `fixed` (passes now, failed then), `broken` (the other way), `new`
    (not in that run), or null (the same verdict)."""


class TestRunOut(TypedDict):
    uuid: str
    test_set_uuid: str
    status: TestRunStatus
    trigger: str
    total: int
    passed: int
    fixed: int
    broken: int
    created_at: str
    finished_at: str | None
    results: list[ResultOut]
