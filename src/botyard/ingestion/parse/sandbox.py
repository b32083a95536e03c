"""`parse_file`: parse one file in a sandboxed child process, without blocking the event loop.

One zygote process per service process (started on first use, or by `warm_up()` in the app's lifespan, restarted
if it dies) forks a supervisor per connection, and the supervisor a parser child; see `zygote`. Connections are
kept for the next file (up to `IDLE_CONNECTIONS` idle ones), and so are their children while they stay healthy:
a web page costs one parse in a warm process, not two forks. Cancelling `parse_file` closes its connection, and
the supervisor kills the child."""

from __future__ import annotations

import asyncio
import atexit
import socket
import subprocess
import sys
import threading
from pathlib import Path

from botyard.ingestion.parse import wire
from botyard.ingestion.parse.model import ParsedDocument, ParseError, ParseLimits, SandboxError

# The parent's own backstop over the supervisor's wall-clock limit (which counts from the request it received).
GRACE_SECONDS = 10.0
IDLE_CONNECTIONS = 4
"""Connections kept for the next file: as many as files are parsed at once by default (the job concurrency)."""
_SOURCE_ROOT = str(Path(__file__).resolve().parents[3])  # the directory holding the botyard package
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from botyard.ingestion.parse.zygote import main; main(int(sys.argv[2]))"
)


class Sandbox:
    """A zygote process and the control socket to it. Thread-safe; any event loop may use it."""

    def __init__(self, idle_connections: int = IDLE_CONNECTIONS) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._idle: list[socket.socket] = []
        self._idle_cap = idle_connections

    @property
    def pid(self) -> int | None:
        """The zygote's process id while it runs (for monitoring)."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def start(self) -> None:
        """Start the zygote now rather than on the first file (it takes about a second to import)."""
        with self._lock:
            self._ensure()

    def connect(self) -> tuple[socket.socket, bool]:
        """A connection to a supervisor, ready for a request, and whether it served one before (an idle one may
        have died since). Blocking; call it from a thread."""
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self.open_job(), False

    def release(self, connection: socket.socket) -> None:
        """Keep a connection whose request was answered for the next file."""
        with self._lock:
            if len(self._idle) < self._idle_cap and self._control is not None:
                self._idle.append(connection)
                return
        connection.close()

    def open_job(self) -> socket.socket:
        """A socket to a new supervisor (blocking; call it from a thread)."""
        ours, theirs = socket.socketpair()
        try:
            with self._lock:
                for attempt in range(2):
                    try:
                        socket.send_fds(self._ensure(), [b"j"], [theirs.fileno()])
                        break
                    except OSError as error:
                        self._stop()  # the zygote died: start a new one, once
                        if attempt:
                            ours.close()
                            raise SandboxError(f"cannot reach the parser sandbox: {error}") from error
        finally:
            theirs.close()
        return ours

    def close(self) -> None:
        """Stop the zygote and the idle supervisors; files being parsed finish on their own."""
        with self._lock:
            for connection in self._idle:
                connection.close()  # its supervisor sees the end and exits, its child with it
            self._idle.clear()
            self._stop()

    def _ensure(self) -> socket.socket:
        if self._process is not None and self._control is not None and self._process.poll() is None:
            return self._control
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # one message per job
        try:
            self._process = subprocess.Popen(  # noqa: S603 - our own interpreter and module, no shell
                [sys.executable, "-c", _BOOT, _SOURCE_ROOT, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C in the terminal is for the service, not for the zygote
            )
        except OSError as error:
            ours.close()
            raise SandboxError(f"cannot start the parser sandbox: {error}") from error
        finally:
            theirs.close()
        self._control = ours
        return ours

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()  # the zygote sees the end of its control socket and exits
            self._control = None
        if self._process is not None:
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None


_default = Sandbox()
atexit.register(_default.close)


def warm_up() -> None:
    """Start the shared zygote (call from the app's lifespan or a worker's start, in a thread)."""
    _default.start()


async def parse_file(
    data: bytes,
    file_name: str,
    limits: ParseLimits = ParseLimits(),  # noqa: B008 - frozen, so one shared default is safe
    *,
    content_type: str | None = None,
    sandbox: Sandbox | None = None,
) -> ParsedDocument:
    """Parse one file in a sandboxed child process. Raises `ParseError` for this file (its `reason` is the
    source's `error:<reason>`), `SandboxError` when the sandbox itself fails (worth a retry)."""
    box = sandbox or _default
    request = wire.request(data, file_name, content_type, limits)
    connection, reused = await asyncio.to_thread(box.connect)
    answer = await _exchange(connection, request, limits)
    if answer is None and reused:  # an idle supervisor that died meanwhile: a new one takes the file
        connection = await asyncio.to_thread(box.open_job)
        answer = await _exchange(connection, request, limits)
    if answer is None:  # the supervisor always answers, even for a child that died: the sandbox itself failed
        raise SandboxError("the parser sandbox closed without an answer")
    box.release(connection)
    return wire.decode_answer(answer)


async def _exchange(connection: socket.socket, request: list[bytes], limits: ParseLimits) -> bytes | None:
    """Send one request and read its answer; None if the supervisor is gone. The connection is closed unless an
    answer came (also when this is cancelled: the supervisor then kills the child)."""
    answered = False
    try:
        connection.setblocking(False)
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(limits.wall_seconds + GRACE_SECONDS):
            for part in request:
                await loop.sock_sendall(connection, part)
            answer = await wire.read_frame_async(connection, wire.answer_cap(limits))
        answered = answer is not None
        return answer
    except TimeoutError as error:
        raise ParseError("timeout", "the sandbox did not answer in time") from error
    except OSError:
        return None
    finally:
        if not answered:
            connection.close()
