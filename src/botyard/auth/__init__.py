"""Who signs a request: the API key format and the look-up of a key's account. Below every feature, so that the
request dependencies (`deps.py`) can authenticate without importing one."""
