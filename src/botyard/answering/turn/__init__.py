"""One answer, from the question to the stored message: `prepare` (committed before the first byte), `decision` (what
to reply, pure), `run` (retrieve, answer, stream), `finish` (store it, with its outcome and review item); the records
they hand on (`records`)."""
