"""Identity's HTTP side: sign-in and sign-out (`signin`), single sign-on (`sso`), members, invitations and reset
links (`members`), API keys (`keys`), each with its schemas."""
