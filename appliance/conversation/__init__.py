"""The turn: the conductor's state machine, the one answer path, and the turn record."""
