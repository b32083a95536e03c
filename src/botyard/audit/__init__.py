"""The audit log: who changed what in an account, when and from where; shown to owners and admins, exported."""
