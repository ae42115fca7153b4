"""Hearing: the wake word, voice activity, the end of the question, and speech recognition."""
