"""Signing in to the dashboard: password sign-in, sign-out, who am I, and the links that open a session (an
invitation accepted, a password reset). The sessions themselves are `people`."""
