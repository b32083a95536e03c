"""The owner's view of a chatbot's conversations: an overview with previews, exports, and how long they are kept."""
