"""A route's documented refusals come from `ErrorCode` (`errors.error_responses`): each code under the status it
answers with, so the OpenAPI document cannot name a code under another status, and no router spells one by hand."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from botyard.config import Settings
from botyard.errors import STATUS, ErrorCode, error_responses
from botyard.main import create_app
from tests.support.paths import SOURCE

NAMED = re.compile(r"`([a-z_]+)`: ")


def test_each_code_goes_under_its_own_status_and_one_status_lists_its_codes_in_order() -> None:
    responses = error_responses(
        {
            ErrorCode.NOT_FOUND: "no such session.",
            ErrorCode.HUMAN_REQUEST_INACTIVE: "nobody asked",
            ErrorCode.LIVE_CHAT_ACTIVE: "an operator has it.",
        }
    )
    assert responses == {
        404: {"description": "`not_found`: no such session."},
        409: {"description": "`human_request_inactive`: nobody asked; `live_chat_active`: an operator has it."},
    }
    assert list(responses) == [404, 409]


def test_every_code_the_document_names_is_under_its_status(tmp_path: Path) -> None:
    document = create_app(Settings(data_dir=tmp_path, embedder="none")).openapi()
    named = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                for code in NAMED.findall(response.get("description", "")):
                    if code in ErrorCode._value2member_map_:
                        named += 1
                        assert str(STATUS[ErrorCode(code)]) == status, (method, path, status, code)
    assert named >= 80  # the refusals routers declare (a check that found none would pass too)


def hand_spelled(source: str) -> list[int]:
    """Lines of a literal `{4xx: {"description": ...}}`: an error status spelled by hand. A response with a body
    of its own (`"model"`: a 409 answering the existing object) is no error body and may be."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, int) and key.value >= 400):
                continue
            fields = (
                {k.value for k in value.keys if isinstance(k, ast.Constant)} if isinstance(value, ast.Dict) else set()
            )
            if "description" in fields and "model" not in fields:
                found.append(key.lineno)
    return found


def test_no_router_spells_an_error_response_by_hand() -> None:
    found = [
        f"{path.relative_to(SOURCE)}:{line}"
        for path in sorted(SOURCE.rglob("*.py"))
        if path.name != "openapi.py"
        for line in hand_spelled(path.read_text())
    ]
    assert not found, "declare these with errors.error_responses({ErrorCode.X: reason}):\n" + "\n".join(found)
    planted = 'R = {404: {"description": "No such chatbot."}, 409: {"description": "x", "model": object}}\n'
    assert hand_spelled(planted) == [1]
