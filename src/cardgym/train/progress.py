"""The trainer's dependency-free progress reporter (stderr).

One line per update when stderr is not a terminal (a redrawn bar on a terminal), throttled to one line
every `NON_TTY_EVERY_S` seconds, and a heartbeat thread that repeats the current line when nothing was
written for that long (a phase that makes no progress calls, such as a first-use compilation or an
evaluation, still shows a line at least every `NON_TTY_EVERY_S` seconds, with the time elapsed).

The ETA is measured from the first update that reports progress, not from the start: the first step of
a phase often pays for compilation, which would make an ETA from the start far too long. Until two
updates have reported progress the ETA reads ``--``.

Hand-written rather than ``tqdm``: the trainer has no dependency beyond torch and numpy, and the log lines
carry the trainer's own fields (steps, win rates, evaluations).
"""

from __future__ import annotations

import math
import sys
import threading
import time

#: seconds between progress lines when stderr is not a terminal; the heartbeat repeats the current line
#: after this much silence, so a log never sits silent for more than about this long
NON_TTY_EVERY_S = 5.0

#: how often the heartbeat thread looks at the clock
HEARTBEAT_POLL_S = 1.0


def _steps(done: int, total: int) -> str:
    return f"{done / 1e6:.2f}M/{total / 1e6:.2f}M"


def _minutes(seconds: float | None) -> str:
    if seconds is None:
        return "  --"
    return f"{seconds / 60:4.1f}m"


class Progress:
    """A progress reporter over ``total`` units (``total=0``: a phase without a count, shown as its
    elapsed time and text only).

    ``update(done, text)`` records progress; a line is written when forced, on a terminal, or when
    `every` seconds have passed since the last one. ``fmt(done, total)`` formats the count
    (default: millions of steps). ``clock`` and ``stream`` are for tests; ``heartbeat=False`` leaves
    the heartbeat to explicit `tick` calls."""

    def __init__(self, total: int, enabled: bool = True, every: float = NON_TTY_EVERY_S, fmt=_steps,
                 stream=None, clock=time.perf_counter, heartbeat: bool = True):
        self.total, self.enabled, self.every, self.fmt = int(total), enabled, float(every), fmt
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.t0 = clock()
        self._last = -math.inf  # when the last line was written
        self._base = None  # (time, done) of the first update that reported progress: the ETA's origin
        self._eta = None  # (time of the update, seconds left then)
        self.done, self.text = 0, ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if enabled and heartbeat:
            self._thread = threading.Thread(target=self._beat, name="cardgym-progress", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------ reporting
    def eta(self, now: float | None = None) -> float | None:
        """Seconds left, from the rate since the first update that reported progress (``None`` until
        a second one has)."""
        if self._eta is None:
            return None
        now = self.clock() if now is None else now
        t, left = self._eta
        return max(0.0, left - (now - t))

    def line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        el = now - self.t0
        if self.total <= 0:
            return f"[{el / 60:4.1f}m] {self.text}"
        frac = min(1.0, self.done / self.total)
        bar = "#" * int(frac * 24) + "." * (24 - int(frac * 24))
        return (f"[{bar}] {100 * frac:5.1f}% {self.fmt(self.done, self.total)} "
                f"{el / 60:4.1f}m<{_minutes(self.eta(now))} {self.text}")

    def _write(self, now):
        line = self.line(now)
        self.stream.write(("\r" + line + "\033[K") if self.tty else line + "\n")
        self.stream.flush()
        self._last = now

    def update(self, done: int, text: str | None = None, force: bool = False):
        """Record ``done`` units (and the text shown after the bar); write a line when due."""
        if not self.enabled:
            return
        with self._lock:
            now = self.clock()
            done = int(done)
            if done > 0 and self._base is None:
                self._base = (now, done)
            elif self._base is not None and done > self._base[1] and now > self._base[0]:
                rate = (done - self._base[1]) / (now - self._base[0])
                self._eta = (now, max(0, self.total - done) / rate)
            self.done = done
            if text is not None:
                self.text = text
            if force or self.tty or now - self._last >= self.every:
                self._write(now)

    def tick(self):
        """The heartbeat: write the current line again if nothing was written for `every` seconds."""
        if not self.enabled:
            return
        with self._lock:
            now = self.clock()
            if now - self._last >= self.every:
                self._write(now)

    def _beat(self):
        while not self._stop.wait(min(HEARTBEAT_POLL_S, self.every)):
            self.tick()

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def status(text: str, enabled: bool = True, **kwargs) -> Progress:
    """A phase without a count (``with status("loading…"):``): its text and elapsed time at once, then
    every `NON_TTY_EVERY_S` seconds until it ends."""
    p = Progress(0, enabled, **kwargs)
    p.update(0, text, force=True)
    return p
