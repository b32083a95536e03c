"""Online backup and restore of the embedded SQLite database (`botyard backup PATH`, `botyard restore PATH`).

A backup is a consistent snapshot taken while the service keeps serving: SQLite's backup API copies the pages of one
read transaction, held for the whole copy. In WAL mode (which the service always uses) a reader never blocks writers
and they never disturb it, so the copy proceeds in steps of a few pages and is never restarted by a concurrent
commit (without the pinned snapshot, every commit of another connection restarts the copy from page 1, and a busy
service can starve it). The copy is written to a temporary file beside PATH, switched to a rollback journal (one
self-contained file), checked with `PRAGMA integrity_check` and only then renamed to PATH.

PostgreSQL has its own tools (`pg_dump`, `pg_restore`); these functions refuse it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import make_url

from botyard.config import Settings

PAGES_PER_STEP = 256
"""Pages copied per step of the backup API (1 MB with 4 KB pages): one step is a short, bounded piece of work."""

PG_DUMP_HINT = (
    "botyard backup/restore handle the embedded SQLite database only; this service uses PostgreSQL: back it up "
    'with pg_dump (pg_dump --format=custom --file=botyard.dump "$BOTYARD_DATABASE_URL") and restore with '
    "pg_restore (see docs/operations.md, 'Backups and upgrades')"
)


class BackupError(Exception):
    """A backup or restore that was refused or failed; nothing was changed. The message says why."""


@dataclass(frozen=True)
class Summary:
    """What a backup holds (or a restored database held)."""

    path: Path
    size: int
    tables: int
    rows: int
    revision: str | None

    def describe(self) -> str:
        revision = self.revision or "none"
        return f"{self.path}: {self.size} bytes, {self.tables} tables, {self.rows} rows, schema revision {revision}"


@dataclass(frozen=True)
class Restored:
    summary: Summary
    previous: Path | None
    """Where the database that was in place went (None: there was none)."""


def sqlite_path(settings: Settings) -> Path:
    """The configured SQLite database file; BackupError for PostgreSQL (or an in-memory database)."""
    if not settings.is_sqlite:
        raise BackupError(PG_DUMP_HINT)
    database = make_url(settings.resolved_database_url).database
    if not database or database == ":memory:":
        raise BackupError("the configured SQLite database is in memory: there is no file to back up or restore")
    return Path(database)


def backup(settings: Settings, target: Path, *, force: bool = False) -> Summary:
    """Copy the live database into `target`, consistently, while the service may be writing to it."""
    source = sqlite_path(settings)
    if not source.is_file():
        raise BackupError(f"no database at {source} (nothing to back up; is BOTYARD_DATA_DIR right?)")
    target = target.absolute()
    if target.resolve() == source.resolve():
        raise BackupError(f"{target} is the live database itself; choose another path")
    if target.is_dir():
        raise BackupError(f"{target} is a directory; give the backup file's path")
    if not target.parent.is_dir():
        raise BackupError(f"directory {target.parent} does not exist")
    if target.exists() and not force:
        raise BackupError(f"{target} exists; pass --force to overwrite it")
    with _temporary_beside(target) as temporary:
        try:
            _copy_online(source, temporary)
        except sqlite3.Error as error:
            raise BackupError(f"cannot copy {source}: {error}") from error
        summary = _check(temporary, f"the copy of {source}", target)
        _replace(temporary, target)
    return summary


def restore(settings: Settings, source: Path) -> Restored:
    """Put the backup `source` in place of the live database, which is kept beside it as
    `<name>.before-restore-<UTC time>`. Refused while another connection (a running service) has the database open,
    and for a file that is not a sound Botyard database this version of the code knows the schema of."""
    live = sqlite_path(settings)
    source = source.absolute()
    if not source.is_file():
        raise BackupError(f"no backup file at {source}")
    if live.exists() and source.resolve() == live.resolve():
        raise BackupError(f"{source} is the live database itself")
    live.parent.mkdir(parents=True, exist_ok=True)
    with _temporary_beside(live) as temporary:
        # Check a copy, never the given file itself: opening a database can write to it (and its journal).
        with source.open("rb") as reading, temporary.open("wb") as writing:
            while chunk := reading.read(1 << 20):
                writing.write(chunk)
        summary = _check(temporary, str(source), source)
        _require_known_revision(settings, summary.revision, source)
        if live.exists():  # the restored file gets the permissions of the one it replaces (a backup is owner-only)
            os.chmod(temporary, live.stat().st_mode & 0o777)
        previous = _set_aside(live) if live.exists() else None
        _replace(temporary, live)
    return Restored(summary=summary, previous=previous)


def _copy_online(source: Path, target: Path) -> None:
    with contextlib.closing(sqlite3.connect(source, isolation_level=None, timeout=30)) as reader:
        # Pin one snapshot for the whole copy (WAL: readers and writers do not wait for each other); in a rollback
        # journal a long read would hold writers off, so there the copy goes step by step without one.
        wal = reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        if wal:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM sqlite_master").fetchone()
        with contextlib.closing(sqlite3.connect(target, isolation_level=None)) as writer:
            reader.backup(writer, pages=PAGES_PER_STEP)
            if wal:
                reader.execute("COMMIT")
            # The copy's header says WAL, like its source; a backup is better as one self-contained file.
            writer.execute("PRAGMA journal_mode=DELETE").fetchone()


def _check(path: Path, label: str, shown: Path) -> Summary:
    """Integrity-check the database file `path` (`label` in messages) and count what it holds, as `shown`."""
    try:
        with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
            try:
                verdict = [row[0] for row in connection.execute("PRAGMA integrity_check")]
            except sqlite3.DatabaseError as error:
                if "not a database" in str(error):
                    raise
                verdict = [str(error)]
            if verdict != ["ok"]:
                raise BackupError(f"{label} fails SQLite's integrity check: {'; '.join(verdict[:5])}")
            names = [
                row[0]
                for row in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                    "AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name"
                )
            ]
            rows = sum(connection.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names)  # noqa: S608 (names from sqlite_master)
            revision = None
            if "alembic_version" in names:
                found = connection.execute("SELECT version_num FROM alembic_version").fetchall()
                revision = found[0][0] if len(found) == 1 else None
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{label} is not a readable SQLite database: {error}") from error
    return Summary(path=shown, size=path.stat().st_size, tables=len(names), rows=rows, revision=revision)


def _require_known_revision(settings: Settings, revision: str | None, shown: Path) -> None:
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    from botyard.db.migrate import alembic_config

    if revision is None:
        raise BackupError(f"{shown} is not a Botyard database (it has no schema revision, table alembic_version)")
    try:
        known = ScriptDirectory.from_config(alembic_config(settings)).get_revision(revision)
    except CommandError:
        known = None
    if known is None:
        raise BackupError(
            f"{shown} has schema revision {revision}, which this version of Botyard does not know (a backup made by "
            "a newer version?): restore it with that version, or upgrade this one"
        )


def _set_aside(live: Path) -> Path:
    """Move the live database (and any journal files) to `<name>.before-restore-<time>`, after making sure no other
    connection has it open and folding its write-ahead log into the file."""
    try:
        with contextlib.closing(sqlite3.connect(live, isolation_level=None, timeout=0)) as connection:
            # In exclusive locking mode a WAL database can be locked only while no other connection has it open,
            # even an idle one in a pool: a running service makes this fail at once.
            connection.execute("PRAGMA locking_mode=EXCLUSIVE").fetchone()
            connection.execute("BEGIN EXCLUSIVE")
            connection.execute("COMMIT")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError as error:
        raise BackupError(
            f"the database {live} is in use ({error}): stop the service (and any botyard process using "
            f"{live.parent}) first"
        ) from error
    except sqlite3.DatabaseError as error:
        raise BackupError(f"the current database {live} cannot be opened ({error}); move it away by hand") from error
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = live.with_name(f"{live.name}.before-restore-{stamp}")
    counter = 1
    while aside.exists():
        counter += 1
        aside = live.with_name(f"{live.name}.before-restore-{stamp}-{counter}")
    os.replace(live, aside)
    # A journal left beside the live name would be replayed into the restored file: it goes with its database.
    for suffix in ("-wal", "-shm", "-journal"):
        leftover = live.with_name(live.name + suffix)
        if leftover.exists():
            os.replace(leftover, aside.with_name(aside.name + suffix))
    return aside


@contextlib.contextmanager
def _temporary_beside(target: Path) -> Iterator[Path]:
    """A new temporary file in `target`'s directory (so a rename puts it in place atomically); it and any journal
    SQLite left beside it are removed unless it was renamed."""
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
    finally:
        for path in (temporary, *(temporary.with_name(temporary.name + s) for s in ("-journal", "-wal", "-shm"))):
            path.unlink(missing_ok=True)


def _replace(temporary: Path, target: Path) -> None:
    with temporary.open("rb+") as written:
        os.fsync(written.fileno())
    os.replace(temporary, target)
    with contextlib.suppress(OSError):  # not every platform can open a directory to sync it
        directory = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
