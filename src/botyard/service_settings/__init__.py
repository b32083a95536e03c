"""The settings an instance's owner changes in the dashboard while the service runs (issue 40): the language model
(base URL, key, model map), the hosts and ports fetches may reach, and the origins allowed to call the API.

Per instance, not per account: these settings shape the whole process (one egress policy, one model connection, one
CORS list), so only the owner and admins of the instance's own account (the first one made) may read or change
them; to another account they answer 404, like another account's objects. What a process uses is, field by field,
the environment when it sets the field (the page shows it locked: change it there), else the stored value, else the
default (`fields.effective`).

- `fields`: which settings, their sections and labels, validation, and the effective settings.
- `cipher`: secrets (the model's API key) are Fernet tokens, keyed by `BOTYARD_SECRET_KEY` or `data_dir/secret.key`.
- `repository`, `service`: the one row (`models/instance_settings.py`) read and written whole.
- `live`: what a running process uses now, and how it follows a change (its own at once, another's within
  `settings_poll_seconds`) without a restart.
- `connection`: the Settings page's "Test connection": one short prompt to the configured model.
- `router`: `GET`/`POST /service/settings`, `POST /service/settings/llm/test`.
"""
