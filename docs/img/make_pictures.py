"""Regenerate the pictures of docs/rendering.md: ``python docs/img/make_pictures.py`` (needs Pillow).

Each picture is a game of the greedy bots stopped at a fixed seed and turn (in Skyjo, just after a
draw, so the held card shows), drawn by
``cardgym.render.image`` from the public view or one seat's view.
"""

from __future__ import annotations

from pathlib import Path

from cardgym import render, skipbo_junior_v0, skipbo_v0, skyjo_v0

HERE = Path(__file__).resolve().parent


def play_until(env, turn: int, seat: int | None = None):
    """Greedy moves until ``turn`` is reached (and, with ``seat``, that seat is to act)."""
    while env.agents:
        r = env.record
        if int(r["turn"]) >= turn and (seat is None or int(r["current"]) == seat):
            return env
        env.step(env.bot_action("greedy"))
    raise RuntimeError("the game ended before the turn asked for")


def main():
    shots = [
        ("skyjo.png", skyjo_v0, dict(num_players=3), 5, 14, None, None),
        ("skipbo.png", skipbo_v0, dict(num_players=2, match_target=500), 2, 52, 0, 0),
        ("skipbo_junior.png", skipbo_junior_v0, dict(num_players=3), 3, 9, 2, 2),
    ]
    for name, mod, options, seed, turn, seat, viewer in shots:
        env = mod.raw_env(**options)
        env.reset(seed=seed)
        play_until(env, turn, seat)
        if mod is skyjo_v0 and env.action_mask()[24]:
            env.step(24)  # the seat to act draws: the picture shows the held card
        img = render.image(mod.GAME, env.record, env.rules, viewer=viewer)
        img.quantize(256).save(HERE / name, optimize=True)  # a palette PNG, as small as the old ones
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
