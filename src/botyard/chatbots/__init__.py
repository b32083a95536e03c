"""Chatbots: create, update, list, fetch, delete."""
