"""Echo cancellation on the microphone path: what the speaker plays is the reference, aligned by time."""

from __future__ import annotations

import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Final

import numpy as np

from appliance.audio import PIPELINE_RATE, AudioChunk, Converter
from appliance.audio.echo_drift import HALF_TAPS, ClockDrift, between
from appliance.audio.echo_engines import BLOCK_MS, SPEEX_FILTER_S, BlockCanceller, speex_engine

_LOGGER = logging.getLogger(__name__)

TAIL_S: Final = 1.5  # seconds after the last sample played that the room still echoes and the canceller runs
REANCHOR_S: Final = 0.03  # seconds a block's timestamp may differ from the running clock before it re-anchors
KEEP_S: Final = 6.0  # seconds of reference kept behind the microphone's clock: the delay search and the filter
MAX_DELAY_S: Final = 3.5  # seconds the echo may come after its timestamps say (a sound server's buffer)
MIN_DELAY_S: Final = -0.2  # ... or before: a host that overstates its latency
SEARCH_S: Final = 2.0  # seconds of microphone audio each delay search looks at
SEARCH_EVERY_S: Final = 0.25  # seconds of audio between two searches while something plays
SEARCH_RATE: Final = 4000  # Hz the search runs at (the echo's lower band is what it needs)
SEARCH_AGREE_S: Final = 0.02  # seconds two searches may differ by and agree (a reflection can outdo the direct path)
SEARCH_PLAYED_S: Final = 1.0  # seconds of sound played in a search's span before it is made
SEARCH_KEEP: Final = 0.7  # a peak inside the filter's span this strong against the best one keeps the delay
SEARCH_CLEAR: Final = 6.0  # a search's peak must stand this many standard deviations above the rest
FILTER_LEAD_S: Final = 0.04  # seconds of the filter left before the echo's direct path, for timing changes
FILTER_SPAN_S: Final = 0.2  # seconds into the filter the direct path may be before the delay is moved
TRACK_FRAME: Final = 2048  # samples per block of the fine search
TRACK_MAX_S: Final = 0.03  # seconds the echo may move and still be the path the filter learnt
TRACK_MIN_SAMPLES: Final = 2  # samples the echo must move before the reference follows it
TRACK_RECENT_S: Final = 0.75  # seconds of the latest sound heard in which an echo that moved is looked for
FOLLOW_BELOW_DB: Final = 4.0  # dB the microphone comes out quieter over them, below which a move is followed:
# above, the filter still fits where it is (the person's voice over a cancelled echo leaves 7 dB or more)
TRACK_AGREE_S: Final = 0.0002  # seconds two fine searches may differ by and agree
COLLAPSE_S: Final = 0.2  # seconds of sound over which the filter taking nothing away means the echo moved
COLLAPSE_ECHO: Final = 0.2  # ... if what it gave back matches the sound played this well near its path (0-1): a
# move left 0.26-0.67 (bench/echo_moved.py), the person's word over a cancelled echo 0.02-0.31, mostly under 0.1
HAD_ROOM_DB: Final = 12.0  # dB the filter took away over the TRACK_RECENT_S before them, for it to have had the room
HOLD_PLAYED_S: Final = 0.5  # seconds of a new stretch of sound played before the echo is looked for in it
SLIP_PLAYED_S: Final = 0.3  # ... and of the sound after a slip, where the echo was found just before it
HOLD_MAX_S: Final = 2.5  # seconds of it after which the filter runs whether the echo was found or not
LEARN_S: Final = 4.0  # seconds of the hub's sound over which a filter new to the room also learns again from what
# it heard (_learn_again)
LEARN_EVERY_S: Final = 0.5  # ... once every this many seconds of the microphone, over the last SEARCH_S heard
DEFER_MAX_S: Final = 1.0  # seconds of the microphone kept back after the filter collapsed, to be cancelled once
# the echo is found again; past that it is given back as heard (the wake word and stop words hear it this late)
STEADY_STARTS: Final = 3  # stretches begun where the echo was before the host's timestamps are trusted
QUEUE_BLOCKS: Final = 1000  # speaker blocks held between two microphone reads (20 s of 20 ms blocks)
REFERENCE_WAIT_S: Final = 0.1  # seconds the microphone's blocks may wait for the sound their filter starts on
DRIFT_TOLD: Final = 10e-6  # a change in the clocks' drift (seconds per second) the journal is told of


class EchoCanceller:
    """Removes what the hub played from what its microphone hears; costs nothing while nothing plays.

    The speaker's device callback calls played() with each block it hands the device (after volume
    and resampling) and the monotonic time it sounds (DAC time): a copy into a bounded deque, nothing
    else. The microphone's reader calls cancel() with 16 kHz mono int16 samples and the monotonic
    time the first one was captured (ADC time); there the reference is resampled to 16 kHz, laid on
    a timeline by its timestamps, and each 10 ms block of the microphone goes through the canceller
    with the reference that sounded at the same moment. The engine's filter (Speex: 256 ms; AEC3 adds
    a delay estimator) takes up the room's delay and reverb; both sides' times come from a StreamClock
    (frames counted). What the timestamps still get wrong, the echo is searched
    for and followed (_search): seconds off through a sound server, milliseconds from one answer to the
    next. When nothing has played for `tail_s`, cancel() returns its input unchanged and the canceller
    is not called.
    """

    def __init__(self, rate: int = PIPELINE_RATE, tail_s: float = TAIL_S,
                 engine_factory: Callable[[int], BlockCanceller] = speex_engine, follow_drift: bool = True) -> None:
        self.rate = rate
        self.tail_s = tail_s
        self.block = rate * BLOCK_MS // 1000
        self.blocks_processed = 0
        self._engine_factory = engine_factory
        self._engine: BlockCanceller | None = None
        self._failed = False
        self._incoming: deque[tuple[np.ndarray, int, float]] = deque(maxlen=QUEUE_BLOCKS)
        self._converters: dict[int, _Resampler] = {}
        self._far = np.zeros(0, dtype=np.float32)  # the reference at `rate`, from _far_t0 on
        self._far_t0 = 0.0
        self._last_played_at: float | None = None  # when the newest reference sample sounds
        self._near_t: float | None = None  # when the next microphone sample was captured
        self._pending = np.zeros(0, dtype="<i2")  # microphone samples short of a whole block
        self.delay_s = 0.0
        """Seconds the echo comes after the timestamps say, beyond what the filter takes up (the search's)."""
        self._heard = np.zeros(0, dtype=np.float32)  # the microphone's last SEARCH_S before cancelling
        self._since_search = 0
        self._found: float | None = None  # the last search's delay, waiting for a second to agree
        self._found_fine: float | None = None  # ... and to the sample
        self._path: float | None = None  # the echo's delay the filter learnt, which the reference follows
        self._holding = False  # a new stretch of sound, not yet run through the filter (see _hold)
        self._hold_t0 = 0.0  # when what is held began to sound (a stretch's start, or where a device slipped)
        self._hold_played_s = HOLD_PLAYED_S  # seconds of it played before the echo is looked for in it
        self._prime_on_find = False  # what is held came after a slip: the filter is run over it once found
        self._deferred: np.ndarray | None = None
        """The microphone since the filter collapsed mid-answer, kept back until the echo is found (_defer)."""
        self._slipped = False  # a device callback saw time lost (slipped()); cancel() takes it up
        self.moves = 0
        """Times the echo moved while something played (a device lost time, or the filter suddenly took nothing
        away, over its last COLLAPSE_S): what cancel() gave back just before may hold the hub's voice."""
        self._steady_starts = 0  # stretches in a row that began with the echo where the filter had it
        self._confirmed = True  # this stretch's echo found where the filter has it (or a first one)
        self._energy, self._energy_s = (0.0, 0.0), 0.0  # the microphone's before and after, while running
        self._recent: deque[tuple[float, float]] = deque(maxlen=round(TRACK_RECENT_S * 1000 / BLOCK_MS))
        """... and block by block over the last TRACK_RECENT_S."""
        self._left = np.zeros(0, dtype=np.float32)  # what the filter gave back over the last COLLAPSE_S
        self._drift = ClockDrift()  # two clocks' drift, from where the echo is found while it plays
        self._follow_drift = follow_drift  # off only to measure what following it gives (bench/echo_drift.py)
        self._drift_told = 0.0  # the drift the journal was last told of
        self._learnt_s = 0.0  # seconds of the hub's sound the filter has learnt from since it was made (_learn_again)
        self._since_learnt = 0  # microphone samples filtered since it last learnt again
        self.blocks_again = 0
        """Of blocks_processed, those run through the filter again over sound already given back (_prime)."""
        self._lock = threading.Lock()  # cancel() may be called from one reader at a time

    # ---- speaker side (its device callback): copy only -----------------------------------------
    def played(self, samples: np.ndarray, rate: int, at: float) -> None:
        """`samples` (float32 mono at `rate`) start to sound at monotonic time `at`."""
        self._incoming.append((np.array(samples, dtype=np.float32), rate, at))

    def slipped(self) -> None:
        """A device lost time: a speaker that ran dry (PortAudio's output underflow), a microphone whose
        samples overflowed. What follows may echo milliseconds from where the timestamps say, which they
        cannot tell; the filter waits until the echo is found again (see _hold). A flag, for a callback."""
        self._slipped = True

    @property
    def passing_own_sound(self) -> bool:
        """What cancel() last gave back is the hub's own sound let through uncancelled: a stretch held from the
        filter until its echo is found (_hold), not kept back (_defer). A plain stop cannot be told from the hub's
        voice in it."""
        return self._holding and self._deferred is None and self._in_tail(self._near_t) and len(self._far) > 0

    @property
    def drift_ppm(self) -> float:
        """How far apart the microphone's and the speaker's clocks were found to run, in ppm (0: together)."""
        return self._drift.rate * 1e6

    @property
    def active(self) -> bool:
        """Something was played within the last tail_s (of the microphone's clock)."""
        return len(self._incoming) > 0 or self._in_tail(self._near_t)

    # ---- microphone side (its reader's thread) -------------------------------------------------
    def cancel(self, samples: np.ndarray, at: float) -> np.ndarray:
        """16 kHz mono int16 samples captured from `at` on, with the hub's own sound removed."""
        with self._lock:
            waiting_s = len(self._pending) / self.rate
            if self._near_t is None or abs(at - waiting_s - self._near_t) > REANCHOR_S:
                self._near_t = at - waiting_s
            self._take_reference()
            if self._slipped:
                self._slipped = False
                self._slip()
            if self._failed or not self._in_tail(self._near_t):
                passed = self._pass(samples)  # idle: no copy unless something was kept back as the answer ended
                return passed if self._deferred is None else np.concatenate([self._release(), passed])
            near = np.concatenate([self._pending, np.asarray(samples, dtype="<i2")])
            whole = len(near) // self.block * self.block
            if self._holding:
                self._pending = near[whole:]
                self._advance(whole)
                self._hear(near[:whole])
                if self._deferred is None:
                    self._hold()
                    return near[:whole]
                return self._defer(near[:whole])
            whole = self._ready(whole)
            self._pending = near[whole:]
            out = np.empty(whole, dtype="<i2")
            for start in range(0, whole, self.block):
                out[start:start + self.block] = self._one_block(near[start:start + self.block])
            self._hear(near[:whole])
            self._keep_left(out)
            if self._collapsed():
                self._slip("the filter suddenly takes nothing away", COLLAPSE_S)
                if self._holding:
                    self._deferred = near[:0]
            else:
                self._search()
                self._learn_again(whole)
            self._trim()
            return out

    def _defer(self, heard: np.ndarray) -> np.ndarray:
        """Keeps the microphone back while the echo is looked for after the filter collapsed mid-answer, and
        gives it back cancelled once it is found: the hub's voice does not pass uncancelled under a word said
        meanwhile (a plain stop, heard as "Scott." over it in the room test, or the wake word). After
        DEFER_MAX_S not found, what was kept is given back as heard, and what follows passes as it is heard
        until the echo is found (_hold). Only a collapse defers: the echo moved before it was seen, so all
        that is kept echoes where it is found. A device that reports a slip reports it before its gap
        reaches the microphone, and what is kept would begin with sound that echoes where it was."""
        assert self._deferred is not None
        self._deferred = np.concatenate([self._deferred, heard])
        self._hold()
        if not self._holding and self._confirmed:
            return self._cancel_deferred()
        if self._holding and len(self._deferred) < DEFER_MAX_S * self.rate:
            return heard[:0]
        _LOGGER.debug("Echo cancellation: the echo not found within %.1f s; what was kept back passes as heard",
                      len(self._deferred) / self.rate)
        return self._release()

    def _cancel_deferred(self) -> np.ndarray:
        """The microphone kept back, through the filter against the reference where the echo was found. The filter
        goes on from the last block it took before the collapse, so its past is the reference just before what
        was kept, moved by no more than the echo moved (as a move followed by _search). Over the COLLAPSE_S
        before it, where the collapse was seen, the echo had already moved and the filter adapted against the
        reference where it was; it is run over that again first (_prime), which takes the first quarter second
        kept 0-9 dB further down (moves of 0.75-60 ms, 2-4 s into the answer of tests/unit/test_echo_cancel.py)."""
        assert self._deferred is not None and self._near_t is not None
        kept, self._deferred = self._deferred, None
        self._prime(before=len(kept), most_s=COLLAPSE_S)
        start_t = self._near_t - len(kept) / self.rate
        out = np.empty(len(kept), dtype="<i2")
        for start in range(0, len(kept), self.block):
            out[start:start + self.block] = self._filter(kept[start:start + self.block], start_t + start / self.rate)
        self._keep_left(out)
        return out

    def _release(self) -> np.ndarray:
        """What was kept back, as heard (an empty block when nothing was)."""
        kept, self._deferred = self._deferred, None
        return kept if kept is not None else np.zeros(0, dtype="<i2")

    def _keep_left(self, out: np.ndarray) -> None:
        self._left = np.concatenate([self._left, out.astype(np.float32) / 32768.0])[-round(COLLAPSE_S * self.rate):]

    def _collapsed(self) -> bool:
        """Whether over the last COLLAPSE_S of sound the filter took the echo away by less than FOLLOW_BELOW_DB,
        after it had taken HAD_ROOM_DB away over the TRACK_RECENT_S before: the echo has moved (a sound server
        that ran dry and told no one), and what the filter gave back is the sound played (_echo_left). The person
        talking over the echo mostly leaves more; a word said where the echo is quiet may not, and matches less."""
        blocks = round(COLLAPSE_S * 1000 / BLOCK_MS)
        if len(self._recent) < self._recent.maxlen or self._path is None:
            return False
        assert self._near_t is not None
        if _sounding_s(self._reference(self._near_t - self._path - COLLAPSE_S, blocks * self.block),
                       self.rate) < 0.75 * COLLAPSE_S:
            return False  # where the echo of a pause between sentences is heard, nothing is there to take away
        recent = list(self._recent)
        last, before = recent[-blocks:], recent[:-blocks]
        if sum(e[0] for e in last) / len(last) < 0.25 * sum(e[0] for e in before) / len(before):
            return False  # an answer's quiet end: the room's noise is all there is to hear, and it stays
        if _taken_db(last) >= FOLLOW_BELOW_DB or _taken_db(before) < HAD_ROOM_DB:
            return False
        if self._echo_left() < COLLAPSE_ECHO:
            return False  # a word said over the echo, which the filter still takes
        return not self._echo_still_on_path()

    def _echo_still_on_path(self) -> bool:
        """Whether the latest TRACK_FRAME samples heard echo clearly where the filter has the path: the strongest
        peak within TRACK_MAX_S of it is on it. A word said over the echo can leave what the filter gives back
        matching the sound played (a "hey" 0.21-0.25 under 2 of the 54 barge-ins of bench/echo.py, up to 0.50 in
        the rooms of tests/unit/test_echo_cancel.py), and the hub's voice then passed uncancelled under the rest
        of "hey jarvis"; the echo under it had not moved, and peaked on the path under 5 of the 7 words of that
        kind in those rooms. After an echo moved, it peaked elsewhere or nowhere clearly at 31 of the 32 collapses
        (bench/echo_moved.py, the unit tests); at the other, 0.1 s after the move, the next check saw it."""
        assert self._path is not None
        fine, clear, _ = self._fine(self._path, round(TRACK_MAX_S * self.rate), TRACK_FRAME)
        return clear and abs(fine - self._path) * self.rate < TRACK_MIN_SAMPLES

    def _echo_left(self) -> float:
        """How well what the filter gave back over the last COLLAPSE_S matches the sound played, within
        TRACK_MAX_S of the filter's path (the largest normalised cross-correlation, 0-1). An echo that moved
        passes the filter and matches; a person's word said where the echo is quiet, which takes the filter's
        figure under FOLLOW_BELOW_DB as well, does not."""
        assert self._near_t is not None and self._path is not None
        n, reach = len(self._left), round(TRACK_MAX_S * self.rate)
        if n == 0:
            return 0.0
        far = self._reference(self._near_t - self._path - n / self.rate - reach / self.rate, n + 2 * reach)
        corr = np.correlate(far, self._left, mode="valid")
        power = np.convolve(far * far, np.ones(n, np.float32), mode="valid")
        left = float(self._left @ self._left)
        return float(np.max(np.abs(corr) / np.sqrt(power * left + 1e-12)))

    def _ready(self, whole: int) -> int:
        """How many of the `whole` samples waiting (whole blocks) to be cancelled have their reference.

        An echo that comes before its timestamps say (a host that overstates its latency: 6-23 ms through
        PulseAudio here) has the filter start ahead of the microphone, on sound the speaker may not have
        handed over yet; cancelled against silence, the echo stays and the filter unlearns the room. So
        those blocks wait for it while the speaker is handing sound over, and no longer once the microphone
        is REFERENCE_WAIT_S past the last sound handed over (the answer has ended)."""
        assert self._near_t is not None
        have = round((self._far_t0 + len(self._far) / self.rate + self.delay_s - self._near_t) * self.rate)
        if whole - have > REFERENCE_WAIT_S * self.rate:
            return whole
        return max(0, min(whole, have)) // self.block * self.block

    def _pass(self, samples: np.ndarray) -> np.ndarray:
        samples = np.asarray(samples, dtype="<i2")
        if len(self._pending):
            samples = np.concatenate([self._pending, samples])
            self._pending = np.zeros(0, dtype="<i2")
        self._near_t = (self._near_t or 0.0) + len(samples) / self.rate
        if self._last_played_at is not None and not self._in_tail(self._near_t) and len(self._far):
            self._far = np.zeros(0, dtype=np.float32)  # idle again: the next answer starts a new timeline
            heard, left = self._energy
            if heard > 0.0 and left > 0.0:
                _LOGGER.debug("Echo cancellation: %.1f s, the microphone %.1f dB quieter after it (delay %.0f ms, "
                              "the echo's path %s into the filter)", self._energy_s, 10 * np.log10(heard / left),
                              self.delay_s * 1000, "not found" if self._path is None
                              else f"{(self._path - self.delay_s) * 1000:.0f} ms")
            self._energy, self._energy_s = (0.0, 0.0), 0.0
        return samples

    def _in_tail(self, t: float | None) -> bool:
        return (t is not None and self._last_played_at is not None
                and t - self.delay_s < self._last_played_at + self.tail_s)

    def _one_block(self, near: np.ndarray) -> np.ndarray:
        assert self._near_t is not None
        out = self._filter(near, self._near_t)
        self._advance(self.block)
        return out

    def _filter(self, near: np.ndarray, heard_at: float) -> np.ndarray:
        """One block heard at `heard_at` (the microphone's clock) through the filter, with the reference
        that sounded then."""
        t = heard_at - self.delay_s
        far = self._reference_between(t, self.block) if self._drift.found_once else self._reference(t, self.block)
        engine = self._load()
        if engine is None:
            return near
        self.blocks_processed += 1
        far16 = (np.clip(far, -1.0, 1.0) * 32767).astype("<i2")
        out = np.asarray(engine.process(near, far16)).astype("<i2", copy=False)  # int16 in, int16 out
        near_f, out_f = near.astype(np.float32), out.astype(np.float32)
        energy = (float(near_f @ near_f), float(out_f @ out_f))
        self._energy = (self._energy[0] + energy[0], self._energy[1] + energy[1])
        self._recent.append(energy)
        self._energy_s += self.block / self.rate
        return out

    def _advance(self, samples: int) -> None:
        """The microphone's clock moves on by `samples`; the echo's path slides with the clocks' drift, and
        the reference with it."""
        assert self._near_t is not None
        self._near_t += samples / self.rate
        if self._drift.rate:
            slid = self._drift.rate * samples / self.rate
            self.delay_s += slid
            if self._path is not None:
                self._path += slid

    def _found_at(self, path: float, span: int) -> None:
        """The echo was found `path` after its timestamps over the last `span` samples heard: the drift."""
        assert self._near_t is not None
        if not self._follow_drift:
            return
        drift = self._drift.found(self._near_t - span / 2 / self.rate, path)
        if abs(drift - self._drift_told) >= DRIFT_TOLD:
            _LOGGER.log(logging.INFO if not self._drift_told else logging.DEBUG,
                        "Echo cancellation: the microphone's and the speaker's clocks drift %+.0f ppm apart; the "
                        "reference follows", drift * 1e6)
            self._drift_told = drift

    def _slip(self, why: str = "a device lost time", heard_since_s: float = 0.0) -> None:
        """The echo may no longer be where the filter has it (a device lost time, or the filter suddenly takes
        nothing away): the host's timestamps are not trusted for the next stretches, and while something
        plays, the sound from here on is held from the filter until its echo is found (_hold), so the filter
        does not unlearn the room on a misplaced reference. The last `heard_since_s` heard already echoed
        where it is now and is searched with what follows."""
        self._steady_starts = 0
        playing = self._path is not None and not self._holding and self._in_tail(self._near_t) and len(self._far)
        _LOGGER.debug("Echo cancellation: %s; %s", why, "the echo is looked for again before the filter goes on"
                      if playing else "the next sound is held until its echo is found")
        if not playing:
            return
        assert self._near_t is not None
        self.moves += 1
        self._holding, self._confirmed = True, False
        self._hold_t0, self._hold_played_s = self._near_t - self.delay_s - heard_since_s, SLIP_PLAYED_S
        self._prime_on_find = True
        self._heard = self._heard[len(self._heard) - round(heard_since_s * self.rate):]
        self._since_search = 0
        self._recent.clear()
        self._left = self._left[:0]
        self._drift.restart()

    def _hear(self, near: np.ndarray) -> None:
        self._heard = np.concatenate([self._heard, near.astype(np.float32) / 32768.0])[-int(SEARCH_S * self.rate):]
        self._since_search += len(near)

    def _hold(self) -> None:
        """Keeps this stretch's first sound from the filter while the echo is looked for.

        A stream opened again for the next answer may sound a few milliseconds from where the last one
        did (through PulseAudio, every time); run through the filter like that, the room it learnt is
        lost within a second (Speex: from 32 dB to 2 dB, then 5 s to learn it again). So a stretch's
        first sound passes uncancelled until HOLD_PLAYED_S of it can be looked for near where the echo
        was (or, not there, anywhere: a speaker that ran dry while it waited for the answer sounded
        57-66 ms later through PulseAudio), and the reference is moved to it first; after HOLD_MAX_S
        with no clear echo (a short first sentence, a quiet speaker), the filter takes it as it is and
        the searches while it plays may still move it once (_search). Once STEADY_STARTS stretches in a
        row began where the last one left off, the host's timestamps are trusted and stretches are no
        longer held, until the echo moves.
        """
        assert self._near_t is not None and self._path is not None
        if self._since_search < SEARCH_EVERY_S * self.rate:
            return
        self._since_search = 0
        if self._played_s(self._path) >= self._hold_played_s:
            fine, clear, exact = self._fine(self._path, round(TRACK_MAX_S * self.rate))
            if not clear and len(self._heard) >= SEARCH_PLAYED_S * self.rate:
                # further away: a speaker that ran dry between two answers, or as this one began
                found = self._coarse(len(self._heard) / self.rate)
                if found is not None:
                    fine, clear, exact = self._fine(found, round(TRACK_MAX_S * self.rate))
            if clear:
                self._steady_starts += 1
                self._follow(fine)
                self._found_at(exact, len(self._heard))
                self._holding, self._confirmed, self._found_fine = False, True, fine
                if self._prime_on_find and self._deferred is None:
                    self._prime()
                return
        self._holding = self._near_t - self.delay_s - self._hold_t0 < HOLD_MAX_S

    def _prime(self, before: int = 0, most_s: float = SPEEX_FILTER_S) -> None:
        """Run the filter over what was heard (at most `most_s` of it, ending `before` samples back), against the
        reference where the echo now is, and keep nothing it gives back: over the last SPEEX_FILTER_S held after
        a slip, the COLLAPSE_S before what was kept back (_cancel_deferred), and to learn again (_learn_again).
        After a slip, the filter models the echo from the reference it was last given: it was given none while
        the sound was held, and resuming mid-answer on that stale past, its first quarter second added more than
        it took away (-5 dB) and unlearnt the room it had.
        A new stretch's filter resumes on the last one's quiet end, and is not primed: there, priming cost
        "hey jarvis" under the answer 4 of 54 barge-ins in bench/echo.py (0.722 against 0.796)."""
        assert self._near_t is not None
        engine = self._load()
        n = min(len(self._heard) - before, round(most_s * self.rate)) // self.block * self.block
        if engine is None or n <= 0:
            return
        t = self._near_t - (n + before) / self.rate - self.delay_s
        far = self._reference_between(t, n) if self._drift.found_once else self._reference(t, n)
        heard = self._heard[len(self._heard) - before - n:len(self._heard) - before]
        near = (np.clip(heard, -1.0, 1.0) * 32767).astype("<i2")
        far16 = (np.clip(far, -1.0, 1.0) * 32767).astype("<i2")
        for start in range(0, n, self.block):
            engine.process(near[start:start + self.block], far16[start:start + self.block])
        self.blocks_processed += n // self.block
        self.blocks_again += n // self.block

    def _learn_again(self, filtered: int) -> None:
        """A filter new to the room (over its first LEARN_S of the hub's sound) is run again over the last SEARCH_S
        heard once every LEARN_EVERY_S, against the same reference, keeping nothing it gives back (_prime).

        Speex's filter learns the room from each block once, and from nothing it took 10-12 s of the hub's voice
        to take 25 dB away; meanwhile what it leaves is the hub's own voice, distorted, which once scored 0.90 for
        the wake word 8 s into the room test's first answer. Learning again over the first seconds, 3-8 s into
        that answer it took 22-30 dB away (per second, four rooms) where it took 11-23 before. Run longer, it
        lost up to 10 dB for a second after a pause between sentences. The cost is 13-15 s of filtering, once:
        at each start of the service, and where the echo was found outside the filter and it learns anew."""
        if self._engine is None or self._learnt_s >= LEARN_S:
            return
        self._since_learnt += filtered
        if self._since_learnt < LEARN_EVERY_S * self.rate:
            return
        assert self._near_t is not None
        span, self._since_learnt = self._since_learnt, 0
        self._learnt_s += _sounding_s(self._reference(self._near_t - self.delay_s - span / self.rate, span), self.rate)
        self._prime(most_s=SEARCH_S)

    def _follow(self, fine: float) -> None:
        assert self._path is not None
        moved = fine - self._path
        if abs(moved) * self.rate >= TRACK_MIN_SAMPLES:
            _LOGGER.debug("Echo cancellation: the echo moved %+.2f ms; the reference moves with it", moved * 1000)
            self.delay_s += moved
            self._steady_starts = 0
            self._drift.restart()
        self._path = fine

    def _search(self) -> None:
        """Where the echo is in the microphone against the reference's timestamps, found by correlation
        once every SEARCH_EVERY_S while something plays, and followed.

        Hosts without DAC times (PulseAudio's and PipeWire's ALSA plug-ins) give the stream's nominal
        latency, which was 2.5 s short of the truth through a sound server here: far outside the filter.
        Two searches in a row that agree, with a clear peak, move delay_s when the direct path falls
        outside the first FILTER_SPAN_S of the filter; the filter then learns the room again. Inside
        it, a path that moves by a few milliseconds (a stream reopened for the next answer, a sound
        server's latency, two clocks pulling apart) leaves the filter's room behind as well: Speex took
        5-8 s to learn it again. The reference is moved with the path instead, so the filter it learnt
        still fits: once a stretch where the echo was not yet confirmed, and after that only once the
        latest TRACK_RECENT_S no longer echo where the filter has it and the filter no longer takes the
        echo away (a speaker that ran dry in the middle of an answer: followed within a second). A peak
        elsewhere while the old path still echoes is a reflection's, or the person's voice over the
        echo (a quarter of a millisecond, followed while the person spoke, and their "hey jarvis" went
        unheard). Two clocks drifting apart slide the echo too slowly for that (Speex alone: 16 dB at 20 ppm,
        7 dB at 100, against 28 on one clock): where the echo is found is also a line in time whose slope is
        the drift (echo_drift.ClockDrift), and the reference slides along it (_advance).
        """
        assert self._near_t is not None
        if self._since_search < SEARCH_EVERY_S * self.rate or len(self._heard) < SEARCH_S * self.rate:
            return
        self._since_search = 0
        # where the filter has a path, the latest sound first (an echo that moved there shows there first);
        # an echo outside the filter is taken from all SEARCH_S only, as a short span matches more by chance
        found = self._coarse(TRACK_RECENT_S) if self._path is not None else None
        if found is None or not self._in_filter(found):
            found = self._coarse()
        if found is None:
            self._found = self._found_fine = None
            return
        inside = self._in_filter(found)
        near_path = inside and self._path is not None and abs(found - self._path) <= TRACK_MAX_S
        # the same search as _hold's, so that both take the same peak of the room for the echo's path, but
        # over the latest sound only
        recent = round(TRACK_RECENT_S * self.rate)
        fine, clear, exact = self._fine(self._path if near_path else found, round(TRACK_MAX_S * self.rate), recent)
        agreed = self._found is not None and abs(found - self._found) < SEARCH_AGREE_S
        steady = self._found_fine is not None and abs(fine - self._found_fine) <= TRACK_AGREE_S
        self._found, self._found_fine = found, fine
        if not inside:
            if agreed and self._played_s(self.delay_s + FILTER_LEAD_S) >= SEARCH_PLAYED_S:
                _LOGGER.info("Echo cancellation: the speaker's sound reaches the microphone %.0f ms after its "
                             "timestamps say; the canceller follows it", fine * 1000)
                self.delay_s, self._path = fine - FILTER_LEAD_S, fine
                self._drift.restart()
                self._engine = None  # what it learnt does not fit there: it learns the room from nothing
            return
        if near_path and clear and steady:
            self._found_at(exact, recent)
        if self._path is None:
            self._path = fine  # the filter learns this path where it is
        elif clear and steady and (not self._confirmed or self._lost_path(recent)):
            # once in a stretch the echo may have moved since the last one; after that, only once it has
            # left the path the filter learnt: a peak elsewhere while the old path still echoes, or while
            # the filter still takes the echo away, is a reflection's, or the person's voice over the
            # echo, and following it would undo what the filter learnt
            self._follow(fine)
            self._confirmed = True

    def _in_filter(self, delay: float) -> bool:
        """Whether an echo `delay` after its timestamps falls in the first FILTER_SPAN_S of the filter."""
        return 0.0 <= delay - self.delay_s <= FILTER_SPAN_S

    def _lost_path(self, span: int) -> bool:
        """Whether, over the last `span` samples heard, the echo no longer comes where the filter has it and
        the filter no longer takes it away (the microphone less than FOLLOW_BELOW_DB quieter after it)."""
        assert self._path is not None
        if _taken_db(self._recent) >= FOLLOW_BELOW_DB:
            return False
        return not self._fine(self._path, TRACK_MIN_SAMPLES, span)[1]

    def _played_s(self, delay: float) -> float:
        """Seconds of sound in the reference that the last SEARCH_S heard would echo at `delay`: only where
        the hub played should its echo be missed (while it is silent, the person's voice can match an
        earlier sentence of the hub's better than its own echo, which is not there)."""
        assert self._near_t is not None
        span = min(len(self._heard), round(SEARCH_S * self.rate))
        return _sounding_s(self._reference(self._near_t - span / self.rate - delay, span), self.rate)

    def _coarse(self, span_s: float = SEARCH_S) -> float | None:
        """The strongest echo's delay over the whole range (GCC-PHAT at SEARCH_RATE over the last
        `span_s` heard), or None while too little was played or heard, or no peak stands clear; also None
        when the filter's span holds an echo nearly as strong (a reflection outdoing the direct path)."""
        assert self._near_t is not None
        step = self.rate // SEARCH_RATE
        heard = self._heard[-round(span_s * self.rate):]
        far = self._reference(self._near_t - len(heard) / self.rate - MAX_DELAY_S,
                              round((len(heard) / self.rate + MAX_DELAY_S - MIN_DELAY_S) * self.rate))
        a = heard[: len(heard) // step * step].reshape(-1, step).mean(axis=1)
        b = far[: len(far) // step * step].reshape(-1, step).mean(axis=1)
        if _sounding_s(b, SEARCH_RATE) < SEARCH_PLAYED_S or float(np.sum(a * a)) < 1e-8 * len(a):
            return None  # too little played (a chime: a tone correlates with itself at many lags) or heard
        size = 1 << (len(a) + len(b)).bit_length()
        cross = np.fft.rfft(b, size) * np.conj(np.fft.rfft(a, size))
        corr = np.fft.irfft(cross / (np.abs(cross) + 1e-9), size)[: len(b) - len(a) + 1]
        peak = int(np.argmax(corr))
        if corr[peak] < np.mean(corr) + SEARCH_CLEAR * np.std(corr):
            return None
        found = MAX_DELAY_S - peak * step / self.rate  # the far sample at index `peak` lines up with _heard[0]
        ours = [round((MAX_DELAY_S - d) * SEARCH_RATE) for d in (self.delay_s + FILTER_SPAN_S, self.delay_s)]
        if found - self.delay_s > FILTER_SPAN_S and max(0, ours[0]) < min(len(corr), ours[1] + 1) \
                and np.max(corr[max(0, ours[0]):ours[1] + 1]) >= SEARCH_KEEP * corr[peak]:
            return None  # a reflection after the echo the filter spans, nearly as strong: leave it be; one
            # before the filter is the direct path (no reflection comes first), and the filter misses it
        return found

    def _fine(self, around: float, reach: int, span: int | None = None) -> tuple[float, bool, float]:
        """The delay within `reach` samples of `around`, to the sample, from GCC-PHAT at the full rate over
        TRACK_FRAME blocks of the last `span` samples heard (all SEARCH_S of them by default), whether its
        peak stands clear of the rest, and the delay between samples (the peak's parabola)."""
        assert self._near_t is not None
        n = min(len(self._heard), span or len(self._heard)) // TRACK_FRAME * TRACK_FRAME
        heard = self._heard[-n:].reshape(-1, TRACK_FRAME)
        far = self._reference(self._near_t - n / self.rate - around, n).reshape(-1, TRACK_FRAME)
        window = np.hanning(TRACK_FRAME).astype(np.float32)
        spectra = [np.fft.rfft(x * window, 2 * TRACK_FRAME) for x in (heard, far)]
        cross = np.sum(spectra[0] * np.conj(spectra[1]), axis=0)
        corr = np.fft.irfft(cross / (np.abs(cross) + 1e-12), 2 * TRACK_FRAME)  # lag k: the echo k samples later
        lags = np.arange(-reach, reach + 1)
        lag = int(lags[np.argmax(corr[lags])])
        spread = corr[np.arange(-TRACK_FRAME // 2, TRACK_FRAME // 2)]
        clear = float(corr[lag]) > float(np.mean(spread) + SEARCH_CLEAR * np.std(spread))
        left, mid, right = (float(corr[lag + k]) for k in (-1, 0, 1))
        bend = left - 2 * mid + right
        between_s = 0.5 * (left - right) / bend if bend < 0 else 0.0
        return around + lag / self.rate, clear, around + (lag + between_s) / self.rate

    def _reference_between(self, t: float, n: int) -> np.ndarray:
        """`n` samples of the reference from time `t` on, read between its samples where `t` falls."""
        at = (t - self._far_t0) * self.rate
        first = math.floor(at)
        raw = self._reference(self._far_t0 + (first - HALF_TAPS + 1) / self.rate, n + 2 * HALF_TAPS - 1)
        return between(raw, at - first)

    def _reference(self, t: float, n: int) -> np.ndarray:
        """`n` samples of the reference from time `t` on, silence where nothing was played."""
        first = round((t - self._far_t0) * self.rate)
        far = np.zeros(n, dtype=np.float32)
        lo, hi = max(0, first), min(len(self._far), first + n)
        if hi > lo:
            far[lo - first:hi - first] = self._far[lo:hi]
        return far

    def _load(self) -> BlockCanceller | None:
        if self._engine is None and not self._failed:
            try:
                self._engine = self._engine_factory(self.rate)
                self._learnt_s, self._since_learnt = 0.0, 0  # new to the room: it learns again (_learn_again)
            except Exception as exc:  # noqa: BLE001 - a missing or broken library: hear without cancelling
                self._failed = True
                _LOGGER.warning("Echo cancellation is off: %s", exc)
        return self._engine

    def _take_reference(self) -> None:
        """Move what the speaker played into the 16 kHz timeline, each block where its timestamp says."""
        while self._incoming:
            samples, rate, at = self._incoming.popleft()
            converter = self._converters.get(rate)
            if converter is None:
                converter = self._converters[rate] = _Resampler(rate, self.rate)
            block, at = converter.convert(samples, at)
            if len(block) == 0:
                continue
            end_t = self._far_t0 + len(self._far) / self.rate
            if len(self._far) == 0 or at - end_t > KEEP_S or at < self._far_t0:
                self._far, self._far_t0 = np.zeros(0, dtype=np.float32), at
                self._holding = self._path is not None and self._steady_starts < STEADY_STARTS
                self._hold_t0, self._hold_played_s, self._prime_on_find = at, HOLD_PLAYED_S, False
                self._confirmed = self._path is None
                self._recent.clear()
                self._left = self._left[:0]
                self._drift.restart()
            else:  # a gap (silence between sentences) is kept as it was; a clock stepped back is cut to
                keep = round((at - self._far_t0) * self.rate)
                if keep > len(self._far):
                    self._far = np.concatenate([self._far, np.zeros(keep - len(self._far), np.float32)])
                elif end_t - at > REANCHOR_S:
                    self._far = self._far[:keep]
            self._far = np.concatenate([self._far, block])
            # Until the search has found how late the echo comes, a block counts as sounding no earlier
            # than it reached the canceller on the microphone's clock.
            self._last_played_at = max(self._far_t0 + len(self._far) / self.rate, self._near_t or 0.0)

    def _trim(self) -> None:
        assert self._near_t is not None
        old = round((self._near_t - KEEP_S - self._far_t0) * self.rate)
        if old > 0:
            self._far = self._far[old:]
            self._far_t0 += old / self.rate


def _taken_db(energies: Iterable[tuple[float, float]]) -> float:
    """How much quieter the microphone came out of the filter over these blocks' (before, after) energies, in dB."""
    heard, left = 0.0, 0.0
    for before, after in energies:
        heard, left = heard + before, left + after
    return 10 * float(np.log10((heard + 1e-3) / (left + 1e-3)))


def _sounding_s(samples: np.ndarray, rate: int) -> float:
    """Seconds of `samples` (at `rate`) in 10 ms blocks that carry sound."""
    block = rate * BLOCK_MS // 1000
    blocks = samples[: len(samples) // block * block].reshape(-1, block)
    return float(np.count_nonzero(np.mean(blocks * blocks, axis=1) > 1e-6)) * BLOCK_MS / 1000


class _Resampler:
    """The speaker's blocks at the pipeline's rate, each with the time its first output sample sounds.

    A streaming resampler holds back its filter's delay: the output of one call starts before the
    input given with it, by what it holds, so each output's time is worked out from the counts.
    """

    def __init__(self, in_rate: int, out_rate: int) -> None:
        self.in_rate, self.out_rate = in_rate, out_rate
        self._converter = Converter(out_rate)
        self._in = 0
        self._out = 0

    def convert(self, samples: np.ndarray, at: float) -> tuple[np.ndarray, float]:
        if self.in_rate == self.out_rate:
            return samples, at
        out = self._converter.convert(AudioChunk.from_float(samples, self.in_rate)).to_float()[:, 0]
        self._in += len(samples)
        self._out += len(out)
        held_s = self._in / self.in_rate - self._out / self.out_rate
        return out, at + len(samples) / self.in_rate - held_s - len(out) / self.out_rate
