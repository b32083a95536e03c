"""The parser child: a process forked by a supervisor (see `zygote`) that parses the files it is sent, one at a time,
each under its own limits, and the supervisor's handle on it (`ParserChild`), which watches each file to its answer.

The child sets each file's limits (CPU seconds from what it spent so far, address space; no core files, no file
writes) and parses it with `parse_bytes`. The handle kills it at the wall-clock limit or when the parent goes away,
makes an error of how it died when it died without an answer, and retires it after a failure, after many files, or
once it grew."""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import resource
import select
import signal
import sys
import time

from botyard.ingestion.parse import wire
from botyard.ingestion.parse.core import parse_bytes
from botyard.ingestion.parse.model import ParseError, ParseLimits

MIB = 1024 * 1024
DATA_CAP = 1 << 40  # the parent already capped the upload; this only guards the framing
FILES_PER_CHILD = 200
GROWTH_CAP = 64 * MIB
PR_SET_PDEATHSIG = 1


class ParserChild:
    """The supervisor's parser child and the pipes to it. It serves files one after the other, so that a web page
    costs one parse, not two forks and the page faults of a fresh process; it is replaced after a failure, after
    `FILES_PER_CHILD` files, or once its address space grew `GROWTH_CAP` (so every file finds about the memory a
    fresh child would)."""

    def __init__(self, pid: int, requests: int, answers: int) -> None:
        self.pid = pid
        self.requests = requests
        self.answers = answers
        self.served = 0
        self.healthy = True
        self.base_size = _address_space(pid)

    @classmethod
    def start(cls, job_fd: int) -> ParserChild:
        request_read, request_write = os.pipe()
        answer_read, answer_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            for unused in (job_fd, request_write, answer_read):
                os.close(unused)
            child_main(request_read, answer_write)
        os.close(request_read)
        os.close(answer_write)
        return cls(pid, request_write, answer_read)

    def send(self, request: bytes) -> bool:
        """Hand the child a request; False if it is gone."""
        try:
            write_all(self.requests, request)
        except OSError:
            self.healthy = False
            return False
        return True

    def watch(self, job_fd: int, limits: ParseLimits) -> bytes:
        """The answer to the request just sent: the child's own, or an error made from how it died or was
        stopped. Kills the child at the wall-clock limit, and exits if the parent goes away meanwhile."""
        deadline = time.monotonic() + limits.wall_seconds
        cap = wire.answer_cap(limits)
        buffer = bytearray()
        poller = select.poll()
        poller.register(self.answers, select.POLLIN)
        poller.register(job_fd, select.POLLIN)  # the parent sends nothing meanwhile: readable means it closed
        stopped: str | None = None
        while stopped is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                stopped = "timeout"
                break
            events = dict(poller.poll(remaining * 1000))
            if job_fd in events:
                os.kill(self.pid, signal.SIGKILL)
                os._exit(0)
            if self.answers not in events:
                continue
            chunk = os.read(self.answers, 1 << 20)
            if not chunk:
                break  # it died without a whole answer
            buffer += chunk
            if len(buffer) >= 8:
                size = int.from_bytes(buffer[:8], "big")
                if size > cap:
                    stopped = "too large"
                elif len(buffer) >= 8 + size:
                    self.served += 1
                    answer = bytes(buffer[8 : 8 + size])
                    self.healthy = not answer.startswith(b'{"error"')  # a failed parse may leave a mess behind
                    return answer
        self.healthy = False
        if stopped:
            os.kill(self.pid, signal.SIGKILL)
        _, status, _ = os.wait4(self.pid, 0)
        self.pid = 0
        if stopped == "timeout":
            return wire.encode_error("timeout", f"over the wall-clock limit of {limits.wall_seconds:g} s")
        if stopped:
            return wire.encode_error("too large", "the parsed text is over the answer cap")
        return _death(status)

    def fit_for_another(self) -> bool:
        if not self.healthy or self.served >= FILES_PER_CHILD:
            return False
        return _address_space(self.pid) <= self.base_size + GROWTH_CAP

    def retire(self) -> None:
        for fd in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0


def _address_space(pid: int) -> int:
    """The process's virtual size in bytes (Linux); a huge number where it cannot be read, so the child retires."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 1 << 62


def child_main(requests: int, answers: int) -> None:
    """Parse the files the supervisor sends, one at a time, each under its own limits, until it closes the pipe."""
    try:
        _die_with_parent()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # a parser has no business writing files
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so a write fails with an error instead of killing us
        while True:
            header_bytes = wire.read_frame(requests, wire.HEADER_CAP)
            data = wire.read_frame(requests, DATA_CAP)
            if header_bytes is None or data is None:
                break
            header = json.loads(header_bytes)
            limits = ParseLimits(**header["limits"])
            _limit(limits)
            payload = _parse(data, str(header["name"]), header["content_type"], limits)
            del data
            write_all(answers, wire.frame(payload))
            del payload
    finally:
        os._exit(0)


def _parse(data: bytes, name: str, content_type: str | None, limits: ParseLimits) -> bytes:
    try:
        return wire.encode_document(parse_bytes(data, name, content_type, limits))
    except ParseError as error:
        return wire.encode_error(error.reason, error.detail)
    except MemoryError:
        return wire.encode_error("memory", "the file needs more memory than the limit")
    except BaseException as error:  # a library failing in a way nobody foresaw: this file is the likely cause
        return wire.encode_error("corrupt", f"{type(error).__name__}: {error}")


def _limit(limits: ParseLimits) -> None:
    """This file's limits. The CPU limit counts from what the child already spent; SIGXCPU (default: terminate)
    stops it there. The hard limits stay open, since a process cannot raise them again for the next file: the
    supervisor's wall clock is the backstop."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    spent = usage.ru_utime + usage.ru_stime
    cpu = math.ceil(spent + max(1.0, limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    memory = limits.memory_mb * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, resource.getrlimit(resource.RLIMIT_AS)[1]))


def _die_with_parent() -> None:
    """Have the kernel kill this child if its supervisor dies first (Linux), so no parser outlives its watch."""
    if sys.platform.startswith("linux"):
        supervisor = os.getppid()
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != supervisor:  # it died before the call above
            os._exit(1)


def _death(status: int) -> bytes:
    """An answer for a child that died without one. Nothing but the kernel's out-of-memory killer sends it a
    SIGKILL we did not send ourselves (its hard limits are open)."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGXCPU:
            return wire.encode_error("timeout", "over the CPU limit")
        if number == signal.SIGKILL:
            return wire.encode_error("memory", "killed by the system, likely out of memory")
        return wire.encode_error("crashed", f"the parser died of {signal.strsignal(number) or number}")
    return wire.encode_error("crashed", f"the parser exited with status {os.waitstatus_to_exitcode(status)}")


def write_all(fd: int, payload: bytes) -> None:
    """Write all of `payload` to `fd`, however many writes it takes."""
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]
