"""The answer pipeline behind one entry point (`pipeline.Pipeline.begin`), in rooms by stage, each importing only
the rooms below it (the `answering` contract in pyproject.toml):

- here, the entry: the HTTP endpoints (`router`), the pipeline, the wire formats (`wire`), which answerer a process
  uses (`select`) and the test sets' rehearsals (`rehearsal`);
- `turn/`: one answer from question to stored message: prepare, decide, run (stream), finish, and what they share
  (`records`), the chat events, citations and the review items (`gaps`);
- `background/`: the background agents' work after an answer (tags, background tool calls);
- `routing/`: which agent answers (the supervisor, its offline rules, the intents, the model's judgements, the
  agent variables);
- `offline/` and `model/`, siblings that never import each other: the two answerers (quoting the knowledge; the
  LLM with its prompt);
- here again, the kit every stage uses: the answerer interface (`base`), words (`text`), tools, `defuse`, the
  conversation context of retrieval (`context`) and the search depths (`search_depth`).
"""
