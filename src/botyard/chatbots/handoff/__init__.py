"""What a chatbot does when a visitor asks for a person: the operators told by email, and the office hours outside
of which no person is promised (the visitor gets a form to leave an email address and a message instead)."""
