"""What gets installed: the wheel carries every data file the package reads (setuptools only ships what
`package-data` names), constraints.txt pins what pyproject.toml pins, and a pip older than 23.3 (Debian 12's 23.0.1)
installs everything the service imports."""

from __future__ import annotations

import tomllib
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tests.support.paths import REPO
from tests.support.waiting import START

ROOT = REPO
PACKAGE = ROOT / "src" / "botyard"
PYPROJECT = ROOT / "pyproject.toml"
CONSTRAINTS = ROOT / "constraints.txt"


def _requirements() -> list[Requirement]:
    """Every dependency pyproject.toml names, its extras' (dev) included."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    optional = [line for group in project["optional-dependencies"].values() for line in group]
    return [Requirement(line) for line in [*project["dependencies"], *optional]]


def _pins() -> dict[NormalizedName, str]:
    pins: dict[NormalizedName, str] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, equals, version = line.partition("==")
        assert equals and version.strip() and "," not in version, f"constraints.txt: {line!r} is not name==version"
        assert canonicalize_name(name) not in pins, f"constraints.txt pins {name} twice"
        pins[canonicalize_name(name)] = version.strip()
    return pins


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


def test_constraints_pin_every_dependency_of_pyproject_at_its_version() -> None:
    pins = _pins()
    unpinned = [str(req) for req in _requirements() if canonicalize_name(req.name) not in pins]
    assert unpinned == [], "constraints.txt misses these: run make lock"
    drifted = [
        f"{req} (constraints.txt: {pins[canonicalize_name(req.name)]})"
        for req in _requirements()
        if not req.specifier.contains(pins[canonicalize_name(req.name)], prereleases=True)
    ]
    assert drifted == [], "constraints.txt pins other versions than pyproject.toml: run make lock"
    # make upgrades pip to the pinned one, so that every install of the venv resolves alike.
    assert "pip" in pins


def test_no_dependency_of_pyproject_asks_for_an_extra() -> None:
    # An extra is resolved by the installer, and pip before 23.3 skips one whose name is spelled otherwise than the
    # provider declares it (`html_clean` for `html-clean`): name what an extra would bring as a dependency of its own.
    assert [str(req) for req in _requirements() if req.extras] == []


def test_what_a_dependency_asks_for_under_a_respelled_extra_is_a_dependency_of_pyproject() -> None:
    # jusText (under trafilatura) asks for lxml[html_clean]; lxml declares `html-clean`, which Debian 12's pip does not
    # match, so it installed no lxml_html_clean and the service could not start (issue 19). Checked on the
    # distributions installed here, through every dependency of pyproject.toml.
    named = {canonicalize_name(req.name) for req in _requirements()}
    queue = [(canonicalize_name(req.name), "") for req in _requirements()]
    seen: set[tuple[NormalizedName, str]] = set()
    missing: list[str] = []
    while queue:
        name, extra = queue.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        for req in _requires(name, extra):
            queue += [(canonicalize_name(req.name), ""), *((canonicalize_name(req.name), x) for x in req.extras)]
            missing += _respelled_extra_requirements(req, named)
    assert missing == [], "pip before 23.3 would not install these: add them to pyproject.toml's dependencies"


def _requires(name: str, extra: str) -> list[Requirement]:
    """What the installed distribution `name` requires here, by itself (`extra` "") or for one of its extras."""
    try:
        requires = metadata.distribution(name).requires or []
    except metadata.PackageNotFoundError:
        return []  # a dependency of another platform or Python, or an extra no one installed
    applies = [req for req in map(Requirement, requires) if req.marker is None or req.marker.evaluate({"extra": extra})]
    if not extra:
        return applies
    return [req for req in applies if req.marker is not None and not req.marker.evaluate({"extra": ""})]


def _respelled_extra_requirements(req: Requirement, named: set[NormalizedName]) -> list[str]:
    """What `req`'s extras bring that pyproject.toml does not name, for the extras its provider spells otherwise."""
    try:
        declared = metadata.distribution(req.name).metadata.get_all("Provides-Extra") or []
    except metadata.PackageNotFoundError:
        return []
    return [
        f"{req} brings {brought.name} (extra {extra!r}; {req.name} declares {declared})"
        for extra in sorted(req.extras - set(declared))
        for brought in _requires(req.name, extra)
        if canonicalize_name(brought.name) not in named
    ]


def test_httpcore_finds_sniffio_without_searching_the_disk() -> None:
    """httpcore imports sniffio at every lock it makes (each request to a model or a scraped site); when it is not
    installed, each of those imports searches every directory of sys.path again."""
    import subprocess
    import sys

    code = (
        "import asyncio, sys, httpcore._synchronization as s\n"
        "async def main():\n"
        "    s.current_async_library()\n"
        "    print('sniffio' in sys.modules)\n"
        "asyncio.run(main())\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=START)
    assert found.stdout.strip() == "True"
