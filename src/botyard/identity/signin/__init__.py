"""Password sign-in (`password`), slowed for whoever guesses by the attempt counts of `throttle`."""
