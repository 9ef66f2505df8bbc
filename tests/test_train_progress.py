"""The trainer's progress reporter: its cadence, its ETA and its heartbeat, on a fake clock (no timed test)."""

from __future__ import annotations

import io
import re

from cardgym.train.progress import NON_TTY_EVERY_S, Progress, status


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def _bar(total=1000, **kw):
    clock, out = Clock(), io.StringIO()
    return Progress(total, stream=out, clock=clock, heartbeat=False, **kw), clock, out


def _lines(out):
    return [ln for ln in out.getvalue().splitlines() if ln]


def test_updates_are_throttled_but_a_line_comes_at_least_every_interval():
    bar, clock, out = _bar()
    times = []
    for k in range(1, 200):  # an update every 0.3 s for a minute
        clock.t += 0.3
        n = len(_lines(out))
        bar.update(5 * k, "step")
        if len(_lines(out)) > n:
            times.append(clock.t)
    assert len(times) >= 60 / NON_TTY_EVERY_S - 1
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert all(NON_TTY_EVERY_S <= g < NON_TTY_EVERY_S + 0.31 for g in gaps), gaps


def test_the_heartbeat_repeats_the_line_through_a_silent_phase():
    bar, clock, out = _bar()
    bar.update(10, "evaluating against greedy…", force=True)
    written = [clock.t]
    for _ in range(60):  # a minute without any update (a compilation, an evaluation)
        clock.t += 1.0
        n = len(_lines(out))
        bar.tick()
        if len(_lines(out)) > n:
            written.append(clock.t)
    gaps = [b - a for a, b in zip(written, written[1:])]
    assert gaps and max(gaps) <= NON_TTY_EVERY_S and len(written) >= 12
    assert all("evaluating against greedy" in ln for ln in _lines(out))
    assert "1.0m<" in _lines(out)[-1]  # the elapsed time moves on


def test_eta_ignores_the_slow_first_step_and_counts_down():
    bar, clock, out = _bar(total=1000)
    bar.update(0, "start", force=True)
    assert "<  --" in _lines(out)[-1]  # no ETA before any progress
    clock.t += 120.0  # the first step pays for compilation
    bar.update(10, force=True)
    assert "<  --" in _lines(out)[-1]  # one point gives no rate
    clock.t += 10.0  # then 10 units a second
    bar.update(110, force=True)
    eta = bar.eta()
    assert abs(eta - 89.0) < 1e-6  # 890 left at 10/s, not the 2 hours a rate from the start would give
    assert re.search(r"<\s*1\.5m", _lines(out)[-1])
    clock.t += 30.0
    bar.tick()
    assert abs(bar.eta() - 59.0) < 1e-6 and re.search(r"<\s*1\.0m", _lines(out)[-1])


def test_status_shows_text_and_elapsed_time_and_disabled_writes_nothing():
    clock, out = Clock(), io.StringIO()
    with status("dealing the first games…", stream=out, clock=clock, heartbeat=False) as s:
        clock.t += 12.0
        s.tick()
    assert _lines(out) == ["[ 0.0m] dealing the first games…", "[ 0.2m] dealing the first games…"]
    bar, clock, out = _bar(enabled=False)
    bar.update(5, "x", force=True)
    bar.tick()
    assert out.getvalue() == ""


def test_the_heartbeat_thread_stops_on_close():
    out = io.StringIO()
    bar = Progress(10, stream=out, every=0.01)
    assert bar._thread is not None and bar._thread.is_alive()
    bar.close()
    assert bar._thread is None


def test_cloning_epochs_and_evaluations_report_progress_as_they_go(tmp_path, monkeypatch):
    """Behaviour cloning updates the reporter after every minibatch, and an evaluation before each bot,
    so neither phase is silent between its end-of-epoch (end-of-evaluation) lines."""
    import pytest

    pytest.importorskip("torch")
    from cardgym.train import ppo
    from cardgym.train.config import Config

    calls = []

    class Recorder(Progress):
        def update(self, done, text=None, force=False):
            calls.append((self, done, text))
            super().update(done, text, force)

    monkeypatch.setattr(ppo, "Progress", Recorder)
    cfg = Config(game="skipbo_junior", out=str(tmp_path / "run"), num_envs=16, rollout=8, total_steps=128,
                 imitate="expert", pretrain_steps=512, pretrain_epochs=2, pretrain_minibatch=64,
                 opponents="random:1", hidden=(16,), eval_games=4, final_eval_games=4, threads=1)
    tr = ppo.Trainer(cfg)
    tr._assign()
    tr.pretrain()
    (bar,) = {c[0] for c in calls if "cloning" in (c[2] or "")}  # the bar over the cloning updates
    cloning = [done for b, done, _ in calls if b is bar]
    updates = 2 * -(-(512 - 512 // 16) // 64)  # 2 epochs x minibatches of the 15 records of 16 not held out
    assert bar.total == updates and cloning[-1] == updates
    assert set(range(1, updates + 1)) <= set(cloning)  # an update after every minibatch
    assert any("epoch 2/2" in (t or "") for b, _, t in calls if b is bar)
    calls.clear()
    tr.evaluate(4, Recorder(0, stream=io.StringIO(), heartbeat=False))
    texts = [t for _, _, t in calls]
    assert [any(f"against {b}" in (t or "") for t in texts) for b in tr.bots()] == [True] * len(tr.bots())
