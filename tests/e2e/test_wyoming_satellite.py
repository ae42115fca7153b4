"""A real wyoming-satellite (1.0.0) in another room, answered by the hub on the small real models: the hub
connects to it, hears "what is the capital of France?" after its wake word, and the satellite's speaker
plays an answer that says Paris."""

from __future__ import annotations

import dataclasses
import logging
import time


from appliance import assembly
from appliance.audio import AudioChunk
from appliance.config import Config, SatelliteConfig, WyomingConfig
from appliance.contracts import Stages
from appliance.conversation.rooms import Rooms
from appliance.conversation.turn import TurnRecord
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from appliance.links.wyoming_satellites import WyomingSatellites
from tests.fixtures.fakes import FakeSink, FakeSource, FakeWake
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S, wait_for
from tests.fixtures.wyoming_satellite import SND_RATE, RealSatellite

_LOGGER = logging.getLogger(__name__)


def test_a_real_satellite_hears_paris(real_satellite: RealSatellite, piper, llm_chat, transcribe) -> None:  # noqa: ANN001
    base = Config()
    cfg = dataclasses.replace(base, asr=dataclasses.replace(base.asr, engine="whisper"), wyoming=WyomingConfig(
        satellites=[SatelliteConfig(uri=real_satellite.uri, name="kitchen", area="Kitchen")]))
    _engine, path = choose_engine(cfg)
    stages = Stages(source=FakeSource(), sink=FakeSink(), wake=FakeWake(), asr=WhisperRecognizer(cfg, path).load(),
                    chat=llm_chat, tts=piper, splitter_factory=assembly.splitter_factory(cfg))
    turns: list[TurnRecord] = []
    link = WyomingSatellites(cfg.wyoming, Rooms(stages, cfg, on_turn=turns.append))
    link.start()
    try:
        assert link.connected["kitchen"].wait(SLOW_WAIT_S), "the hub did not connect to the satellite"
        real_satellite.speak()
        wait_for(lambda: turns, "the satellite's turn", LOAD_WAIT_S)
        (turn,) = turns
        assert turn.outcome == "answered", (turn.outcome, turn.error, turn.transcript)
        assert "capital of france" in turn.transcript.lower()
        # the satellite writes what it plays as it comes: wait until all of it is there
        wait_for(lambda: len(real_satellite.played()) >= 2 * SND_RATE * 0.5, "the answer on the satellite's speaker",
                 SLOW_WAIT_S)
        sizes = [-1]

        def settled() -> bool:  # no more audio for 1 s
            sizes.append(len(real_satellite.played()))
            time.sleep(1.0)
            return sizes[-1] == sizes[-2]
        wait_for(settled, "the satellite's speaker to fall silent", SLOW_WAIT_S)
        heard = transcribe(AudioChunk(real_satellite.played(), SND_RATE))
        timings = turn.timings_ms()
        _LOGGER.warning("satellite: heard %r; answered %r; end of speech to first audio %s ms, to transcript %s ms",
                        turn.transcript, heard, timings["speech_end_to_first_audio"],
                        timings["speech_end_to_transcript"])
        assert "paris" in heard, heard
        assert turn.source == "kitchen" and turn.journal_fields()["SOURCE"] == "kitchen"
    finally:
        link.stop()
