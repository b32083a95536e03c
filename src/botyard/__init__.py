"""Botyard: a self-hostable chatbot management service."""

__version__ = "0.1.0"
