"""Whole websites into a chatbot: crawls by sitemap or by links, as URL sources."""
