"""Thinking: the local skills (time, timers), then the language model."""
