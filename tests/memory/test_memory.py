"""What a worker holds: the parsing libraries stay in the sandbox's processes, and memory freed after a peak goes
back to the system."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from botyard.memory import _malloc_trim, release_free_memory
from tests.support.waiting import START

PARSERS = ("pdfplumber", "pypdfium2", "openpyxl", "docx", "pptx", "trafilatura", "xlrd")


def test_the_service_does_not_import_the_parsing_libraries() -> None:
    """They load in the sandbox's zygote (`ingestion.parse`); in each worker too they cost about 40 MB."""
    probe = "import sys, botyard.main; print(sorted({name.split('.')[0] for name in sys.modules}))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=START
    ).stdout
    assert "botyard" in loaded
    assert [name for name in PARSERS if f"'{name}'" in loaded] == []


def _resident_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(_malloc_trim() is None, reason="glibc's malloc_trim only")
def test_freed_memory_goes_back_to_the_system() -> None:
    # 4 kB objects come from malloc's heap (under its mmap threshold); one kept in eight pins the heap's top, so
    # freeing the others leaves about 100 MB free inside the heap, which malloc keeps until trimmed.
    blocks = [bytes(4000) + str(index).encode() for index in range(30_000)]
    kept = blocks[::8]
    del blocks
    held = _resident_kb()
    release_free_memory()
    assert held - _resident_kb() > 40_000
    assert len(kept) == 3750


LARGE_BLOCKS = """
import re, sys
from pathlib import Path
from botyard.memory import keep_large_blocks_apart
def resident_kb():
    return int(re.search(r"VmRSS:\\s+(\\d+)", Path("/proc/self/status").read_text())[1])
if sys.argv[1] == "apart":
    keep_large_blocks_apart()
freed = bytearray(20 << 20)
del freed  # glibc would now take blocks under 20 MB from its heap
blocks, pins = [], []
for _ in range(200):  # 100 MB of 512 kB blocks, each followed by a small block that outlives it
    blocks.append(bytearray(512 << 10))
    pins.append(bytearray(2048))
held = resident_kb()
del blocks
print(held - resident_kb())
"""


@pytest.mark.skipif(_malloc_trim() is None, reason="glibc only")
def test_large_blocks_go_back_to_the_system_as_soon_as_they_are_freed() -> None:
    def returned_kb(mode: str) -> int:
        command = [sys.executable, "-c", LARGE_BLOCKS, mode]
        run = subprocess.run(command, check=True, capture_output=True, text=True, timeout=START)
        return int(run.stdout)

    assert returned_kb("apart") > 90_000
    assert returned_kb("default") < 20_000  # what the setting changes: by default the freed blocks' pages stay
