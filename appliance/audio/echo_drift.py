"""Two devices' clocks drifting apart under the echo canceller: the drift, from where the echo is found over
time, and the reference read between its samples to follow it."""

from __future__ import annotations

import math
from collections import deque
from typing import Final

import numpy as np

KEEP_S: Final = 120.0  # seconds of the microphone's clock over which the echo's findings make the estimate
SPAN_S: Final = 6.0  # seconds the findings must cover (within stretches that did not move) before an estimate
LEAST_FINDINGS: Final = 12  # ... and how many of them there must be
MAX_DRIFT: Final = 1e-3  # a slide faster than 1000 ppm is no clock's: a path still moving, not followed
OUTLIER_S: Final = (1e-3, 1e-4)  # seconds off the fit beyond which a finding is left out, first and then (a
# reflection's peak, the person's voice)
SIGNIFICANT: Final = 3.0  # standard errors the drift must stand away from none to be followed
STEADY_DRIFT: Final = 8e-6  # the earlier and the later half of the findings must agree on it to this (s/s) ...
STEADY_SHARE: Final = 0.3  # ... or to this share of it: a clock's drift is steady, a latency settling is not
HALF_TAPS: Final = 8  # taps on each side of the interpolator that reads the reference between its samples


class ClockDrift:
    """How fast the echo slides against the reference's timestamps, in seconds per second (ppm / 1e6).

    A USB microphone and a USB speaker each run on their own crystal, typically tens of ppm apart (100 ppm
    is 1.6 samples a second at 16 kHz), and the frames each side counts slide apart by that much: the echo
    comes a little later (or earlier) every second. An adaptive filter chases a path that keeps moving and
    never settles (Speex: 28 dB on one clock, 16 dB at 20 ppm, 7 dB at 100 ppm). The canceller reports
    where it finds the echo (found()), sub-sample, a few times a second; within one stretch of sound that
    did not jump (restart() between), the path against time is a line whose slope is the drift. Slopes are
    pooled across stretches (each has its own offset), findings far off the line (a reflection's peak, the
    person's voice over the echo) are left out, and the drift is followed only once it stands clear of none
    and the earlier and later halves of the findings agree on it: through PulseAudio, a path that slid 69 ppm
    for the first seconds of sound and then stood still was followed for 20 s, and the room was lost.
    """

    def __init__(self) -> None:
        self.rate = 0.0
        """Seconds the echo slides per second of the microphone's clock; 0 until one is found."""
        self.found_once = False
        """Whether a drift was ever followed: from then on the reference is read between its samples."""
        self._findings: deque[tuple[int, float, float]] = deque()  # (stretch, time, path)
        self._stretch = 0

    def restart(self) -> None:
        """The path may have jumped (a new stretch of sound, a move followed): findings after are a new line."""
        self._stretch += 1

    def found(self, at: float, path: float) -> float:
        """The echo was found `path` seconds after its timestamps at the microphone's time `at`; the drift."""
        self._findings.append((self._stretch, at, path))
        while self._findings and self._findings[0][1] < at - KEEP_S:
            self._findings.popleft()
        estimate = self._fit()
        if estimate is not None:
            self.rate = estimate
            self.found_once = self.found_once or estimate != 0.0
        return self.rate

    def _fit(self) -> float | None:
        """The pooled slope of path against time, or None while the findings say too little; 0 when they say
        the clocks agree."""
        if len(self._findings) < LEAST_FINDINGS:
            return None
        stretch, t, p = (np.array(column) for column in zip(*self._findings, strict=True))
        keep = np.ones(len(t), dtype=bool)
        for limit in OUTLIER_S:  # a far-off finding moves the first line; the next leaves it out
            line = _line(stretch, t, p, keep)
            if line is None:
                return None
            keep &= np.abs(line[1]) <= limit
        line = _line(stretch, t, p, keep)
        if line is None or abs(line[0]) > MAX_DRIFT:
            return None
        slope, residual, sxx = line
        dof = max(1, int(np.count_nonzero(keep)) - len(np.unique(stretch[keep])) - 1)
        error = math.sqrt(float(np.sum(residual[keep] ** 2)) / dof / sxx)
        if abs(slope) <= SIGNIFICANT * error:
            return 0.0
        middle = float(np.median(t[keep]))
        halves = [_line(stretch, t, p, keep & side) for side in (t <= middle, t > middle)]
        if halves[0] is None or halves[1] is None:
            return None
        if abs(halves[0][0] - halves[1][0]) > max(STEADY_DRIFT, STEADY_SHARE * abs(slope)):
            return 0.0  # a path that slid and stopped (a sound server settling its latency): no clock's drift
        return slope


def _line(stretch: np.ndarray, t: np.ndarray, p: np.ndarray,
          keep: np.ndarray) -> tuple[float, np.ndarray, float] | None:
    """The slope of `p` against `t` over the kept findings, each stretch with its own offset; every
    finding's distance from that line, and the spread of the kept times; None while they cover too little."""
    if np.count_nonzero(keep) < LEAST_FINDINGS:
        return None
    tc, pc = _centred(stretch, t, keep), _centred(stretch, p, keep)
    sxx = float(np.sum(tc[keep] ** 2))
    spans = sum(float(np.ptp(t[keep & (stretch == s)])) for s in np.unique(stretch[keep]))
    if spans < SPAN_S or sxx <= 0.0:
        return None
    slope = float(np.sum(tc[keep] * pc[keep])) / sxx
    return slope, pc - slope * tc, sxx


def _centred(group: np.ndarray, values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """`values` less the mean of the kept ones of their group."""
    out = values.astype(np.float64).copy()
    for g in np.unique(group):
        members = group == g
        kept = members & keep
        out[members] -= float(np.mean(values[kept])) if np.any(kept) else 0.0
    return out


def _taps(fraction: float) -> np.ndarray:
    """A Blackman-windowed sinc that reads `fraction` of a sample later, its gain 1 at 0 Hz."""
    x = np.arange(-HALF_TAPS + 1, HALF_TAPS + 1) - fraction
    taps = np.sinc(x) * (0.42 + 0.5 * np.cos(np.pi * x / HALF_TAPS) + 0.08 * np.cos(2 * np.pi * x / HALF_TAPS))
    return (taps / np.sum(taps)).astype(np.float32)


FRACTIONS: Final = 64  # steps a sample is read between in: 1/128 of a sample at most from where it is asked for
_TAPS: Final = np.stack([_taps(k / FRACTIONS) for k in range(FRACTIONS + 1)])


def between(samples: np.ndarray, fraction: float) -> np.ndarray:
    """`samples` read `fraction` (0-1) of a sample later, by a windowed sinc of 2 * HALF_TAPS taps: the
    output's k-th sample lies between the input's k + HALF_TAPS - 1 and the next, so 2 * HALF_TAPS - 1
    fewer come out than go in."""
    windows = np.lib.stride_tricks.sliding_window_view(samples.astype(np.float32, copy=False), 2 * HALF_TAPS)
    return windows @ _TAPS[round(fraction * FRACTIONS)]
