"""What `contacts` reads and changes of a contact's sessions (`service.py`, its SQL in `repository.py`): their list
with what the team sees of each, moving them to another contact (a merge), deleting them with their messages (the
right to erasure). `chat_session` and `message` are this package's tables, so `contacts` goes through these."""
