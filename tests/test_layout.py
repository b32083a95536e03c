"""The suite's own layout: shared helpers live in `tests/support/`, so no test module imports another."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_test_modules(source: str) -> list[str]:
    """The test modules (`tests.test_x`, `tests.browser.test_y`, or a conftest) that `source` imports from."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] == "tests" and any(part.startswith("test_") or part == "conftest" for part in parts[1:]):
                found.append(module)
                break
    return found


def test_no_test_module_imports_another() -> None:
    offenders = {
        str(path.relative_to(TESTS)): imported
        for path in sorted(TESTS.rglob("*.py"))
        if (imported := imported_test_modules(path.read_text()))
    }
    assert offenders == {}, "move shared helpers to tests/support/"


def test_the_check_sees_every_form_of_the_import() -> None:
    assert imported_test_modules("from tests.test_ingestion import process") == ["tests.test_ingestion"]
    assert imported_test_modules("from tests import test_crash") == ["tests.test_crash"]
    assert imported_test_modules("import tests.browser.test_dashboard") == ["tests.browser.test_dashboard"]
    assert imported_test_modules("def f():\n    from tests.conftest import Db") == ["tests.conftest"]
    assert imported_test_modules("from tests.support.jobs import process\nimport tests.support") == []
