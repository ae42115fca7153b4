"""Speaking: sentences cut from the answer, cleaned for speech, Piper, and the earcons."""
