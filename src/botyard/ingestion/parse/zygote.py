"""The zygote: a clean Python process that imported the parsing libraries once and forks the sandbox's processes.

Per connection the parent sends one end of a fresh socket pair over the control socket (SCM_RIGHTS). The zygote
forks a supervisor for it and goes back to waiting; it is single-threaded, so forking it is safe (forking the
service itself, with its event loop, threads and database connections, would not be).

The supervisor serves the connection's requests one at a time, keeping no limits itself. It hands each file to its
parser child, reads the child's answer (up to a cap), kills the child at the wall-clock limit or when the parent
goes away (its end of the socket closes), and sends the parent one answer: the child's own, or an error made from
how it died. The child and the supervisor's handle on it are in `child`. The zygote exits when the parent closes
the control socket or dies."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import logging
import os
import signal
import socket
import sys

import openpyxl

from botyard.ingestion.parse import wire
from botyard.ingestion.parse.child import DATA_CAP, ParserChild, write_all
from botyard.ingestion.parse.core import parse_bytes
from botyard.ingestion.parse.model import ParseError, ParseLimits

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
    """Serve the parent's requests on `fd`, one at a time, until it closes its end."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # this process waits for its child
    parser: ParserChild | None = None
    try:
        while True:
            header_bytes = wire.read_frame(fd, wire.HEADER_CAP)
            data = wire.read_frame(fd, DATA_CAP)
            if header_bytes is None or data is None:
                return
            limits = ParseLimits(**json.loads(header_bytes)["limits"])
            request = wire.frame(header_bytes) + wire.frame(data)
            del data
            if parser is None or not parser.send(request):
                if parser is not None:  # it died while it waited: a fresh one takes the file
                    parser.retire()
                parser = ParserChild.start(fd)
                if not parser.send(request):
                    answer = wire.encode_error("crashed", "the parser died before it read the file")
                    parser.retire()
                    parser = None
                    _answer(fd, answer)
                    continue
            del request
            answer = parser.watch(fd, limits)
            if not parser.fit_for_another():
                parser.retire()
                parser = None
            _answer(fd, answer)
    finally:
        if parser is not None:
            parser.retire()


def _answer(fd: int, answer: bytes) -> None:
    try:
        write_all(fd, wire.frame(answer))
    except OSError:  # the parent went away; nobody is waiting for this answer
        os._exit(0)


if __name__ == "__main__":
    main(int(sys.argv[1]))
