"""Background agents at work after each answer, as a `tag_session` job: tags by criteria, tool function calls."""
