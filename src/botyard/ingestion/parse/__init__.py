"""The parse stage: a file's bytes to Markdown (`ParsedDocument`), in a sandboxed child process.

    parse_file(data, name, limits)  async; the service's entry point (sandbox.py)
    core.parse_bytes(data, name, ...)  the same parse, in this process (what the sandboxed child runs)

Exceptions:

    ParseError(reason, detail)      this file cannot be parsed; `reason` is one of model.Reason
    SandboxError                    the sandbox itself failed; not the file's fault, worth a retry

Formats, one module a family: pdf, office (docx, pptx), doc, sheets (xlsx, xls, csv), html, text (txt, md, json),
tex. `sniff` decides what a file really is, `guard` checks zip packages before any library opens them. The sandbox:
`sandbox` (the service's side), `zygote` (the process that forks), `child` (the parser child), `wire` (framing).

This package's names do not import `core`: the parsing libraries load only in the sandbox's processes, never in the
service's (about 120 MB of each worker's memory)."""

from botyard.ingestion.parse.model import ParsedDocument, ParseError, ParseLimits, Reason, SandboxError
from botyard.ingestion.parse.sandbox import Sandbox, parse_file, warm_up

__all__ = [
    "ParseError",
    "ParseLimits",
    "ParsedDocument",
    "Reason",
    "Sandbox",
    "SandboxError",
    "parse_file",
    "warm_up",
]
