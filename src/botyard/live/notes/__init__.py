"""Private notes in a conversation: the team's words beside it, never the customer's (no transcript row, no widget
or channel event, no webhook)."""
