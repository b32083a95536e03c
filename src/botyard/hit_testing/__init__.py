"""Hit testing: what answering would retrieve for a query, with each method's scores (the owners' endpoint)."""
