"""The offline answerer (the default, no model): what the question asks (`asked`), the passages that answer it
(`quote`), and how sure the answer is (`confidence`)."""
