"""The zygote: a clean Python process that imported the parsing libraries once and forks one supervisor per file.

Per job the parent sends one end of a fresh socket pair over the control socket (SCM_RIGHTS). The zygote forks a
supervisor for it and goes back to waiting; it is single-threaded, so forking it is safe (forking the service
itself, with its event loop, threads and database connections, would not be).

The supervisor reads the request, forks the parser child and watches it, keeping no limits itself: it reads the
child's answer (up to a cap), kills the child at the wall-clock limit or when the parent goes away (its end of the
socket closes), reads the child's exit status, and sends the parent one answer: the child's own, or an error made
from how it died. The child sets its hard limits (CPU seconds, address space, no core files, no file writes),
parses with `parse_bytes`, and exits. The zygote exits when the parent closes the control socket or dies."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import json
import logging
import math
import os
import resource
import select
import signal
import socket
import sys
import time

import openpyxl

from botyard.ingestion.parse import wire
from botyard.ingestion.parse.core import parse_bytes
from botyard.ingestion.parse.model import ParseError, ParseLimits

MIB = 1024 * 1024
DATA_CAP = 1 << 40  # the parent already capped the upload; this only guards the framing
PR_SET_PDEATHSIG = 1
_WARM_PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
    b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R "
    b"/Resources << /Font << /F1 5 0 R >> >> >> endobj\n"
    b"4 0 obj << /Length 36 >> stream\nBT /F1 12 Tf 20 100 Td (Warm) Tj ET\nendstream endobj\n"
    b"5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n"
    b"trailer << /Root 1 0 R >>\n%%EOF\n"
)  # no cross-reference table: PDFium rebuilds it, as it does for many real files


def main(control_fd: int) -> None:
    """Serve jobs until the control socket closes."""
    logging.disable(logging.CRITICAL)  # libraries log about damaged files on stderr: noise, the answer says it
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # supervisors are reaped by the kernel
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    _warm_up()
    gc.freeze()  # the imported libraries' objects stay out of collections, so children share their pages longer
    control = socket.socket(fileno=control_fd)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 16, 4)
        except OSError:
            break
        if not message:
            break
        for fd in fds:
            if os.fork() == 0:
                try:
                    control.close()
                    _supervise(fd)
                finally:
                    os._exit(0)
            os.close(fd)


def _warm_up() -> None:
    """Parse a tiny file of the formats whose libraries initialise lazily (trafilatura's first page costs 150 ms,
    openpyxl's first workbook 10 ms), so that the children inherit that work instead of each repeating it."""
    workbook = io.BytesIO()
    openpyxl.Workbook().save(workbook)
    samples = {
        "warm.html": b"<html><head><title>Warm</title></head><body><h1>Up</h1><p>A short page.</p></body></html>",
        "warm.tex": b"\\section{Warm} up",
        "warm.csv": b"a,b\n1,2\n",
        "warm.xlsx": workbook.getvalue(),
        "warm.pdf": _WARM_PDF,
    }
    for name, data in samples.items():
        with contextlib.suppress(ParseError):
            parse_bytes(data, name)


def _supervise(fd: int) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # this process waits for its child
    header_bytes = wire.read_frame(fd, wire.HEADER_CAP)
    data = wire.read_frame(fd, DATA_CAP)
    if header_bytes is None or data is None:
        return
    header = json.loads(header_bytes)
    limits = ParseLimits(**header["limits"])
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.close(fd)
        _child(write_end, data, str(header["name"]), header["content_type"], limits)
    os.close(write_end)
    del data
    answer = _watch(pid, read_end, fd, limits)
    with contextlib.suppress(OSError):  # the parent went away; nobody is waiting for this answer
        _write_all(fd, wire.frame(answer))


def _child(fd: int, data: bytes, name: str, content_type: str | None, limits: ParseLimits) -> None:
    try:
        _die_with_parent()
        _limit(limits)
        payload = wire.encode_document(parse_bytes(data, name, content_type, limits))
    except ParseError as error:
        payload = wire.encode_error(error.reason, error.detail)
    except MemoryError:
        payload = wire.encode_error("memory", "the file needs more memory than the limit")
    except BaseException as error:  # a library failing in a way nobody foresaw: this file is the likely cause
        payload = wire.encode_error("corrupt", f"{type(error).__name__}: {error}")
    try:
        _write_all(fd, wire.frame(payload))
    finally:
        os._exit(0)


def _limit(limits: ParseLimits) -> None:
    cpu = max(1, math.ceil(limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the soft limit, SIGKILL a second later
    memory = limits.memory_mb * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # a parser has no business writing files
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so a write fails with an error instead of killing us


def _die_with_parent() -> None:
    """Have the kernel kill this child if its supervisor dies first (Linux), so no parser outlives its watch."""
    if sys.platform.startswith("linux"):
        supervisor = os.getppid()
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != supervisor:  # it died before the call above
            os._exit(1)


def _watch(pid: int, answer_fd: int, job_fd: int, limits: ParseLimits) -> bytes:
    deadline = time.monotonic() + limits.wall_seconds
    cap = wire.answer_cap(limits) + 8
    buffer = bytearray()
    killed: str | None = None
    poller = select.poll()
    poller.register(answer_fd, select.POLLIN)
    poller.register(job_fd, select.POLLIN)  # the parent sends nothing more: readable means it closed its end
    while killed is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            killed = "timeout"
            break
        events = dict(poller.poll(remaining * 1000))
        if job_fd in events:
            os.kill(pid, signal.SIGKILL)
            os._exit(0)
        if answer_fd in events:
            chunk = os.read(answer_fd, 1 << 20)
            if not chunk:
                break
            buffer += chunk
            if len(buffer) > cap:
                killed = "too large"
    if killed:
        os.kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    if killed == "timeout":
        return wire.encode_error("timeout", f"over the wall-clock limit of {limits.wall_seconds:g} s")
    if killed:
        return wire.encode_error("too large", "the parsed text is over the answer cap")
    if len(buffer) > 8 and int.from_bytes(buffer[:8], "big") == len(buffer) - 8:
        return bytes(buffer[8:])
    return _death(status, usage.ru_utime + usage.ru_stime, limits)


def _death(status: int, cpu: float, limits: ParseLimits) -> bytes:
    """An answer for a child that died without one."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGXCPU or (number == signal.SIGKILL and cpu >= limits.cpu_seconds - 0.5):
            return wire.encode_error("timeout", f"over the CPU limit of {limits.cpu_seconds:g} s")
        if number == signal.SIGKILL:  # not ours: the kernel's out-of-memory killer
            return wire.encode_error("memory", "killed by the system, likely out of memory")
        return wire.encode_error("crashed", f"the parser died of {signal.strsignal(number) or number}")
    return wire.encode_error("crashed", f"the parser exited with status {os.waitstatus_to_exitcode(status)}")


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


if __name__ == "__main__":
    main(int(sys.argv[1]))
