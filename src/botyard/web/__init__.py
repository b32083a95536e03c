"""The browser faces of the service: the embeddable chat widget, the full-page chat, and the owner's dashboard.

Plain static files (no build step); the pages are served with a strict Content-Security-Policy.
"""
