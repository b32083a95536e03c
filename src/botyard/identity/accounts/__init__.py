"""Accounts and their first keys: issue, list, revoke (`service`), and the first run's setup link (`setup`)."""
