"""docs/configuration.md names every setting by the variable that sets it: a setting added to `Settings` without a
line there fails here, so the reference stays whole."""

from __future__ import annotations

import pytest

from botyard.config import Settings
from tests.support.paths import REPO

REFERENCE = REPO / "docs" / "configuration.md"


def variable(name: str) -> str:
    """The environment variable of a setting: its alias when it has one, else the prefix and its name."""
    alias = Settings.model_fields[name].validation_alias
    return alias if isinstance(alias, str) else f"{Settings.model_config.get('env_prefix', '')}{name}".upper()


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_configuration_reference(name: str) -> None:
    assert f"`{variable(name)}`" in REFERENCE.read_text(), f"{variable(name)} is missing from docs/configuration.md"
