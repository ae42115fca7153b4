"""Network peers: the Wyoming services port (and later the satellites); nothing listens unless configured."""
