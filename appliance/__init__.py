"""appliance: an offline voice assistant for a Raspberry Pi 5 home hub."""

from __future__ import annotations

__version__ = "0.1.0"

# Exit codes shared by every command (sysexits.h where one fits).
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 64  # EX_USAGE: the command line was wrong
EXIT_DATAERR = 65  # EX_DATAERR: an input file (WAV, questions) is unusable
EXIT_NOINPUT = 66  # EX_NOINPUT: an input file does not exist
EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: a device or service is not there
EXIT_SOFTWARE = 70  # EX_SOFTWARE: a bug; the traceback is logged
EXIT_TEMPFAIL = 75  # EX_TEMPFAIL: a download failed, try again later
EXIT_CONFIG = 78  # EX_CONFIG: bad configuration or a missing model; systemd must not restart


class ApplianceError(Exception):
    """An expected error with a message for people and an exit code for scripts."""

    exit_code: int = EXIT_FAILURE

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
