"""Sign-in throttling: attempts counted per key (an address tried, a client network, a device cookie) in the
database, each taking its place in the count before its password is checked (`service`), by the rules of `rules`."""
