"""Session documents: files an account uploads to talk about in a chat session (`POST /session-document/upload`),
attached to a message with `session_document_uuids` and given whole to the answering model from then on."""
