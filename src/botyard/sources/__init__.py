"""Data sources (knowledge) and source tags."""
