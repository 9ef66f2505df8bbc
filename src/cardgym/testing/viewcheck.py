"""The seat-view leak check: `check_view` (one game, one set of rule options), for the generic test kit.

A seat's view (`cardgym.render.view.view`, ``env.unwrapped.view(seat)``) must show nothing the seat
cannot see. The check plays random games and, at every few decisions, re-deals every card hidden from
seat ``k`` by its own re-deal (`cardgym.core.contract.worlds.hidden_places` and `honest_redeal`: the places of
the ``WORLD``'s declared fields that hold a card seat ``k`` does not observe, dealt again uniformly, not
through the game's ``WORLD.resample``; a game without ``cards_of``: a world of ``k``,
`cardgym.core.contract.worlds.sample_world`; on two states checked of three, the game's ``WORLD``) and
asserts that ``view(k)`` and the spectator's ``view(None)`` are byte-identical (``json.dumps`` with
sorted keys).
It also checks what a view must hold: it is JSON-serialisable, the seat to act sees its legal actions
(and no other seat does), every ``refs`` id of an action names a card or pile of the view, and no two
legal actions are clicked the same way.
"""

from __future__ import annotations

import importlib

import numpy as np

import cardgym

from cardgym.core.contract.worlds import card_places, hidden_places, honest_redeal, sample_world
from cardgym.render.view import dumps, element_ids, view


def _clean(record):
    """One record (``np.void``) from a record or a 1-element array."""
    return record[0] if isinstance(record, np.ndarray) and record.shape == (1,) else record


def check_view(game_name: str, options: dict | None = None, games: int = 3, seed: int = 0, every: int = 3,
               max_steps: int = 400) -> int:
    """Raise ``AssertionError`` naming the game, seat and step where a view leaks or is malformed.

    Plays ``games`` random-bot games of ``game_name`` under the rule ``options`` (up to ``max_steps``
    decisions each) and checks every ``every``-th state; returns the number of states checked.
    """
    game = cardgym.get_game(game_name)
    if game.world is None or game.scene is None:
        raise AssertionError(f"{game_name}: the view check needs the game's scene and WORLD (sample_world)")
    mod = importlib.import_module(cardgym.GAMES[game_name].module)
    options = dict(options or {})
    env = mod.raw_env(**options)
    rng = np.random.default_rng(seed)
    checked = 0
    for g in range(games):
        env.reset(seed=seed + g)
        step = 0
        while True:
            if step % every == 0 or int(env.record["status"]) != 0:
                _check_state(game, env, rng, f"{game_name} {options} game {g} step {step}", honest=checked % 3 == 0)
                checked += 1
            if int(env.record["status"]) != 0 or step >= max_steps:
                break
            env.step(env.bot_action("random"))
            step += 1
    return checked


def _check_state(game, env, rng, where: str, honest: bool = True) -> None:
    rules, record = env.rules, env.record
    n = env.num_players
    running = int(record["status"]) == 0
    cur = int(record["current"])
    views = {k: view(game, record, rules, k) for k in [None] + list(range(n))}
    for k, v in views.items():
        try:
            text = dumps(v)
        except TypeError as exc:
            raise AssertionError(f"{where}: view({k}) is not JSON-serialisable: {exc}") from None
        if k is not None and k == cur and running:
            assert v["legal"], f"{where}: view({k}) of the seat to act lists no legal action"
            assert sorted(x["action"] for x in v["legal"]) == env.legal_actions(), (
                f"{where}: view({k}) legal actions differ from the env's")
            ids = element_ids(v)
            seen = {}
            for x in v["legal"]:
                for ref in x["refs"]:
                    assert ref in ids, f"{where}: action {x['action']} refers to {ref!r}, not in view({k})"
                if x["refs"]:
                    key = tuple(x["refs"])
                    assert key not in seen, (
                        f"{where}: actions {seen[key]} and {x['action']} are both clicked as {list(key)}")
                    seen[key] = x["action"]
            for key, a in seen.items():
                for j in range(1, len(key)):
                    assert key[:j] not in seen, (
                        f"{where}: action {seen[key[:j]]} is clicked as {list(key[:j])}, the start of action {a}")
        else:
            assert not v["legal"], f"{where}: view({k}) lists legal actions but seat {k} is not to act"
        assert text == dumps(view(game, record, rules, k)), f"{where}: view({k}) is not deterministic"
    seat = cur if running else None
    assert dumps(env.view(seat)) == dumps(view(env.game, record, rules, seat)), f"{where}: env.view differs from view()"
    # the check's own re-deal on every third state checked (it probes the places), the WORLD's on the others
    live = card_places(game, rules, record) if honest else None
    for k in range(n):
        if live is None:  # no cards_of: which places hold a card is unknown; the game's WORLD re-deals
            other = _clean(sample_world(game, rules, record, k, int(rng.integers(2**63)), check=False))
        else:
            other = honest_redeal(record, hidden_places(game, rules, record, k, live), rng)
        for viewer in (k, None):
            a = dumps(views[viewer])
            b = dumps(view(game, other, rules, viewer))
            if a != b:
                import difflib

                diff = "\n".join(list(difflib.unified_diff(a.split(","), b.split(","), lineterm="", n=1))[:20])
                raise AssertionError(
                    f"{where}: view({viewer}) changes when the cards hidden from seat {k} are re-dealt:\n{diff}")


__all__ = ["check_view"]
