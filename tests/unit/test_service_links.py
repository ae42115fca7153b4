"""The daemon serves the Wyoming services port beside the conductor only when configured, and stops it."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import signal
import socket
import threading

import pytest
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.handle import Handled
from wyoming.info import Describe, Info

from appliance import assembly
from appliance.config import Config, WyomingConfig
from appliance.contracts import Link, Stages
from appliance.links.wyoming_services import WyomingServices
from appliance.service import Journal, Service
from tests.fixtures.fakes import (
    FakeAsr,
    FakeChat,
    FakeEarcons,
    FakeSink,
    FakeSkills,
    FakeSource,
    FakeSplitter,
    FakeTts,
    FakeWake,
    chunk,
)
from tests.fixtures.waits import WAIT_S


def stages() -> Stages:
    source = FakeSource([chunk("SIL")])
    source.fill = "SIL"
    return Stages(source=source, sink=FakeSink(), wake=FakeWake(), asr=FakeAsr(), chat=FakeChat(), tts=FakeTts(),
                  splitter_factory=FakeSplitter, skills=FakeSkills(), earcons=FakeEarcons())


def with_wyoming(services: str) -> Config:
    return dataclasses.replace(Config(), wyoming=WyomingConfig(services=services))


def test_nothing_listens_unless_wyoming_services_is_set() -> None:
    assert assembly.build_links(Config(), stages()) == []
    links = assembly.build_links(with_wyoming("tcp://127.0.0.1:10300"), stages())
    assert len(links) == 1 and isinstance(links[0], WyomingServices) and isinstance(links[0], Link)
    assert (links[0].host, links[0].port) == ("127.0.0.1", 10300)


def test_the_service_starts_the_port_with_the_conductor_and_closes_it_at_sigterm(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    cfg = with_wyoming("tcp://127.0.0.1:0")
    parts = stages()
    (link,) = assembly.build_links(cfg, parts)
    assert isinstance(link, WyomingServices)
    service = Service(cfg, parts, Journal(False, sender=lambda *a, **k: None, echo=False), links=[link])
    seen: dict[str, object] = {}

    async def use_it() -> None:
        async with AsyncTcpClient("127.0.0.1", link.port) as client:
            await client.write_event(Describe().event())
            seen["info"] = Info.from_event(await client.read_event())
        async with AsyncTcpClient("127.0.0.1", link.port) as client:
            await client.write_event(Transcript(text="the capital of France?", context={"conversation_id": "a"}).event())
            seen["handled"] = Handled.from_event(await client.read_event())

    def client_then_stop() -> None:
        try:
            assert link.listening.wait(WAIT_S)
            asyncio.run(asyncio.wait_for(use_it(), WAIT_S))
        finally:
            os.kill(os.getpid(), signal.SIGTERM)

    old = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    peer = threading.Thread(target=client_then_stop)
    peer.start()
    try:
        assert service.run() is True
    finally:
        signal.signal(signal.SIGTERM, old[0])
        signal.signal(signal.SIGINT, old[1])
    peer.join(WAIT_S)
    info, handled = seen["info"], seen["handled"]
    assert isinstance(info, Info) and info.handle and info.satellite is None
    assert isinstance(handled, Handled) and handled.text == "1: the capital of France?"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", link.port), timeout=1).close()
    listening = [r for r in caplog.records if "listening on" in r.getMessage()]
    assert len(listening) == 1 and listening[0].levelno == logging.INFO
    assert listening[0].getMessage().startswith("Wyoming services (speech recognition fake, voice ")
    assert listening[0].getMessage().endswith(f"listening on tcp://127.0.0.1:{link.port}")
    assert all("capital" not in r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
