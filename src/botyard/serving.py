"""`botyard serve`'s processes: one on --host/--port or on an inherited socket (`--fd`), or `--workers N`: N server
processes, each with a listening socket of its own on the one port.

uvicorn's own `--workers` shares one listening socket: whichever worker wakes first accepts every connection that
is waiting, so a burst of keep-alive connections (a proxy's, or eight clients starting together) can land on one
worker and leave the others idle; measured here, one worker did 46.7 of 47.3 CPU seconds. With `SO_REUSEPORT`
each worker listens on its own socket and the kernel spreads new connections over them.

The supervisor (this process) reserves the port first, so a port in use fails at once with a clear message, starts
the workers, starts a new one when one dies, and on SIGINT or SIGTERM stops them all (uvicorn's graceful shutdown
in each: open requests finish). A worker whose supervisor was killed outright stops by itself within a second.

Metrics: the supervisor makes a fresh directory for the run and names it to its workers as `PROMETHEUS_MULTIPROC_DIR`
(before they start: prometheus-client chooses its multiprocess mode when it is imported), so each worker writes its
counts to files of its own there and a scrape answered by any worker sums them all. A dead worker's gauges are
dropped (`mark_process_dead`); its counts stay in the sums, as counters must. The directory goes with the run.

`--fd N` serves on a socket that the process which started botyard bound and handed down as file descriptor N
(systemd's socket activation, a supervisor of one's own, a test that holds its port for as long as it needs it): no
bind here, so nothing else can take the port between the parent choosing it and the server listening on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import multiprocessing.process
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from fastapi import FastAPI

    from botyard.config import Settings

log = logging.getLogger(__name__)

STOP_SECONDS = 30.0
"""How long stopping workers may take their open requests to finish before they are killed."""
RESTART_PAUSE = 1.0
"""Seconds between restarts of workers that keep dying, so that a broken set-up does not spin."""
ORPHAN_CHECK_SECONDS = 0.5
"""How often a worker checks that its supervisor is still its parent."""
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""The variable prometheus-client's multiprocess mode reads (`Settings.metrics_dir` reads it in the workers)."""


def listening_socket(host: str, port: int, *, listen: bool = True) -> socket.socket:
    """A TCP socket bound to (host, port) with SO_REUSEPORT, listening unless told otherwise.

    Made with its protocol named (`IPPROTO_TCP`, not the default 0), which the connections it accepts inherit:
    asyncio sets `TCP_NODELAY` only on sockets whose protocol says TCP. Without it, uvicorn's response head and body
    (two writes) met Nagle's algorithm and the client's delayed ACK, and every answer after the first on a keep-alive
    connection waited about 40 ms."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        if listen:
            sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


class InheritedSocket(click.ParamType[socket.socket, object]):
    """`--fd N`: the bound TCP socket inherited as file descriptor N (listening, or listened on here)."""

    name = "fd"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> socket.socket:
        if isinstance(value, socket.socket):
            return value
        try:
            # Family, type and protocol are read from the descriptor. uvicorn's own `--fd` wraps it as AF_UNIX: the
            # connections it accepts then get no TCP_NODELAY (see `listening_socket`) and a garbled peer address.
            sock = socket.socket(fileno=int(str(value)))
        except (ValueError, OSError) as error:
            self.fail(f"{value} is not the file descriptor of a socket this process inherited ({error})", param, ctx)
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
            sock.detach()  # not ours to close
            self.fail(f"file descriptor {value} is not a TCP socket", param, ctx)
        if sock.getsockname()[1] == 0:
            sock.detach()
            self.fail(f"the socket of file descriptor {value} is not bound to a port: bind it first", param, ctx)
        sock.set_inheritable(False)  # as a socket made here is: a program this one starts must not keep the port
        return sock


def offer_setup(settings: Settings, host: str, port: int) -> None:
    """While no account exists, print the one-time link that creates the first one from the dashboard."""
    from botyard.db.session import Database
    from botyard.identity.accounts import setup

    async def needed() -> bool:
        database = Database.from_settings(settings)
        try:
            async with database.transaction(write=False) as db:
                return await setup.needs_setup(db)
        finally:
            await database.dispose()

    if not asyncio.run(needed()):
        return
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host  # noqa: S104 (a listening address to show)
    link = f"http://{shown}:{port}/dashboard#setup={setup.offer(settings)}"
    click.echo(f"No account yet. Create yours in the dashboard (this link works once):\n  {link}\n", err=True)


def serve_one(app: FastAPI, host: str, port: int, inherited: socket.socket | None, log_config: dict[str, Any]) -> None:
    """One server process: uvicorn on (host, port), or on the inherited socket (whose address host and port are)."""
    import uvicorn

    if inherited is None:
        uvicorn.run(app, host=host, port=port, proxy_headers=False, log_config=log_config)
        return
    server = uvicorn.Server(uvicorn.Config(app, proxy_headers=False, log_config=log_config))
    # uvicorn says where it listens only for an address it bound itself.
    log.info("serving on http://%s:%d (the socket of file descriptor %d)", host, port, inherited.fileno())
    server.run(sockets=[inherited])
    if not server.started:
        sys.exit(3)  # as `uvicorn.run` ends a start-up that failed (its STARTUP_FAILURE)


def run_worker(host: str, port: int, supervisor: int, log_config: dict[str, Any] | None = None) -> None:
    """One worker process: the app from the environment's settings, on its own socket.

    The socket is bound here but listens only once the app has started (uvicorn's server calls `listen` after the
    lifespan start-up): a socket of the port's group that listens takes its share of new connections at once, and
    a worker still starting (a replacement, under load) would hold them unanswered for as long as it starts.
    `log_config` is the supervisor's (`botyard.logs.log_config`); None keeps uvicorn's own."""
    import uvicorn

    threading.Thread(target=_stop_when_orphaned, args=(supervisor,), name="botyard-orphan-watch", daemon=True).start()
    logging_config: dict[str, Any] | str | None = log_config or uvicorn.config.LOGGING_CONFIG
    config = uvicorn.Config("botyard.main:create_app", factory=True, proxy_headers=False, log_config=logging_config)
    sock = listening_socket(host, port, listen=False)
    uvicorn.Server(config).run(sockets=[sock])


def _stop_when_orphaned(supervisor: int) -> None:
    """Stop this worker once its supervisor is gone (`kill -9` skips the supervisor's own stop): an orphan would go
    on serving the port and running jobs beside the next `serve`. It stops as on SIGTERM (open requests finish),
    and is ended outright if that takes longer than `STOP_SECONDS`."""
    while os.getppid() == supervisor:
        time.sleep(ORPHAN_CHECK_SECONDS)
    log.warning("the supervisor (pid %d) is gone; this worker stops", supervisor)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(STOP_SECONDS)
    os._exit(1)


class Supervisor:
    def __init__(self, host: str, port: int, workers: int, log_config: dict[str, Any] | None = None) -> None:
        self.host = host
        self.log_config = log_config
        self.port = port
        self.count = workers
        self.context = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing inherited but settings
        self.workers: list[multiprocessing.process.BaseProcess] = []
        self.stopping = False
        self.metrics_dir: str | None = None

    def run(self) -> None:
        with listening_socket(self.host, self.port, listen=False), _metrics_dir() as metrics:  # holds the port
            self.metrics_dir = metrics
            previous = {number: signal.signal(number, self._stop) for number in (signal.SIGINT, signal.SIGTERM)}
            try:
                self.workers = [self._start() for _ in range(self.count)]
                while not self.stopping:
                    self._replace_dead()
                    time.sleep(0.2)
            finally:
                self._stop_all()
                for number, handler in previous.items():
                    signal.signal(number, handler)

    def _start(self) -> multiprocessing.process.BaseProcess:
        arguments = (self.host, self.port, os.getpid(), self.log_config)
        process = self.context.Process(target=run_worker, args=arguments, name="botyard-worker")
        process.start()
        return process

    def _replace_dead(self) -> None:
        for index, process in enumerate(self.workers):
            if not process.is_alive() and not self.stopping:
                log.warning("worker %s exited with %s; starting another", process.pid, process.exitcode)
                self._forget(process)
                time.sleep(RESTART_PAUSE)
                self.workers[index] = self._start()

    def _stop(self, number: int, _frame: FrameType | None) -> None:
        self.stopping = True

    def _stop_all(self) -> None:
        for process in self.workers:
            if process.is_alive() and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()  # SIGTERM: uvicorn finishes open requests, then exits
        deadline = time.monotonic() + STOP_SECONDS
        for process in self.workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
            self._forget(process)

    def _forget(self, process: multiprocessing.process.BaseProcess) -> None:
        """Drop a dead worker's live gauges from the metrics."""
        from prometheus_client.multiprocess import mark_process_dead

        if process.pid is not None and self.metrics_dir is not None:
            mark_process_dead(process.pid, self.metrics_dir)  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def _metrics_dir() -> Iterator[str]:
    """A fresh directory for the run's metrics, named to the workers (spawned: they inherit the environment), and
    removed with whatever the workers wrote there."""
    path = tempfile.mkdtemp(prefix="botyard-metrics-")
    os.environ[MULTIPROC_DIR] = path
    try:
        yield path
    finally:
        os.environ.pop(MULTIPROC_DIR, None)
        shutil.rmtree(path, ignore_errors=True)


def serve_workers(host: str, port: int, workers: int, log_config: dict[str, Any] | None = None) -> None:
    Supervisor(host, port, workers, log_config).run()
