"""Apply the Alembic migrations programmatically (no alembic.ini needed at run time)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError

from botyard.config import Settings

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(settings: Settings) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["settings"] = settings
    return config


class SchemaTooNew(Exception):
    """The database was migrated by a newer version of the service than this one."""


def upgrade(settings: Settings) -> None:
    """Bring the configured database to the latest schema; safe to run at every start. Raises SchemaTooNew, with
    what to do, for a database a newer version migrated (this version cannot know its schema)."""
    if settings.is_sqlite:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    config = alembic_config(settings)
    try:
        command.upgrade(config, "head")
    except CommandError as error:
        if "Can't locate revision" not in str(error):
            raise
        head = ScriptDirectory.from_config(config).get_current_head()
        raise SchemaTooNew(
            f"the database's schema is newer than this version of botyard knows ({error}; this version's latest is "
            f"{head}): run the newer version, or restore the backup taken before the upgrade (see docs/operations.md)"
        ) from error
