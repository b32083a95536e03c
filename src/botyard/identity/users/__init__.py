"""The people of an account: the `user` table (`repository`), members and the rules that guard ownership
(`members`), who is there to take a conversation (`availability`), and removals that take keys along (`service`)."""
