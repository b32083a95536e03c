"""The boundaries of the code, checked on the code itself (docs/architecture.md gives the reasons):

- layers: composition over features over libraries, no import cycle between packages (import-linter, configured
  in pyproject.toml; every package must be placed in a layer);
- every table has one owner: no module imports another package's repository (the packages read from the tree);
- SQL lives only in repositories: no query building or execution anywhere else;
- small pieces: no module of src/ over 400 lines, no function over 50.

Each check is also run on a planted violation, so a check that silently stopped finding anything fails too.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO
SRC = ROOT / "src" / "botyard"
SHARED = frozenset({"db", "models"})
"""The packages everyone may use as they are: the database handle and the table definitions."""


def packages(root: Path = SRC) -> frozenset[str]:
    """Every package of the tree (a directory with `__init__.py`) but the shared ones: each owns its tables, and
    the others reach them through its services. Read from the tree, so a new package is covered the day it lands."""
    return frozenset(path.name for path in root.iterdir() if (path / "__init__.py").exists()) - SHARED


SQL_BUILDERS = frozenset({"select", "insert", "update", "delete", "text", "func", "exists", "union_all"})
SQL_CALLS = frozenset({"execute", "scalar", "scalars"})
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 50


def modules(root: Path = SRC) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*.py")):
        yield ".".join(path.relative_to(root.parent).with_suffix("").parts), path


def is_repository(path: Path) -> bool:
    """Repositories, and the database package itself (engine, sessions, migrations) may speak SQL."""
    relative = path.relative_to(SRC).parts
    return relative[0] == "db" or path.stem == "repository" or "repository" in relative[:-1]


def imported_modules(tree: ast.AST, module: str) -> Iterator[tuple[int, str]]:
    package = module.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level] if node.level else []
            name = ".".join([*base, node.module] if node.module else base)
            yield node.lineno, name
            yield from ((node.lineno, f"{name}.{alias.name}") for alias in node.names)


def foreign_repositories(source: str, module: str, owners: frozenset[str] | None = None) -> list[str]:
    """Imports of another package's repository by a module of a package (of `owners`: the tree's by default)."""
    owners = packages() if owners is None else owners
    parts = module.split(".")
    if len(parts) < 3 or parts[1] not in owners:
        return []
    found: dict[int, str] = {}
    for line, name in imported_modules(ast.parse(source), module):
        target = name.split(".")
        if len(target) >= 3 and target[1] in owners and target[1] != parts[1] and "repository" in target[2:]:
            found.setdefault(line, f"{module}:{line} imports {name}")
    return list(found.values())


def sql_outside_repositories(source: str, module: str) -> list[str]:
    """Query building (sqlalchemy's select, insert, ...), statement execution, and `db.get(Model, ...)`."""
    tree = ast.parse(source)
    builders: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlalchemy":
            builders |= {alias.asname or alias.name for alias in node.names if alias.name in SQL_BUILDERS}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Name) and function.id in builders:
            found.append(f"{module}:{node.lineno} builds SQL with {function.id}()")
        elif isinstance(function, ast.Attribute) and function.attr in SQL_CALLS:
            found.append(f"{module}:{node.lineno} runs SQL with .{function.attr}()")
        elif (
            isinstance(function, ast.Attribute)
            and function.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id[:1].isupper()
            and not node.args[0].id.isupper()  # a constant (`headers.get(SECRET_HEADER)`), not a model class
        ):
            found.append(f"{module}:{node.lineno} loads a row with .get({node.args[0].id}, ...)")
    return found


def oversized(source: str, module: str) -> list[str]:
    found = []
    lines = source.count("\n")
    if lines > MAX_MODULE_LINES:
        found.append(f"{module} has {lines} lines (at most {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{module}:{node.lineno} {node.name}() has {length} lines (at most {MAX_FUNCTION_LINES})")
    return found


def test_no_package_reaches_into_another_packages_repository() -> None:
    owners = packages()
    found = [hit for module, path in modules() for hit in foreign_repositories(path.read_text(), module, owners)]
    assert not found, "use the other package's service instead:\n" + "\n".join(found)


def test_the_owners_are_read_from_the_tree(tmp_path: Path) -> None:
    """A package that lands tomorrow is checked without anyone adding it to a list."""
    for name in ("sources", "newfeature", "models"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / "static").mkdir()  # a directory without __init__.py is no package
    assert packages(tmp_path) == {"sources", "newfeature"}
    planted = "from botyard.sources.repository import ChunkRepository\n"
    assert len(foreign_repositories(planted, "botyard.newfeature.service", packages(tmp_path))) == 1
    assert {"jobs", "ingestion", "outbox", "session_documents", "identity"} <= packages()


def test_sql_lives_only_in_repositories() -> None:
    found = [
        hit
        for module, path in modules()
        if not is_repository(path)
        for hit in sql_outside_repositories(path.read_text(), module)
    ]
    assert not found, "move these into a repository:\n" + "\n".join(found)


def test_modules_and_functions_stay_small() -> None:
    found = [hit for module, path in modules() for hit in oversized(path.read_text(), module)]
    assert not found, "split these:\n" + "\n".join(found)


def test_the_checks_find_planted_violations() -> None:
    planted = "from sqlalchemy import select\nfrom botyard.agents.repository import AgentRepository\n"
    planted += "async def f(db):\n    await db.get(Agent, 'x')\n    return await db.execute(select(Agent))\n"
    assert len(foreign_repositories(planted, "botyard.chat.service")) == 1
    assert foreign_repositories(planted, "botyard.agents.service") == []  # its own repository
    library = "from botyard.jobs.repository import JobRepository\n"  # libraries own their tables too
    assert len(foreign_repositories(library, "botyard.crawl.sync")) == 1
    assert len(sql_outside_repositories(planted, "botyard.chat.service")) == 3
    long_function = "def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    assert len(oversized(long_function, "botyard.chat.service")) == 1
    assert len(oversized("x = 1\n" * (MAX_MODULE_LINES + 1), "botyard.chat.service")) == 1


def layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    return [name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")]


def test_every_package_has_a_layer() -> None:
    placed = set(layers())
    top = {f"botyard.{path.stem}" for path in SRC.glob("*.py") if path.stem != "__init__"}
    top |= {f"botyard.{path.name}" for path in SRC.iterdir() if (path / "__init__.py").exists()}
    assert sorted(top - placed) == [], "place these packages in the layers contract of pyproject.toml"


def lint_imports(pythonpath: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "lint-imports"), "--no-cache", "--no-logo"]
    env = {"PYTHONPATH": str(pythonpath), "PATH": "/usr/bin:/bin"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_the_layers_contract_is_kept() -> None:
    result = lint_imports(ROOT / "src", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("retrieval/planted.py", "import botyard.answering.pipeline\n"),  # a library reaching up into a feature
        ("chatbots/planted.py", "from botyard.agents import service\n"),  # a cycle: agents imports chatbots
        ("answering/offline/planted.py", "from botyard.answering.model import prompt\n"),  # one answerer, the other
        ("answering/routing/planted.py", "from botyard.answering.turn import run\n"),  # a stage reaching up
    ],
)
def test_the_layers_contract_finds_a_planted_violation(tmp_path: Path, module: str, line: str) -> None:
    shutil.copytree(SRC, tmp_path / "src" / "botyard", ignore=shutil.ignore_patterns("__pycache__", "static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "src" / "botyard" / module).write_text(line)
    result = lint_imports(tmp_path / "src", tmp_path)
    assert result.returncode != 0
    assert "planted" in result.stdout
