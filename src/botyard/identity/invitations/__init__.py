"""Invitations by link (`service`) and their table (`repository`)."""
