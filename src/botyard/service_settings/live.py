"""What a running process uses now, and how it follows a change without a restart.

`LiveSettings.current` is the effective `Settings` (environment, else stored, else default). The process that saves
a change applies it at once (`refresh` after its commit); every other process sharing the database (`botyard
worker`s, other `serve` processes) reads the row's version every `settings_poll_seconds` in a task of its own, and
rebuilds only when it moved. An answer never queries anything for this: the parts it uses (the egress policy, the
answerer, the CORS list) are swapped under it, and one already under way finishes with what it started with.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request

from botyard.config import Settings
from botyard.db.session import Database
from botyard.service_settings import service
from botyard.service_settings.cipher import Cipher

log = logging.getLogger(__name__)

Apply = Callable[[Settings, Settings], Awaitable[None]]
"""Rebuild what changed between the settings in use (first) and the new ones (second); raise to refuse them."""


class LiveSettings:
    def __init__(self, base: Settings, database: Database, apply: Apply) -> None:
        self.base = base
        """The process's own settings (environment and defaults): what the stored values are laid over."""
        self.cipher = Cipher(base)
        self.current = base
        self.version = 0
        self._database = database
        self._apply = apply
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def refresh(self) -> bool:
        """Apply the stored settings if they changed since this process last read them; True when they had."""
        async with self._lock:
            seen = await self._database.read_briefly(service.version)
            if seen == self.version:
                return False
            saved = await self._database.read_briefly(service.stored)
            new = saved.effective(self.base, self.cipher)
            try:
                await self._apply(self.current, new)
            except ValueError as error:
                # Checked when saved, so only a newer release's stricter rules get here (a model name gone from the
                # catalogue): keep serving with what is in use, and say so once, not at every look.
                log.error("the saved settings (version %d) cannot be used, keeping those in use: %s", seen, error)
                self.version = saved.version
                return False
            self.current, self.version = new, saved.version
            log.info("settings version %d in use", saved.version)
            return True

    def start(self) -> None:
        """Follow the other processes' changes until `stop`."""
        if self._task is None:
            self._task = asyncio.create_task(self._follow(), name="settings-follower")

    async def stop(self) -> None:
        """End the following between two reads, never inside one (a cancelled driver call can hang: `db.session`)."""
        self._stopping.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def _follow(self) -> None:
        while not self._stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.base.settings_poll_seconds)
                return
            try:
                await self.refresh()
            except Exception:  # a database hiccup must not end the following; the next turn tries again
                log.exception("could not read the stored settings")


async def _live(request: Request) -> LiveSettings:
    live: LiveSettings = request.app.state.live_settings
    return live


Live = Annotated[LiveSettings, Depends(_live)]
"""The settings the process uses now (`Live.current`), and how to make it follow a change."""
