"""The wheel carries every data file the package reads: setuptools only ships what `package-data` names."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "botyard"
PYPROJECT = ROOT / "pyproject.toml"


def test_every_data_file_of_the_package_is_declared_package_data() -> None:
    patterns = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["botyard"]
    # Path.glob's `*` stays within one directory, as setuptools' package-data globs do.
    declared = {path for pattern in patterns for path in PACKAGE.glob(pattern)}
    data_files = {
        path
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    }
    assert data_files, "the package has data files (the tokenizer, the model catalogue, the dashboard)"
    assert sorted(str(path.relative_to(PACKAGE)) for path in data_files - declared) == []
