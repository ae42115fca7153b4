"""appliance: an offline voice assistant for a Raspberry Pi 5 home hub."""

from __future__ import annotations

from appliance.errors import ApplianceError

__version__ = "0.1.0"

# Exit codes of the command line (sysexits.h where one fits); cli.exit_code maps the named errors.
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 64  # EX_USAGE: the command line was wrong
EXIT_DATAERR = 65  # EX_DATAERR: an input file (WAV, questions) is unusable
EXIT_NOINPUT = 66  # EX_NOINPUT: an input file does not exist
EXIT_NOHOST = 68  # EX_NOHOST: a host name in the configuration does not resolve
EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: a device or service is not there
EXIT_SOFTWARE = 70  # EX_SOFTWARE: a bug; the traceback is logged
EXIT_TEMPFAIL = 75  # EX_TEMPFAIL: a download failed, try again later
EXIT_CONFIG = 78  # EX_CONFIG: bad configuration or a missing model; systemd must not restart

__all__ = ["ApplianceError", "__version__"]  # ApplianceError: the base of every named error (errors.py)
