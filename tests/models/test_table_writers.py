"""Every table has one writer: the package that owns it (`botyard.models.owners.OWNERS`). The writes are read from
the tree with `ast`, in every module of `src/botyard` but the migrations:

- a statement: `insert(T)`, `update(T)`, `delete(T)` (sqlalchemy's, or a dialect's), of a model or its `__table__`;
- a row handed to the session: `.add(T(...))`, `.add_all(...)`, `.merge(...)`, `.delete(row)`;
- a loaded row changed: `row.column = ...` (or `+=`, `setattr(row, ...)`) where `row` is known to be a model's: an
  annotated name, a name bound to `T(...)` or to the call of a function of the tree whose return annotation names
  exactly one model, or the loop variable over such a sequence.

Building a row (`T(...)`) and handing it to the owner's function is no write: the owner adds it. The checker is run on
planted violations too, so a check that silently stopped seeing one form fails.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from botyard.db.base import Base
from botyard.models.owners import OWNERS
from tests.support.paths import SOURCE

SRC = SOURCE
STATEMENTS = frozenset({"insert", "update", "delete"})
HANDED = frozenset({"add", "add_all", "merge", "delete"})


@dataclass(frozen=True)
class Write:
    module: str
    line: int
    table: str
    how: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line} {self.how} ({self.table}, owned by {OWNERS.get(self.table, 'nobody')})"


def model_tables(root: Path = SRC / "models") -> dict[str, str]:
    """Model class name -> table name, read from the classes of `models/` that set `__tablename__`."""
    found: dict[str, str] = {}
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                targets = item.targets if isinstance(item, ast.Assign) else []
                if any(isinstance(t, ast.Name) and t.id == "__tablename__" for t in targets):
                    assert isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)
                    found[node.name] = str(item.value.value)
    return found


def named(node: ast.expr | None) -> set[str]:
    """The names an annotation mentions (`Sequence[Chunk] | None` -> Sequence, Chunk), strings parsed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return set()
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def one_model(names: set[str], models: Mapping[str, str]) -> str | None:
    hits = names & models.keys()
    return next(iter(hits)) if len(hits) == 1 else None


def returned_models(sources: Mapping[str, str], models: Mapping[str, str]) -> dict[str, str]:
    """Function name -> the model its return annotation names, for the names that mean one model in the whole tree."""
    seen: dict[str, set[str | None]] = {}
    for source in sources.values():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                seen.setdefault(node.name, set()).add(one_model(named(node.returns), models))
    return {name: next(iter(found)) for name, found in seen.items() if len(found) == 1 and None not in found}  # type: ignore[misc]


def _names(node: ast.Assign) -> list[str]:
    return [target.id for target in node.targets if isinstance(target, ast.Name)]


class _Reader:
    """The writes of one module (`read`)."""

    def __init__(self, module: str, tree: ast.Module, models: Mapping[str, str], returns: Mapping[str, str]) -> None:
        self.module, self.tree, self.models, self.returns = module, tree, models, returns
        self.found: list[Write] = []
        self.statements = set(STATEMENTS)
        """Names of statement builders: sqlalchemy's, a dialect's imported under another name (`sqlite_insert`), a
        name bound to one (`insert = postgresql.insert if ... else sqlite.insert`)."""
        self.tables: dict[str, str] = {}
        """Names bound to a model or its table (`table = Chunk.__table__`)."""
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlalchemy":
                self.statements |= {alias.asname or alias.name for alias in node.names if alias.name in STATEMENTS}
            elif isinstance(node, ast.Assign):
                if any(isinstance(part, ast.Attribute) and part.attr in STATEMENTS for part in ast.walk(node.value)):
                    self.statements |= set(_names(node))
                elif (model := self.model_of(node.value)) is not None:
                    self.tables |= dict.fromkeys(_names(node), model)

    def model_of(self, node: ast.expr) -> str | None:
        """The model a class reference names: `Chunk`, `models.Chunk`, `Chunk.__table__`, a name bound to one."""
        if isinstance(node, ast.Attribute):
            if node.attr == "__table__":
                return self.model_of(node.value)
            return node.attr if node.attr in self.models else None
        if isinstance(node, ast.Name):
            return self.tables.get(node.id) or (node.id if node.id in self.models else None)
        return None

    def built(self, node: ast.expr) -> str | None:
        """The model of the row this expression builds (`T(...)`) or a function of the tree returns."""
        if isinstance(node, ast.Await):
            return self.built(node.value)
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
            return None
        if isinstance(node.func, ast.Name):
            return node.func.id if node.func.id in self.models else self.returns.get(node.func.id)
        if node.func.attr == "__table__":
            return None
        return node.func.attr if node.func.attr in self.models else self.returns.get(node.func.attr)

    def statement(self, function: ast.expr) -> str | None:
        """The name of the statement builder called: `insert`, `sqlite_insert`, `postgresql.insert`, ..."""
        if isinstance(function, ast.Attribute) and function.attr in STATEMENTS:
            return function.attr
        return function.id if isinstance(function, ast.Name) and function.id in self.statements else None

    def write(self, node: ast.AST, model: str, how: str) -> None:
        self.found.append(Write(self.module, getattr(node, "lineno", 0), self.models[model], how))

    def read(self) -> list[Write]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and node.args and (statement := self.statement(node.func)) is not None:
                if (model := self.model_of(node.args[0])) is not None:
                    self.write(node, model, f"{statement}({model})")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.function(node)
        return self.found

    def typed(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
        """The function's names known to hold rows of a model (or sequences of them), by the model."""
        rows: dict[str, str] = {}
        arguments = function.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if (model := one_model(named(argument.annotation), self.models)) is not None:
                rows[argument.arg] = model
        for node in ast.walk(function):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if (model := one_model(named(node.annotation), self.models)) is not None:
                    rows[node.target.id] = model
            elif isinstance(node, ast.Assign) and (model := self.built(node.value)) is not None:
                rows |= dict.fromkeys(_names(node), model)
        for node in ast.walk(function):  # the rows of a sequence: `for source in sources`, `enumerate(sources)`
            if isinstance(node, ast.For | ast.AsyncFor):
                sequence, target = node.iter, node.target
                if isinstance(sequence, ast.Call) and getattr(sequence.func, "id", "") == "enumerate" and sequence.args:
                    sequence = sequence.args[0]
                    target = target.elts[1] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else target
                if isinstance(sequence, ast.Name) and sequence.id in rows and isinstance(target, ast.Name):
                    rows[target.id] = rows[sequence.id]
        rows.pop("self", None)
        return rows

    def function(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        rows = self.typed(function)

        def row(node: ast.expr) -> str | None:
            return rows.get(node.id) if isinstance(node, ast.Name) else self.built(node)

        for node in ast.walk(function):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                model = (
                    rows.get(target.value.id)
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    else None
                )
                if isinstance(target, ast.Attribute) and model is not None:
                    self.write(target, model, f"sets {model}.{target.attr}")
            if not isinstance(node, ast.Call) or not node.args:
                continue
            if getattr(node.func, "id", "") == "setattr" and (model := rows.get(getattr(node.args[0], "id", ""))):
                self.write(node, model, f"setattr({model}, ...)")
            elif isinstance(node.func, ast.Attribute) and node.func.attr in HANDED:
                handed = (row(part) for part in ast.walk(node.args[0]) if isinstance(part, ast.expr))
                if (model := next((model for model in handed if model is not None), None)) is not None:
                    self.write(node, model, f".{node.func.attr}({model})")


def package_of(module: str) -> str:
    """`botyard.sources.repository.chunks` -> sources; a top-level module is its own package."""
    return module.split(".")[1]


def tree_sources(root: Path = SRC) -> dict[str, str]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent)
        if "migrations" not in relative.parts:
            found[".".join(relative.with_suffix("").parts)] = path.read_text()
    return found


def writes(sources: Mapping[str, str], models: Mapping[str, str]) -> Iterator[Write]:
    returns = returned_models(sources, models)
    for module, source in sources.items():
        yield from _Reader(module, ast.parse(source), models, returns).read()


def foreign_writes(sources: Mapping[str, str], models: Mapping[str, str], owners: Mapping[str, str]) -> list[Write]:
    return [write for write in writes(sources, models) if owners.get(write.table) != package_of(write.module)]


def unowned(models: Mapping[str, str], owners: Mapping[str, str]) -> set[str]:
    return set(models.values()) - owners.keys()


def test_every_table_has_an_owner_that_is_a_package() -> None:
    tables = set(Base.metadata.tables)
    assert unowned(model_tables(), OWNERS) == set(), "say which package owns these tables in botyard/models/owners.py"
    assert tables - OWNERS.keys() == set()
    assert OWNERS.keys() - tables == set(), "these owned tables are gone"
    assert set(model_tables().values()) == tables
    packages = {path.name for path in SRC.iterdir() if (path / "__init__.py").exists()}
    assert set(OWNERS.values()) - packages == set()


def test_only_a_tables_owner_writes_it() -> None:
    found = foreign_writes(tree_sources(), model_tables(), OWNERS)
    assert not found, "ask the owner through a function of its own:\n" + "\n".join(map(str, found))


PLANTED = """
from sqlalchemy import delete, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from botyard.models import Chatbot, ChatSession, Message


async def statements(db):
    table = Message.__table__
    await db.execute(update(table).values(response=""))
    await db.execute(update(Chatbot).values(knowledge_version=Chatbot.knowledge_version + 1))
    await db.execute(insert(Chatbot.__table__).values(name="x"))
    await db.execute(sqlite_insert(ChatSession).values(chatbot_uuid="x"))
    await db.execute(delete(Message))


async def handed(db, sessions: list[ChatSession]):
    db.add(ChatSession(chatbot_uuid="x"))
    db.add_all([Message(query="q") for _ in range(2)])
    db.add_all(sessions)
    message = Message(query="q")
    await db.merge(message)


async def loaded(db, session: ChatSession, uuid: str):
    session.meta = {"human_requested": True}
    chatbot = await load_chatbot(db, uuid)
    chatbot.knowledge_version += 1
    setattr(session, "live_chat", True)
    await db.delete(chatbot)


async def each(sessions: list[ChatSession], messages: list[Message], dialect):
    for session in sessions:
        session.outcome = None
    for position, message in enumerate(messages):
        message.position = position
    upsert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await db.execute(upsert(Chatbot).values(name="x"))
    await db.execute(postgresql.insert(Message).values(query="q"))


async def load_chatbot(db, uuid: str) -> Chatbot | None:
    return await db.get(Chatbot, uuid)


def built_and_handed_to_the_owner(uuid: str) -> ChatSession:
    return ChatSession(chatbot_uuid=uuid)  # building a row writes nothing: the owner adds it
"""
PLANTED_WRITES = [
    "update(Message)",
    "update(Chatbot)",
    "insert(Chatbot)",
    "sqlite_insert(ChatSession)",
    "delete(Message)",
    ".add(ChatSession)",
    ".add_all(Message)",
    ".add_all(ChatSession)",
    ".merge(Message)",
    "sets ChatSession.meta",
    "sets Chatbot.knowledge_version",
    "setattr(ChatSession, ...)",
    ".delete(Chatbot)",
    "sets ChatSession.outcome",
    "sets Message.position",
    "insert(Message)",
    "upsert(Chatbot)",
]


def test_the_checker_finds_each_planted_write_by_another_package(tmp_path: Path) -> None:
    (tmp_path / "botyard" / "live").mkdir(parents=True)
    (tmp_path / "botyard" / "live" / "planted.py").write_text(PLANTED)
    sources = tree_sources(tmp_path / "botyard")
    found = foreign_writes(sources, model_tables(), OWNERS)
    assert sorted(write.how for write in found) == sorted(PLANTED_WRITES)
    assert {write.module for write in found} == {"botyard.live.planted"}
    assert {write.table for write in found} == {"chatbot", "chat_session", "message"}


def test_a_tables_owner_may_write_it() -> None:
    owners = {**OWNERS, "chatbot": "live", "chat_session": "live", "message": "live"}
    assert foreign_writes({"botyard.live.planted": PLANTED}, model_tables(), owners) == []
    assert len(list(writes({"botyard.live.planted": PLANTED}, model_tables()))) == len(PLANTED_WRITES)


def test_a_new_table_without_an_owner_fails(tmp_path: Path) -> None:
    shutil.copytree(SRC / "models", tmp_path / "models")
    (tmp_path / "models" / "planted.py").write_text(
        "class Planted(Base):\n    __tablename__ = 'planted'\n    uuid: Mapped[str]\n"
    )
    assert unowned(model_tables(tmp_path / "models"), OWNERS) == {"planted"}
