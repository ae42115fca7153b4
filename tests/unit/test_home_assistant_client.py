"""The Home Assistant client over a socket that does not answer like Home Assistant: a clear error
naming the address, never a traceback and never the token."""

from __future__ import annotations

import errno
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from appliance.config import HomeAssistantConfig
from appliance.errors import HomeAssistantLacks, HomeAssistantRefused, HomeAssistantUnreachable
from appliance.thinking.home_assistant import HomeAssistant
from tests.fixtures.waits import WAIT_S

TOKEN = "abc.def.secret-token"


def read_request(conn: socket.socket) -> bytes:
    """One HTTP request, its body included (Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data and (part := conn.recv(65536)):
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length and (part := conn.recv(65536)):
        body += part
    return head + b"\r\n\r\n" + body


@pytest.fixture()
def answering(tmp_path: Path) -> Iterator:
    """answering(reply_bytes) -> a HomeAssistant client whose server sends those bytes to any request."""
    servers: list[socket.socket] = []

    def make(reply: bytes) -> HomeAssistant:
        server = socket.create_server(("127.0.0.1", 0))
        servers.append(server)

        def serve() -> None:
            conn, _ = server.accept()
            with conn:
                conn.settimeout(WAIT_S)
                read_request(conn)  # all of it: a close with bytes unread would reset the connection
                conn.sendall(reply)

        threading.Thread(target=serve, daemon=True).start()
        token_file = tmp_path / "token"
        token_file.write_text(TOKEN + "\n")
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        return HomeAssistant(HomeAssistantConfig(enabled=True, url=url, token_file=str(token_file), timeout_s=WAIT_S))

    yield make
    for server in servers:
        server.close()


@pytest.mark.parametrize("reply", [b"\x10\x02not http at all\r\n\r\n",
                                   b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"resp'])
def test_something_else_on_the_port_or_a_cut_answer_is_unreachable(answering, reply: bytes) -> None:
    home = answering(reply)
    with pytest.raises(HomeAssistantUnreachable) as caught:
        home.process("turn on the kitchen light")
    assert home.url in str(caught.value) and "broken HTTP answer" in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_a_refused_token_is_named_and_not_shown(answering) -> None:
    home = answering(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    with pytest.raises(HomeAssistantRefused) as caught:
        home.info()
    assert "refused the access token" in str(caught.value) and TOKEN not in str(caught.value)


def test_nothing_at_the_address_asked_names_the_integration_it_needs(answering) -> None:
    home = answering(b'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
    with pytest.raises(HomeAssistantLacks) as caught:
        home.request("/api/shopping_list")
    said = str(caught.value)
    assert home.url in said and "/api/shopping_list" in said and "integration" in said and TOKEN not in said
    assert isinstance(caught.value, HomeAssistantUnreachable)  # asked as the conversation: it is not there


def test_an_address_the_service_may_not_reach_says_how_to_let_it(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """What connect() gets when the unit's IPAddressAllow= no longer holds Home Assistant's address (EPERM:
    the packet is dropped on its way out), as after HA's address changed since the drop-in was written."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    home = HomeAssistant(HomeAssistantConfig(enabled=True, url="http://192.168.1.40:8123", token_file=str(token_file)))

    def dropped(*_args: object, **_kwargs: object) -> None:
        raise urllib.error.URLError(PermissionError(errno.EPERM, "Operation not permitted"))

    monkeypatch.setattr(urllib.request, "urlopen", dropped)
    with pytest.raises(HomeAssistantUnreachable) as caught:
        home.process("turn on the kitchen light")
    said = str(caught.value)
    assert "http://192.168.1.40:8123" in said and "appliance network --write" in said and TOKEN not in said
