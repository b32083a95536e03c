"""Identity: who may sign in to an account and what each may do, in one package with its HTTP side.

Rooms, top to bottom (the `identity` contract of `pyproject.toml` keeps the order):

- `http/`: the endpoints (sign-in and sign-out, single sign-on, members and invitations, API keys);
- `caller`: who signs a request (an API key, else the browser session's cookie), allowed what the route needs;
- `sso/`, `resets`, `signin/`, `invitations/`, `accounts/`: what opens a browser session, what makes an account;
- `users/`, `browser_sessions/`, `keys/`: people and their roles, browser sign-in sessions, API keys;
- `access`, `recording`: what a route needs and audits (declared in its decorator), the events sign-in writes itself;
- `principal`, `roles`, `tokens`, `emails`, `passwords`, `links`: the kit.

"Session" means four things in this service; identity names them apart:

- a *browser session* (`browser_sessions/`, the `user_session` table): a person signed in to the dashboard, by cookie;
- a *chat session* (`chat/`, `ChatSession`): a conversation with a chatbot, which identity never touches;
- a *database session* (SQLAlchemy's `AsyncSession`, `db` in signatures): a unit of work;
- the *sign-on flow* (`sso/flow.py`, `Flow`): what single sign-on keeps in a cookie between its two halves.
"""
