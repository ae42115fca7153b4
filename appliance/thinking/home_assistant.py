"""Home Assistant's REST interface: its conversation API (the owner's own HA switches and reads the
devices; only the transcript is sent) and the plain calls other parts make (`request`: the shopping
list), only to the configured address; the token is never logged or shown.

Standard library only (urllib): one small JSON request per question needs no HTTP package.
"""

from __future__ import annotations

import errno
import http.client
import json
import logging
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Final

from appliance.config import HomeAssistantConfig
from appliance.contracts import HomeReply
from appliance.errors import BadConfig, HomeAssistantLacks, HomeAssistantRefused, HomeAssistantUnreachable

_LOGGER = logging.getLogger(__name__)

PROCESS_PATH: Final = "/api/conversation/process"
CONFIG_PATH: Final = "/api/config"


def read_token(path: str) -> str:
    """The access token in `path` (first line), or BadConfig naming the file and what to do."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip().splitlines()
    except FileNotFoundError:
        raise BadConfig(f"home_assistant.token_file {path} does not exist: put a long-lived access token "
                        "in it (HA: your profile -> Security)") from None
    except PermissionError:
        raise BadConfig(f"home_assistant.token_file {path} cannot be read by this user: it must be "
                        "readable by the service user (chown appliance, chmod 600)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadConfig(f"home_assistant.token_file {path} cannot be read: {exc}") from None
    if not token or not token[0].strip():
        raise BadConfig(f"home_assistant.token_file {path} is empty: put a long-lived access token in it")
    return token[0].strip()


class HomeAssistant:
    """The client: `process()` for a sentence, `info()` for doctor. Thread-safe (no shared state)."""

    def __init__(self, cfg: HomeAssistantConfig, token: str | None = None) -> None:
        self.cfg = cfg
        self.url = cfg.url.rstrip("/")
        self._token = token if token is not None else read_token(cfg.token_file or "")

    def __repr__(self) -> str:  # never the token
        return f"HomeAssistant({self.url!r})"

    def process(self, text: str, conversation_id: str | None = None) -> HomeReply:
        """HA's answer to `text`; raises HomeAssistantUnreachable or HomeAssistantRefused."""
        body: dict[str, Any] = {"text": text, "language": self.cfg.language}
        if conversation_id:
            body["conversation_id"] = conversation_id
        started = time.monotonic()
        data = self._request(PROCESS_PATH, body)
        ms = (time.monotonic() - started) * 1000.0
        response = data.get("response") if isinstance(data, dict) else None
        if not isinstance(response, dict):
            raise HomeAssistantUnreachable(f"Home Assistant at {self.url} sent an answer without a response")
        speech = ((response.get("speech") or {}).get("plain") or {}).get("speech") or ""
        code = str((response.get("data") or {}).get("code") or "") if response.get("response_type") == "error" else ""
        return HomeReply(kind=str(response.get("response_type") or "error"), speech=str(speech).strip(), code=code,
                       conversation_id=data.get("conversation_id"), ms=ms)

    def info(self) -> dict[str, Any]:
        """HA's /api/config (version, location_name): doctor's check of the address and the token."""
        data = self._request(CONFIG_PATH, None)
        return data if isinstance(data, dict) else {}

    def request(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """GET `path` (no body) or POST `body` to it as JSON: HA's decoded answer. Raises
        HomeAssistantUnreachable (HomeAssistantLacks for nothing at `path`) or HomeAssistantRefused."""
        return self._request(path, body)

    def _request(self, path: str, body: dict[str, Any] | None) -> Any:
        request = urllib.request.Request(
            self.url + path, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self._token}", "Content-Type": "application/json"},
            method="GET" if body is None else "POST")
        try:
            with urllib.request.urlopen(request, timeout=self.cfg.timeout_s) as response:
                return json.loads(response.read().decode("utf-8") or "null")
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise HomeAssistantRefused(f"Home Assistant at {self.url} refused the access token (HTTP {exc.code}): "
                                           "make a new long-lived token and put it in home_assistant.token_file"
                                           ) from None
            if exc.code == 404:
                raise HomeAssistantLacks(f"Home Assistant at {self.url} has nothing at {path} (HTTP 404): "
                                         "is the integration it belongs to set up there?") from None
            raise HomeAssistantUnreachable(f"Home Assistant at {self.url} answered HTTP {exc.code} for {path}") from None
        except (urllib.error.URLError, OSError) as exc:  # refused, timed out, reset, TLS
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, OSError) and reason.errno == errno.EPERM:  # IPAddressDeny= drops it here
                raise HomeAssistantUnreachable(
                    f"Home Assistant at {self.url} is not reachable: this machine does not let the service "
                    "connect to that address. The service's network drop-in allows only the address Home "
                    "Assistant had when it was written; if that has changed, run `sudo appliance network "
                    "--write /etc/systemd/system` and restart the service") from None
            raise HomeAssistantUnreachable(f"Home Assistant at {self.url} is not reachable: {reason}") from None
        except http.client.HTTPException as exc:  # something else on that port, or an answer cut short
            raise HomeAssistantUnreachable(f"Home Assistant at {self.url} sent a broken HTTP answer "
                                           f"({type(exc).__name__}): is home_assistant.url its address?") from None
        except (ValueError, UnicodeDecodeError):
            raise HomeAssistantUnreachable(f"Home Assistant at {self.url} sent something that is not JSON") from None
