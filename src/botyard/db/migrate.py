"""Apply the Alembic migrations programmatically (no alembic.ini needed at run time)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from botyard.config import Settings

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(settings: Settings) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["settings"] = settings
    return config


def upgrade(settings: Settings) -> None:
    """Bring the configured database to the latest schema; safe to run at every start."""
    if settings.is_sqlite:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(settings), "head")
