"""Canned replies: what the team writes once per account and inserts with its shortcut (`/shortcut`)."""
