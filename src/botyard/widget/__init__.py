"""The chat widget: its owner settings, and the public API the widget and the share page use (no key)."""
