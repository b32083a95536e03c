"""The people of an account: users and their roles, dashboard sessions by cookie, invitations and password resets,
and the one table of what each route needs (`routes.py`). Below every feature, so that the request dependencies
(`deps.py`) can tell who signs a request and what they may do without importing one."""
