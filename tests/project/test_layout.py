"""The suite's own layout: tests mirror the source, and shared helpers live in `tests/support/`.

A package's tests are in `tests/<package>/` (its browser tests in `tests/browser/<package>/`), named by the top-level
package or module of `botyard` they test, and a sub-package's in the folder that mirrors it
(`tests/retrieval/embedded/` for `botyard.retrieval.embedded`); `tests/project/` holds the tests of the repository
itself (its README, Makefile, packaging, layers and the suite's own helpers). No test module imports another.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from tests.support.paths import SOURCE, TESTS

# Folders of tests that are not a package of the source: the repository's own tests.
NOT_A_PACKAGE = frozenset({"project"})
# Where the suite keeps what is not a test module: helpers, sample files, and the browser tests' own root.
NOT_TESTS = frozenset({"support", "samples"})


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


def source_names(source: Path = SOURCE) -> frozenset[str]:
    """The top-level packages and modules of `botyard`: the names a folder of tests may have."""
    return frozenset(
        path.stem if path.is_file() else path.name
        for path in source.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()
    )


def source_subpackages(source: Path = SOURCE) -> frozenset[tuple[str, ...]]:
    """The sub-packages of `botyard`'s packages as folder paths (`("retrieval", "embedded")`): a folder of tests may
    mirror one."""
    found = (path.parent.relative_to(source).parts for path in source.rglob("__init__.py"))
    return frozenset(parts for parts in found if len(parts) > 1)


def misplaced(
    modules: Iterable[Path], names: frozenset[str], nested: frozenset[tuple[str, ...]] = frozenset()
) -> list[str]:
    """Of the test modules and conftests given relative to `tests/`, those outside the layout of the module's
    docstring (a conftest may sit at the root of `tests/` and of `tests/browser/`, for what all below share);
    `nested`: the source's sub-packages, which a folder of tests may mirror."""
    allowed = names | NOT_A_PACKAGE
    wrong = []
    for module in modules:
        parts = module.parts
        if parts[-1] == "conftest.py":
            if parts[:-1] not in {(), ("browser",)}:
                wrong.append(str(module))
            continue
        folders = parts[1:-1] if parts[0] == "browser" else parts[:-1]
        if not (len(folders) == 1 and folders[0] in allowed) and tuple(folders) not in nested:
            wrong.append(str(module))
    return wrong


def test_every_test_module_sits_under_the_package_it_tests() -> None:
    modules = [
        path.relative_to(TESTS)
        for path in TESTS.rglob("*.py")
        if (path.name.startswith("test_") or path.name == "conftest.py")
        and not NOT_TESTS.intersection(path.relative_to(TESTS).parts)
    ]
    assert len(modules) > 100
    wrong = misplaced(sorted(modules), source_names(), source_subpackages())
    assert wrong == [], "move it to tests/<package it tests>/"


def test_every_folder_of_tests_is_a_package() -> None:
    folders = {path.parent for path in TESTS.rglob("test_*.py")}
    assert [str(folder) for folder in sorted(folders) if not (folder / "__init__.py").is_file()] == []


def test_the_layout_check_refuses_a_planted_module_outside_it() -> None:
    names = frozenset({"chat", "retrieval", "main"})
    assert misplaced([Path("test_chat.py")], names) == ["test_chat.py"]
    assert misplaced([Path("chatting/test_chat.py")], names) == ["chatting/test_chat.py"]
    assert misplaced([Path("chat/deeper/test_chat.py")], names) == ["chat/deeper/test_chat.py"]
    assert misplaced([Path("browser/test_widget.py")], names) == ["browser/test_widget.py"]
    assert misplaced([Path("chat/conftest.py")], names) == ["chat/conftest.py"]
    placed = ["chat/test_chat.py", "main/test_http.py", "project/test_makefile.py", "browser/retrieval/test_x.py"]
    assert misplaced([Path(path) for path in placed] + [Path("conftest.py"), Path("browser/conftest.py")], names) == []
    nested = frozenset({("retrieval", "embedded")})
    mirrored = [Path("retrieval/embedded/test_x.py"), Path("browser/retrieval/embedded/test_y.py")]
    assert misplaced(mirrored, names, nested) == []
    assert misplaced([Path("retrieval/other/test_x.py"), Path("embedded/test_x.py")], names, nested) == [
        "retrieval/other/test_x.py",
        "embedded/test_x.py",
    ]


def test_source_names_are_the_packages_and_modules_of_botyard() -> None:
    names = source_names()
    assert {"answering", "retrieval", "main", "cli"} <= names
    assert "__init__" not in names and "static" not in names
    assert ("retrieval", "embedded") in source_subpackages()
