"""The generic test suite of a cardgym game, shipped in the package: ``check_game(name)``.

A game author runs it from their own tests (``cardgym new-game`` writes one that does)::

    from cardgym.testing import check_game

    def test_my_game():
        check_game("my_game")                       # every check, on the game's GameSpec.test_configs

The suite is a list of named checks (`CHECKS`, in order; `register` adds more). Each check takes a
`Context` (one game under one rule configuration) and raises on failure or `Skip` when it does not
apply. Every assumption a check makes comes from the game's spec: the number of players is the
configuration's (1 included), a game may have no illegal action at its first decision, episodes may
end after one step (or inside ``reset()``), and no check names a seat the game does not have.

``check_game`` runs every check on every configuration and raises `GameCheckError` listing every
failure (check, configuration, message); it returns the report ``{(check, config id): "passed" |
"skipped: reason"}`` when none failed. A check of an optional ability the game does not offer (no
``WORLD``: the world checks; no scene: the pictures and views) is skipped with the reason, e.g.
``"skipped: world checks (the game has no WORLD in its observe.py)"``; `run_check` turns that into a
pytest skip in a game's own tests (``cardgym new-game`` writes tests that use it).
"""

from __future__ import annotations

from .checks import (
    CHECKS,
    Check,
    Context,
    PAGE_SECTIONS,
    GameCheckError,
    PageSectionWarning,
    Skip,
    aec_trajectory,
    check_game,
    config_id,
    golden_text,
    random_walk,
    register,
    run_check,
    vec_trajectory,
)

__all__ = ["CHECKS", "Check", "Context", "GameCheckError", "Skip", "check_game", "config_id", "golden_text",
           "random_walk", "register", "run_check", "aec_trajectory", "vec_trajectory", "PAGE_SECTIONS",
           "PageSectionWarning"]
