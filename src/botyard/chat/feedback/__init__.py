"""End users' feedback on answers: a thumbs up or down with an optional comment, one per answer (giving it again
replaces it). Given through the widget API, shown on every message as `feedback_json`, listed for the owner."""
