"""The trainer's dependency-free progress bar (stderr)."""

from __future__ import annotations

import sys
import time

#: seconds between progress lines when stderr is not a terminal (a line at the end of the first update
#: after that: an iteration takes a few seconds, so a log never sits silent for 10 s)
NON_TTY_EVERY_S = 5.0


class Progress:
    """A dependency-free progress bar on stderr (one line per update when not a terminal)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.enabled = total, enabled
        self.tty = sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self._last = 0.0

    def update(self, done: int, text: str = "", force: bool = False):
        if not self.enabled:
            return
        now = time.perf_counter()
        if not self.tty and not force and now - self._last < NON_TTY_EVERY_S:
            return
        self._last = now
        frac = min(1.0, done / max(1, self.total))
        el = now - self.t0
        eta = el / frac - el if frac > 0 else 0
        bar = "#" * int(frac * 24) + "." * (24 - int(frac * 24))
        line = (f"[{bar}] {100 * frac:5.1f}% {done / 1e6:.2f}M/{self.total / 1e6:.2f}M "
                f"{el / 60:4.1f}m<{eta / 60:4.1f}m {text}")
        sys.stderr.write(("\r" + line + "\033[K") if self.tty else line + "\n")
        sys.stderr.flush()

    def close(self):
        if self.enabled and self.tty:
            sys.stderr.write("\n")
