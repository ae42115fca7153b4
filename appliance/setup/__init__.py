"""Setting up: the models and where they come from, and the checks install.sh runs."""
