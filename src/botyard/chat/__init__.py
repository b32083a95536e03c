"""Chat sessions and their messages."""
