"""docs/channels.md names what an owner meets: every error code the channels answer with (with what to do, in its
tables) and every setting of the channels, by the variable that sets it. A code or a setting added without its line
there fails here."""

from __future__ import annotations

import re

import pytest

from botyard.config import Settings
from botyard.config.channels import ChannelApiSettings
from botyard.errors import ErrorCode
from tests.support.paths import REPO

GUIDE = REPO / "docs" / "channels.md"
SOURCE = REPO / "src" / "botyard" / "channels"


def codes() -> list[str]:
    """The error codes the channels package answers with (those it makes an `AppError` of)."""
    found = set()
    for path in SOURCE.glob("*.py"):
        found |= {ErrorCode[name].value for name in re.findall(r"AppError\(\s*ErrorCode\.([A-Z_]+)", path.read_text())}
    return sorted(found - {ErrorCode.VALIDATION_ERROR.value, ErrorCode.NOT_FOUND.value})  # the service-wide ones


def test_the_channels_raise_the_codes_this_test_reads() -> None:
    assert {"public_url_required", "channel_refused", "channel_bot_in_use"} <= set(codes())


@pytest.mark.parametrize("code", codes())
def test_every_error_code_of_the_channels_is_in_the_guide(code: str) -> None:
    assert f"`{code}`" in GUIDE.read_text(), f"{code} is missing from docs/channels.md"


@pytest.mark.parametrize("name", sorted(ChannelApiSettings.model_fields))
def test_every_channel_setting_is_in_the_guide(name: str) -> None:
    variable = f"{Settings.model_config.get('env_prefix', '')}{name}".upper()
    assert f"`{variable}`" in GUIDE.read_text(), f"{variable} is missing from docs/channels.md"
