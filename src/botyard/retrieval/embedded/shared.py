"""Search index snapshots shared through the database, so that a process on another machine loads a chatbot's index
instead of building it (at 100k chunks a build reads every row and indexes it: 10-30 s on a 2-core machine; a
download of its snapshot and a load take a few seconds).

Only where the database is PostgreSQL: SQLite's processes share one data directory, and its snapshots (`snapshot`)
with it. A process that built and saved a snapshot publishes it (`publish_later`): a tar of the snapshot's folder in
pieces of `PIECE_BYTES` (`IndexSnapshotPiece`, each in a transaction of its own), then signed: the row gets an
HMAC-SHA256, with a key derived from the instance's secret key (`BOTYARD_SECRET_KEY`, which machines sharing a
database set alike), of what the snapshot is for together with its bytes (`signature`: the chatbot, the knowledge
version, the code key, the size and the SHA-256 of the bytes). A signed row copied to another chatbot's (another
account's), or given another version, no longer matches its signature: a snapshot serves only the chatbot it was
built for, which its state also names (`Snapshots` compares it at every load). A process that meets a chatbot with
no snapshot on its disk, while it holds the machine's build lock (`build_lock`), downloads the newest signed one of
its code at or before the version it needs (`fetch`), checks the signature before anything of it is used, and puts
it among its own snapshots: the local loader then loads it and catches it up like any older snapshot. The signature
matters: a snapshot holds a pickle, and whoever could write one row must not be able to run code in every process
that loads it, nor serve one account's knowledge in another's answers. A snapshot whose signature does not match
(another key: `BOTYARD_SECRET_KEY` differs between machines; a row signed by an earlier release, over its bytes
alone; a row moved to another chatbot) is not used, and the process builds, as it would without sharing.

The warmers of machines that start together claim a chatbot's build (`claim`: an unsigned row) so that one builds
it and the others fetch it. The rows go with their chatbot (a foreign key), and a publication prunes the ones it
replaces; a database restored from a backup restores its snapshots with the knowledge they were built from.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import shutil
import tarfile
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import IO

from botyard.db.base import utcnow
from botyard.db.session import Database, uninterrupted
from botyard.retrieval.embedded.private import owner
from botyard.retrieval.embedded.repository import SharedSnapshotRepository
from botyard.retrieval.embedded.snapshot import Snapshots

log = logging.getLogger(__name__)

PIECE_BYTES = 8 * 2**20
"""A row's share of a snapshot: small enough for any driver, large enough that 300 MB is a few dozen rows."""
CLAIM_SECONDS = 600
"""A machine's claim on a build (`claim`) holds this long: at 100k chunks a build takes 10-30 s and its upload a
few; a claim older than this was abandoned (its process stopped), and another machine may build."""
OTHER_CODE_DAYS = 7
"""Snapshots of other code (machines not yet upgraded) and unfinished uploads are removed after this long."""
PURPOSE = "index snapshots"
SIGNED = "botyard index snapshot 2"
"""What a signature's message says it is: the form of the message, so that no signature of another form matches."""


def signature(key: bytes, chatbot_uuid: str, version: int, code_key: str, size: int, digest: str) -> str:
    """The HMAC-SHA256 of what a snapshot is for and of its bytes (`digest`: their SHA-256), in one canonical JSON
    encoding (sorted keys, no spaces), so that neither its purpose nor its bytes can change without it changing."""
    claims = {"signed": SIGNED, "chatbot": chatbot_uuid, "version": version, "code_key": code_key, "size": size}
    message = json.dumps(claims | {"sha256": digest}, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


class SharedSnapshots:
    """The snapshots of one instance's database, for the local `snapshots` of this process (see the module)."""

    def __init__(self, database: Database, snapshots: Snapshots, key: bytes) -> None:
        self.database = database
        self.snapshots = snapshots
        self._key = key
        self._publishing: set[asyncio.Task[None]] = set()

    async def fetch(self, chatbot_uuid: str, version: int) -> bool:
        """Download the newest shared snapshot of the chatbot at or before `version` among this machine's snapshots,
        unless this machine has one as new. True when one was put there; errors are logged, never raised."""
        try:
            return await self._fetch(chatbot_uuid, version)
        except Exception:
            log.warning("the shared index snapshot of chatbot %s could not be fetched", chatbot_uuid, exc_info=True)
            return False

    async def _fetch(self, chatbot_uuid: str, version: int) -> bool:
        local = await asyncio.to_thread(self.snapshots.newest, chatbot_uuid, version)
        started = time.perf_counter()
        async with self.database.transaction(write=False) as db:
            repository = SharedSnapshotRepository(db)
            found = await repository.newest(chatbot_uuid, self.snapshots.key, version)
            if found is None or (local is not None and local[0] >= found.version):
                return False
            folder = self.snapshots.folder(chatbot_uuid)
            await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder) as file:
                digest, size = hashlib.sha256(), 0
                async for piece in repository.pieces(found.uuid):
                    digest.update(piece)
                    size += len(piece)
                    await asyncio.to_thread(file.write, piece)
                # What this machine asked for (the chatbot, its code) and what the bytes are, never the row's word.
                expected = signature(
                    self._key, chatbot_uuid, found.version, self.snapshots.key, size, digest.hexdigest()
                )
                if size != found.size or not hmac.compare_digest(expected, found.signature or ""):
                    log.warning(
                        "the shared index snapshot of chatbot %s does not match its signature: not used (signed with "
                        "another key: machines that share a database need the same BOTYARD_SECRET_KEY; signed by an "
                        "earlier release; or made for another chatbot)",
                        chatbot_uuid,
                    )
                    return False
                await asyncio.to_thread(self._unpack, file, folder / f"{found.version}-{self.snapshots.key}")
        took = time.perf_counter() - started
        log.info(
            "retrieval index of chatbot %s fetched from the database in %.2f s: version %d, %.0f MB",
            chatbot_uuid,
            took,
            found.version,
            found.size / 1e6,
        )
        return True

    @staticmethod
    def _unpack(file: IO[bytes], final: Path) -> None:
        """The tar in `file` as the snapshot folder `final`, whole or not at all (renamed into place)."""
        file.seek(0)
        temporary = Path(tempfile.mkdtemp(prefix=f".tmp-{owner()}-", dir=final.parent))
        try:
            with tarfile.open(fileobj=file, mode="r:") as archive:
                archive.extractall(temporary, filter="data")
            with contextlib.suppress(OSError):  # another process of the machine put it there first
                os.rename(temporary, final)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)

    async def claim(self, chatbot_uuid: str, version: int) -> bool:
        """Whether this process may build the chatbot at `version` ahead of its questions (`warmer`): False when
        another process sharing the database claimed it within `CLAIM_SECONDS` or is uploading it; else claimed now
        (the claim is an unsigned row, pruned when the snapshot is published). Machines that start together, as
        after an upgrade that changes every snapshot's key, then share the builds instead of each making all."""
        since = utcnow() - timedelta(seconds=CLAIM_SECONDS)
        async with self.database.transaction() as db:
            return await SharedSnapshotRepository(db).claim(chatbot_uuid, self.snapshots.key, version, since)

    def publish_later(self, chatbot_uuid: str, version: int) -> None:
        """Publish this machine's snapshot of the chatbot at `version`, in the background, unless the database has
        one as new; errors are logged, never raised."""
        task = asyncio.get_running_loop().create_task(self._publish_logged(chatbot_uuid, version))
        self._publishing.add(task)
        task.add_done_callback(self._publishing.discard)

    async def published(self) -> None:
        """Wait for the publications under way (tests, the warmer)."""
        while self._publishing:
            await asyncio.gather(*self._publishing)

    async def _publish_logged(self, chatbot_uuid: str, version: int) -> None:
        try:
            await self.publish(chatbot_uuid, version)
        except Exception:
            log.warning("the index snapshot of chatbot %s could not be shared", chatbot_uuid, exc_info=True)

    async def publish(self, chatbot_uuid: str, version: int) -> bool:
        """See `publish_later`; True when it was written."""
        local = await asyncio.to_thread(self.snapshots.newest, chatbot_uuid, version)
        if local is None or local[0] != version:
            return False
        async with self.database.transaction(write=False) as db:
            found = await SharedSnapshotRepository(db).newest(chatbot_uuid, self.snapshots.key, version)
        if found is not None and found.version >= version:
            return False
        started = time.perf_counter()
        with tempfile.TemporaryFile(dir=local[1].parent) as file:
            await asyncio.to_thread(_pack, local[1], file)
            await self._upload(chatbot_uuid, version, file)
        log.info(
            "retrieval index of chatbot %s shared through the database in %.2f s: version %d",
            chatbot_uuid,
            time.perf_counter() - started,
            version,
        )
        return True

    async def _upload(self, chatbot_uuid: str, version: int, file: IO[bytes]) -> None:
        async with self.database.transaction() as db:
            snapshot_uuid = await SharedSnapshotRepository(db).begin(chatbot_uuid, self.snapshots.key, version)
        try:
            digest, size, seq = hashlib.sha256(), 0, 0
            file.seek(0)
            while piece := await asyncio.to_thread(file.read, PIECE_BYTES):
                digest.update(piece)
                async with self.database.transaction() as db:
                    await SharedSnapshotRepository(db).add_piece(snapshot_uuid, seq, piece)
                size, seq = size + len(piece), seq + 1
            async with self.database.transaction() as db:
                repository = SharedSnapshotRepository(db)
                signed = signature(self._key, chatbot_uuid, version, self.snapshots.key, size, digest.hexdigest())
                await repository.finish(snapshot_uuid, size, signed)
                before = utcnow() - timedelta(days=OTHER_CODE_DAYS)
                await repository.prune(snapshot_uuid, chatbot_uuid, self.snapshots.key, version, before)
        except BaseException:
            await uninterrupted(self._drop(snapshot_uuid))
            raise

    async def _drop(self, snapshot_uuid: str) -> None:
        async with self.database.transaction() as db:
            await SharedSnapshotRepository(db).drop(snapshot_uuid)


def _pack(folder: Path, file: IO[bytes]) -> None:
    """The snapshot `folder` as an uncompressed tar (its vectors do not compress; its texts would, at a CPU cost
    every fetch pays) of relative names."""
    with tarfile.open(fileobj=file, mode="w:") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
