"""The conversation settings applied to a turn: its time limits, the "thinking" sound, and the follow-up."""

from __future__ import annotations

from dataclasses import dataclass

from appliance.config import ConversationConfig
from appliance.conversation.turn import TurnRecord


@dataclass(frozen=True)
class Overdue:
    """A limit the turn went over: the stage it failed in, and why."""

    stage: str
    error: TimeoutError


class TurnLimits:
    """Decides, from a turn's marks and the time now, whether a limit is over or a sound is due."""

    def __init__(self, conv: ConversationConfig) -> None:
        self.conv = conv

    def listening(self, turn: TurnRecord, heard_s: float, ended: bool, now: float) -> Overdue | None:
        """The question may go on for conversation.listen_timeout_s of audio heard, and the turn for its limit.

        Counted in audio, as a voice pipeline's endpointer counts it, so a slow CPU that lags behind
        the stream is not cut off; once the question has ended only the turn's limit holds its
        transcription, so a recognizer still at work is not taken for someone who keeps talking.
        """
        if not ended and heard_s > self.conv.listen_timeout_s:
            return Overdue("asr", TimeoutError(
                f"the question went on for over {self.conv.listen_timeout_s:g} s"))
        return self._turn(turn, now)

    def answering(self, turn: TurnRecord, thinking: bool, now: float) -> Overdue | None:
        """Waiting for the first sentence (conversation.think_timeout_s) and the whole turn.

        An apology under way (turn.outcome set) is not held to them.
        """
        if turn.outcome:
            return None
        if thinking and turn.transcript_at is not None and now - turn.transcript_at > self.conv.think_timeout_s:
            return Overdue("llm", TimeoutError(f"no answer within {self.conv.think_timeout_s:g} s"))
        return self._turn(turn, now)

    def thinking_sound_due(self, turn: TurnRecord, thinking: bool, now: float) -> bool:
        """Whether the wait for the first sentence has gone on long enough to say "still thinking"."""
        return (thinking and not turn.outcome and turn.transcript_at is not None
                and now - turn.transcript_at > self.conv.thinking_earcon_s)

    def follow_up(self, turn: TurnRecord) -> bool:
        """Whether to listen for a follow-up question without the wake word once the answer is heard."""
        if turn.outcome not in ("", "answered") or turn.route not in ("llm", "skill"):
            return False
        return self.conv.follow_up == "always" or (
            self.conv.follow_up == "question" and turn.answer.rstrip().endswith("?"))

    def _turn(self, turn: TurnRecord, now: float) -> Overdue | None:
        if turn.wake_at is not None and now - turn.wake_at > self.conv.turn_timeout_s:
            return Overdue("turn", TimeoutError(f"turn took over {self.conv.turn_timeout_s:g} s"))
        return None
