"""Live chat: sessions flagged for operators, an operator taking a session over, and the events operators follow."""
