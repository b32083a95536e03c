"""Command line: `botyard serve | worker | migrate | backup | restore | search migrate | account create |
key create/list/revoke | user reset-link/invite`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from botyard.config import Settings
from botyard.logs import configure as configure_logs
from botyard.logs import log_config
from botyard.serving import InheritedSocket

if TYPE_CHECKING:
    import socket

    from sqlalchemy.ext.asyncio import AsyncSession

# The service's modules (FastAPI, SQLAlchemy, Alembic, the models) are imported by the commands that use them, so
# that `botyard --help` and a mistyped command answer at once.

T = TypeVar("T")


def _in_transaction(settings: Settings, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    from botyard.db.session import Database
    from botyard.errors import AppError

    async def run() -> T:
        database = Database.from_settings(settings)
        try:
            async with database.transaction() as session:
                return await work(session)
        finally:
            await database.dispose()

    try:
        return asyncio.run(run())
    except AppError as error:
        raise click.ClickException(error.message) from error


def _upgrade(settings: Settings) -> None:
    """The migrations, with a database a newer version migrated refused in words instead of a traceback."""
    from botyard.db import migrate as migrations

    try:
        migrations.upgrade(settings)
    except migrations.SchemaTooNew as error:
        raise click.ClickException(str(error)) from error


@click.group()
@click.pass_context
def main(ctx: click.Context) -> None:
    """Botyard: a self-hostable chatbot management service."""
    ctx.obj = Settings()


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(min=1), help="Server processes on the one port."
)
@click.option("--fd", "inherited", type=InheritedSocket(), help="Serve on this inherited TCP socket instead.")
@click.pass_obj
def serve(settings: Settings, host: str, port: int, workers: int, inherited: socket.socket | None) -> None:
    """Apply migrations, then serve the API (on --host and --port, or on the bound socket given by --fd)."""
    from botyard.main import create_app
    from botyard.serving import offer_setup, serve_one, serve_workers

    if inherited is not None and workers > 1:
        raise click.UsageError("--fd serves one process: for --workers give --port (each worker binds its own socket)")
    if inherited is not None:
        host, port = inherited.getsockname()[:2]
    configure_logs(settings.log_level, settings.log_format)
    _upgrade(settings)
    offer_setup(settings, host, port)
    logs = log_config(settings.log_level, settings.log_format)
    if workers == 1:
        serve_one(create_app(settings), host, port, inherited, logs)
        return
    # Each worker process builds its app from the same environment; rate limits, jobs and streams are coordinated
    # through the database, so any number of them is correct.
    try:
        serve_workers(host, port, workers, logs)
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}") from error


@main.command()
@click.pass_obj
def worker(settings: Settings) -> None:
    """Run the job runner alone (no HTTP), until SIGTERM (systemd, `docker stop`) or Ctrl-C, which stop it as
    `serve` stops: the jobs in hand end or give their lease back. Any number of workers can share one PostgreSQL."""
    from botyard.runtime import Runtime

    configure_logs(settings.log_level, settings.log_format)
    _upgrade(settings)

    async def run() -> None:
        runtime = Runtime.build(settings)
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stopping.set)
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a background job of a shell ignores Ctrl-C
            loop.add_signal_handler(signal.SIGINT, stopping.set)
        await runtime.follow_settings()
        await runtime.start_jobs()
        log = logging.getLogger("botyard.worker")
        log.info("worker %s running", runtime.runner.owner)
        try:
            await stopping.wait()
        finally:
            await runtime.close()
        log.info("worker %s stopped", runtime.runner.owner)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


@main.command()
@click.pass_obj
def migrate(settings: Settings) -> None:
    """Apply the database migrations."""
    _upgrade(settings)
    click.echo("database is up to date", err=True)


@main.group()
def search() -> None:
    """The search engine (BOTYARD_SEARCH)."""


@search.command("migrate")
@click.pass_obj
def search_migrate(settings: Settings) -> None:
    """Make and fill the postgres search backend's tables from the chunks (PostgreSQL with pgvector): resumable,
    with progress; run it before switching an installation to BOTYARD_SEARCH=postgres (switching back needs
    nothing)."""
    from botyard.db.session import Database
    from botyard.embedding import build_embedder, close_embedder
    from botyard.retrieval.postgres.fill import fill
    from botyard.retrieval.postgres.repository.schema import SearchSetupError
    from botyard.retrieval.postgres.search import PostgresSearch
    from botyard.retrieval.retriever import Retriever
    from botyard.sources.repository import IndexReads

    if settings.is_sqlite:
        raise click.ClickException("the postgres search needs BOTYARD_DATABASE_URL to name a PostgreSQL database")
    _upgrade(settings)

    async def run() -> None:
        embedder = build_embedder(settings)
        database = Database.from_settings(settings)
        retriever = Retriever(embedder, IndexReads)
        try:
            await fill(PostgresSearch(embedder, database, IndexReads, retriever.unrelated_vectors), click.echo)
        finally:
            await database.dispose()
            await close_embedder(embedder)

    try:
        asyncio.run(run())
    except SearchSetupError as error:
        raise click.ClickException(str(error)) from error


@main.command("backup")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@click.pass_obj
def backup_command(settings: Settings, path: Path, force: bool) -> None:
    """Copy the SQLite database to PATH, consistently, while the service keeps running (PostgreSQL: pg_dump)."""
    from botyard.db import backup as backups

    try:
        summary = backups.backup(settings, path, force=force)
    except backups.BackupError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"backed up to {summary.describe()}; integrity check ok")


@main.command("restore")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_obj
def restore_command(settings: Settings, path: Path) -> None:
    """Put the SQLite backup PATH in place of the database (the service must be stopped); the current one is kept."""
    from botyard.db import backup as backups

    try:
        restored = backups.restore(settings, path)
    except backups.BackupError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"restored {restored.summary.describe()}; integrity check ok")
    from botyard.retrieval.embedded.snapshot import forget_snapshots

    forget_snapshots(settings.data_dir)  # saved search indexes of the replaced history: their versions mean other data
    if restored.previous is not None:
        click.echo(f"the database it replaced is kept as {restored.previous}")
    click.echo("start the service: migrations bring an older backup up to date", err=True)


@main.group()
def account() -> None:
    """Manage accounts."""


@account.command("create")
@click.option("--email", required=True)
@click.pass_obj
def account_create(settings: Settings, email: str) -> None:
    """Create an account (no-op if it exists); prints its uuid."""
    from botyard.identity.accounts import service as accounts

    _upgrade(settings)
    created = _in_transaction(settings, lambda db: accounts.get_or_create_account(db, email))
    click.echo(created.uuid)


@main.group()
def key() -> None:
    """Manage API keys."""


@key.command("create")
@click.option("--email", required=True, help="The account's email; the account is created if it does not exist.")
@click.pass_obj
def key_create(settings: Settings, email: str) -> None:
    """Create an API key and print it, alone on one line. It is shown only this once."""
    from botyard.identity.accounts import service as accounts

    _upgrade(settings)
    issued = _in_transaction(settings, lambda db: accounts.issue_key(db, email))
    click.echo(issued.key)


@key.command("list")
@click.option("--email", required=True)
@click.pass_obj
def key_list(settings: Settings, email: str) -> None:
    """List an account's keys: prefix, creation time, state."""
    from botyard.db.base import iso
    from botyard.identity.accounts import service as accounts

    _upgrade(settings)
    records = _in_transaction(settings, lambda db: accounts.list_keys(db, email))
    for record in records:
        state = f"revoked {iso(record.revoked_at)}" if record.revoked_at else "active"
        click.echo(f"{record.prefix}\t{iso(record.created_at)}\t{state}")


@key.command("revoke")
@click.argument("key_prefix")
@click.pass_obj
def key_revoke(settings: Settings, key_prefix: str) -> None:
    """Revoke the key whose prefix (as `key list` shows it) is KEY_PREFIX."""
    from botyard.identity.accounts import service as accounts

    _upgrade(settings)
    record = _in_transaction(settings, lambda db: accounts.revoke_key(db, key_prefix))
    click.echo(f"revoked {record.prefix}", err=True)


@main.group()
def user() -> None:
    """Manage the people who sign in to the dashboard (no mail server needed: the links are printed)."""


_BASE_URL = click.option(
    "--base-url", default="http://127.0.0.1:8000", show_default=True, help="Where people open the dashboard."
)


@user.command("reset-link")
@click.option("--email", required=True, help="The member's email.")
@_BASE_URL
@click.pass_obj
def user_reset_link(settings: Settings, email: str, base_url: str) -> None:
    """Print a one-time password reset link for a member, valid for an hour (a new one replaces it)."""
    from botyard.db.base import utcnow
    from botyard.identity import resets
    from botyard.identity.links import dashboard_link

    _upgrade(settings)
    _, token = _in_transaction(settings, lambda db: resets.issue_for_email(db, email, utcnow()))
    click.echo(dashboard_link(base_url, "reset", token))


@user.command("invite")
@click.option("--account-email", required=True, help="The account's email; it is created if it does not exist.")
@click.option("--email", required=True, help="The person's email.")
@click.option(
    "--role", default="owner", show_default=True, type=click.Choice(["owner", "admin", "editor", "operator", "viewer"])
)
@_BASE_URL
@click.pass_obj
def user_invite(settings: Settings, account_email: str, email: str, role: str, base_url: str) -> None:
    """Print an invitation link to an account, valid for 7 days, once: how an account made with `key create` gets
    its first owner."""
    from botyard.db.base import utcnow
    from botyard.identity.accounts import service as accounts
    from botyard.identity.invitations import service as invitations
    from botyard.identity.links import dashboard_link
    from botyard.identity.principal import Principal
    from botyard.models import Role

    async def invite(db: AsyncSession) -> str:
        account = await accounts.get_or_create_account(db, account_email)
        operator = Principal(account_uuid=account.uuid, role=Role.OWNER)  # whoever runs the service holds every right
        return (await invitations.invite(db, operator, email, Role(role), utcnow())).token

    _upgrade(settings)
    click.echo(dashboard_link(base_url, "invite", _in_transaction(settings, invite)))
