"""Single sign-on with OpenID Connect: any provider, by its discovery URL, client id and secret (`BOTYARD_OIDC_*`).

The protocol's pieces are authlib's (state and nonce, PKCE's S256 challenge, the ID token's claims checks) over
joserfc's signature checks; every request to the provider (discovery, keys, token) goes through the egress client.

Modules: `refusals` (why a sign-in was refused, and what to do), `flow` (the state, nonce and PKCE verifier kept in a
signed, short-lived, HttpOnly cookie between the two halves), `provider` (discovery, keys and the code exchange),
`idtoken` (the ID token's checks, a pure function), `service` (who signs in: the linked subject, else the verified
email of a member or of an open invitation), `repository` (the `oidc_identity` table), `router` (the endpoints).
"""
