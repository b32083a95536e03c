"""Database engine, declarative base and the transaction helpers."""
