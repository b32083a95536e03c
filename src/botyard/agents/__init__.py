"""Agents of a chatbot and their tool functions."""
