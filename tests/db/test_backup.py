"""`botyard backup` / `botyard restore`, run as real processes on SQLite files of their own (no shared fixtures)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from botyard.config import Settings
from botyard.db.migrate import upgrade
from tests.support import processes
from tests.support.waiting import wait_for

# Commits accounts in transactions of three, numbered from argv[2], until the file argv[3] appears.
_WRITER = """
import sqlite3, sys, os
db, start, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
connection = sqlite3.connect(db, isolation_level=None, timeout=30)
connection.execute("PRAGMA journal_mode=WAL")
i = start
while not os.path.exists(stop):
    connection.execute("BEGIN IMMEDIATE")
    for n in range(i, i + 3):
        connection.execute(
            "INSERT INTO account (uuid, email, created_at) VALUES (?, ?, '2026-01-01 00:00:00.000000')",
            (f"{n:032d}", f"user{n}-{'x' * 200}@example.com"),
        )
    connection.execute("COMMIT")
    i += 3
"""


def _email(n: int) -> str:
    return f"user{n}-{'x' * 200}@example.com"


def botyard(data_dir: Path, *args: str, database_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOTYARD_")}
    env["BOTYARD_DATA_DIR"] = str(data_dir)
    if database_url:
        env["BOTYARD_DATABASE_URL"] = database_url
    return subprocess.run(
        [sys.executable, "-m", "botyard", *args], env=env, capture_output=True, text=True, timeout=120
    )


def _migrated(data_dir: Path) -> Path:
    upgrade(Settings(data_dir=data_dir))
    return data_dir / "botyard.sqlite3"


def _add_accounts(database: Path, numbers: range) -> None:
    with contextlib.closing(sqlite3.connect(database)) as connection, connection:
        connection.executemany(
            "INSERT INTO account (uuid, email, created_at) VALUES (?, ?, '2026-01-01 00:00:00.000000')",
            [(f"{n:032d}", _email(n)) for n in numbers],
        )


def _accounts(database: Path) -> list[tuple[str, str]]:
    with contextlib.closing(sqlite3.connect(database)) as connection:
        return connection.execute("SELECT uuid, email FROM account ORDER BY uuid").fetchall()


def _integrity(database: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(database)) as connection:
        return [row[0] for row in connection.execute("PRAGMA integrity_check")]


def _state(directory: Path) -> dict[str, bytes]:
    """The files of `directory` and their bytes, but for SQLite's shared-memory index and (empty) WAL of an open
    database."""
    return {
        path.name: path.read_bytes() for path in sorted(directory.iterdir()) if not path.name.endswith(("-shm", "-wal"))
    }


@contextlib.contextmanager
def _write_load(database: Path, start: int, stop: Path) -> Iterator[subprocess.Popen[str]]:
    writer = processes.spawn([sys.executable, "-c", _WRITER, str(database), str(start), str(stop)])
    try:
        yield writer
    finally:
        stop.touch()
        assert processes.stop(writer, None), "the writer did not stop when told"


def test_a_backup_taken_under_write_load_restores_every_committed_row(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = _migrated(data_dir)
    _add_accounts(database, range(20_000))  # about 5 MB: the copy takes many steps of the backup API
    backup = tmp_path / "backup.sqlite3"
    with _write_load(database, 20_000, tmp_path / "stop") as writer:

        def committing() -> bool:
            assert writer.poll() is None, "the writer exited"
            return len(_accounts(database)) >= 20_300

        wait_for(committing, what="the writer committing")
        committed_before = len(_accounts(database))
        result = botyard(data_dir, "backup", str(backup))
        committed_after = len(_accounts(database))
    assert result.returncode == 0, result.stderr
    assert "integrity check ok" in result.stdout and str(backup) in result.stdout
    assert committed_after > committed_before  # rows were being committed while the backup ran

    restored_dir = tmp_path / "restored"
    (restored_dir / "indexes" / "some-chatbot" / "3-0123456789abcdef").mkdir(parents=True)  # a saved search index
    restored = botyard(restored_dir, "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    assert not (restored_dir / "indexes").exists()  # saved from the replaced database: its versions mean other chunks
    live = restored_dir / "botyard.sqlite3"
    assert _integrity(live) == ["ok"]
    rows = _accounts(live)
    # Every row committed before the backup started, then a prefix of the writer's later ones: no gap, no torn
    # transaction (they insert three rows at a time), each row whole.
    assert len(rows) >= committed_before
    assert len(rows) % 3 == 20_000 % 3
    assert rows == [(f"{n:032d}", _email(n)) for n in range(len(rows))]
    # The restored database is the service's: `migrate` finds it up to date and it stays sound.
    assert botyard(restored_dir, "migrate").returncode == 0
    assert _integrity(live) == ["ok"]


def test_restore_keeps_the_old_database_and_refuses_bad_files_without_changing_anything(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = _migrated(data_dir)
    _add_accounts(database, range(2))
    backup = tmp_path / "backup.sqlite3"
    assert botyard(data_dir, "backup", str(backup)).returncode == 0
    _add_accounts(database, range(2, 5))

    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("not a database\n" * 100)
    newer = tmp_path / "newer.sqlite3"
    newer.write_bytes(backup.read_bytes())
    with contextlib.closing(sqlite3.connect(newer)) as connection, connection:
        connection.execute("UPDATE alembic_version SET version_num = 'ffffffffffff'")
    before = _state(data_dir)
    for bad, message in ((not_sqlite, "not a readable SQLite database"), (newer, "ffffffffffff")):
        refused = botyard(data_dir, "restore", str(bad))
        assert refused.returncode != 0
        assert message in refused.stderr
        assert _state(data_dir) == before
    assert "does not know" in botyard(data_dir, "restore", str(newer)).stderr

    # An open connection (a running service keeps idle ones in its pool) makes it refuse too.
    with contextlib.closing(sqlite3.connect(database)) as open_elsewhere:
        open_elsewhere.execute("SELECT count(*) FROM account").fetchone()
        busy = botyard(data_dir, "restore", str(backup))
        assert busy.returncode != 0
        assert "stop the service" in busy.stderr
        assert _state(data_dir) == before

    restored = botyard(data_dir, "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    assert [row[0] for row in _accounts(database)] == [f"{n:032d}" for n in range(2)]
    kept = [path for path in data_dir.iterdir() if path.name.startswith("botyard.sqlite3.before-restore-")]
    assert len(kept) == 1 and str(kept[0]) in restored.stdout
    assert [row[0] for row in _accounts(kept[0])] == [f"{n:032d}" for n in range(5)]
    assert _integrity(kept[0]) == ["ok"]
    assert sorted(path.name for path in data_dir.iterdir()) == ["botyard.sqlite3", kept[0].name]


def test_backup_refuses_to_overwrite_without_force_and_leaves_no_partial_file(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = _migrated(data_dir)
    _add_accounts(database, range(3))
    out = tmp_path / "out"
    out.mkdir()
    existing = out / "backup.sqlite3"
    existing.write_text("an older backup")
    refused = botyard(data_dir, "backup", str(existing))
    assert refused.returncode != 0
    assert "--force" in refused.stderr
    assert existing.read_text() == "an older backup"
    forced = botyard(data_dir, "backup", "--force", str(existing))
    assert forced.returncode == 0, forced.stderr
    assert len(_accounts(existing)) == 3
    assert _integrity(existing) == ["ok"]

    # A damaged database: the copy fails its integrity check, and nothing is left behind.
    with contextlib.closing(sqlite3.connect(database)) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        root = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_account_2'"
        ).fetchone()[0]
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with database.open("r+b") as damaged:
        damaged.seek((root - 1) * page_size + 8)
        damaged.write(b"\xff" * 64)
    before = _state(out)
    failed = botyard(data_dir, "backup", str(out / "new.sqlite3"))
    assert failed.returncode != 0
    assert "integrity check" in failed.stderr
    assert "Traceback" not in failed.stderr
    assert _state(out) == before


@pytest.mark.parametrize("command", ["backup", "restore"])
def test_postgresql_is_pointed_at_pg_dump(tmp_path: Path, command: str) -> None:
    url = os.environ.get("BOTYARD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    target = tmp_path / "backup.sqlite3"
    if command == "restore":
        target.write_bytes(b"")
    result = botyard(tmp_path / "data", command, str(target), database_url=url)
    assert result.returncode != 0
    assert "pg_dump" in result.stderr and "pg_restore" in result.stderr
    assert result.stdout == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == (["backup.sqlite3"] if command == "restore" else [])
