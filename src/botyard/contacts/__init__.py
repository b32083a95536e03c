"""Contacts: the people who write to an account's chatbots, one person across every channel they use, with each
conversation they had; read, edited, merged, exported and erased by the team (`contact`, `contact_identity`)."""
