"""`listen --hear-only` through the conductor with fake stages: wake word, pre-roll, question, no answer."""

from __future__ import annotations

from appliance.assembly import NoAnswer
from appliance.audio.playback import NullSink
from appliance.config import Config
from appliance.contracts import Stages
from appliance.conversation.replay import hear_turn
from tests.fixtures.fakes import FakeAsr, FakeChat, FakeSkills, FakeSource, FakeSplitter, FakeWake, chunk


class Recorded(FakeSource):
    """A recording: it ends (eof) once its chunks are read."""

    def __init__(self, labels: list[str]) -> None:
        super().__init__([chunk(text) for text in labels])
        self.duration_s = 0.08 * len(labels)

    @property  # type: ignore[override]
    def eof(self) -> bool:
        return not self.chunks

    @eof.setter
    def eof(self, value: bool) -> None:
        """FakeSource sets it; a recording knows it by itself."""


def hear(labels: list[str], chat: FakeChat | None = None) -> tuple[dict, FakeAsr]:
    asr = FakeAsr()
    stages = Stages(source=Recorded([]), sink=NullSink(), wake=FakeWake(), asr=asr, chat=chat or NoAnswer(),
                    tts=NoAnswer(), splitter_factory=FakeSplitter, skills=FakeSkills())
    return hear_turn(Recorded(labels), Config(), stages), asr  # type: ignore[arg-type]


def test_the_question_gets_the_preroll_and_is_not_answered() -> None:
    chat = FakeChat()
    record, asr = hear(["SIL:1", "SIL:2", "SIL:3", "SIL:4", "WAKE", "SAY:what is", "SAY:the capital", "SIL",
                        "SIL", "SAY:later"], chat)
    wake = {"word": "hey_jarvis", "score": FakeWake.SCORES["WAKE"], "at_s": 0.0}
    assert record == {"wake": wake, "transcript": "what is the capital"} and chat.questions == []
    assert asr.prerolls == [["SIL:2", "SIL:3", "SIL:4", "WAKE"]]  # wake.preroll_s 0.3 s: 4 chunks of 80 ms


def test_a_recording_that_ends_mid_question_finishes_it_and_no_wake_gives_nulls() -> None:
    record, _ = hear(["WAKE", "SAY:what is", "SAY:the time"])
    assert record["transcript"] == "what is the time"
    nothing, asr = hear(["SIL", "SAY:what time is it", "SIL"])
    assert nothing == {"wake": None, "transcript": None} and asr.prerolls == []
