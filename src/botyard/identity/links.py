from __future__ import annotations


def dashboard_link(base_url: str, kind: str, token: str) -> str:
    """A link that opens the dashboard on an invitation (`invite`) or a password reset (`reset`). The token rides
    in the fragment, which browsers never send to a server, so it stays out of access logs and Referer headers."""
    return f"{base_url.rstrip('/')}/dashboard#{kind}={token}"
