"""Helpers the tests share: fakes, loopback servers, API and database shortcuts. Test modules import from here,
never from one another (tests/project/test_layout.py checks it)."""
