"""Browser sign-in sessions: a person signed in to the dashboard by cookie (`sessions`, the `user_session` table),
the cookies themselves (`cookies`), the cross-site checks (`csrf`) and device cookies (`devices`)."""
