"""The people and keys of an account, managed by its owners and admins: members and their roles, invitations by
link, password reset links, named API keys (the rules live in `people`; the keys in `auth`)."""
