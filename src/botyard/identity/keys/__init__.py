"""API keys: the key format (`key_format`), the `api_key` table (`repository`) and the account a key stands for
(`service`); `accounts` issues keys through these."""
