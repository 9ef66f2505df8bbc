"""Plain-Python readings of each game's legality, written from RULES.md independently of the kernels.

``LEGAL[game](record, rules) -> set of legal action ids`` for the seat to act. The property tests
compare the compiled masks against these on random play (`legal_of`). A game that lives in the test
suite (tests/games/<name>/) brings its own reading, ``legal`` in its folder's ``reference.py``.
"""

from __future__ import annotations

import importlib
import importlib.util

# ----------------------------------------------------------------------------------------- Skyjo
SKYJO_HIDDEN, SKYJO_UP, SKYJO_REMOVED = 0, 1, 2
SKYJO_SETUP, SKYJO_START, SKYJO_DRAWN, SKYJO_TAKEN = 0, 1, 2, 3


def skyjo_legal(rec, rules):
    if rec["status"] != 0:
        return set()
    seat = int(rec["current"])
    up = [int(x) for x in rec["up"][seat]]
    hidden = {p for p in range(12) if up[p] == SKYJO_HIDDEN}
    present = {p for p in range(12) if up[p] != SKYJO_REMOVED}
    phase = int(rec["phase"])
    if phase == SKYJO_SETUP:
        return hidden  # a setup reveal: any face-down card of one's own grid
    if phase == SKYJO_START:
        # draw from the draw pile, or take the discard top (the discard pile is never empty at a turn start)
        return {24, 25} if rec["discard_len"] > 0 else {24}
    if phase == SKYJO_DRAWN:
        # replace any card (face up or down) with the drawn card, or discard it and reveal a face-down card
        return {12 + p for p in present} | hidden
    if phase == SKYJO_TAKEN:
        return {12 + p for p in present}  # a taken discard must replace a card
    raise AssertionError(f"unknown Skyjo phase {phase}")


LEGAL = {"skyjo": skyjo_legal}


# --------------------------------------------------------------------------------------- Skip-Bo
def _skipbo_need(rules, pile, height):
    """The value build pile ``pile`` of ``height`` cards takes next."""
    if rules.build_directions == "two_up_two_down" and pile >= 2:
        return 12 - height
    return height + 1


def _skipbo_next(rules, pile, value):
    """The value after ``value`` on ``pile`` (None past the end)."""
    nxt = value - 1 if (rules.build_directions == "two_up_two_down" and pile >= 2) else value + 1
    return nxt if 1 <= nxt <= 12 else None


def skipbo_sources(rec, rules, seat):
    """{source id: card code} of every card the seat may play now (tops only)."""
    out = {}
    if rec["stock_len"][seat] > 0:
        out[0] = int(rec["stock"][seat, rec["stock_len"][seat] - 1])
    for v in range(1, 13):
        if rec["hand"][seat, v] > 0:
            out[v] = v
    if rec["hand"][seat, 0] > 0:
        out[13] = 0
    for k in range(4):
        n = rec["disc_len"][seat, k]
        if n > 0:
            out[14 + k] = int(rec["disc"][seat, k, n - 1])
    if rules.teams:
        partner = (seat + rules.num_players // 2) % rules.num_players
        if rec["stock_len"][partner] > 0:
            out[18] = int(rec["stock"][partner, rec["stock_len"][partner] - 1])
        for k in range(4):
            n = rec["disc_len"][partner, k]
            if n > 0:
                out[19 + k] = int(rec["disc"][partner, k, n - 1])
    return out


def skipbo_legal(rec, rules):
    if rec["status"] != 0:
        return set()
    seat = int(rec["current"])
    sources = skipbo_sources(rec, rules, seat)
    legal = set()
    cover = int(rec["cover"])
    if rules.wild_must_be_covered and cover >= 0:
        # a wild was just played on `cover`: only numbered cards of the needed value onto that pile
        need = _skipbo_need(rules, cover, int(rec["heights"][cover]))
        return {src * 4 + cover for src, card in sources.items() if card == need}
    for pile in range(4):
        need = _skipbo_need(rules, pile, int(rec["heights"][pile]))
        for src, card in sources.items():
            if card == need:
                legal.add(src * 4 + pile)
            elif card == 0:
                if not rules.wild_must_be_covered:
                    legal.add(src * 4 + pile)
                    continue
                follow = _skipbo_next(rules, pile, need)
                # the cover must come from another source (the card under a played top is not counted)
                others = [c for s, c in sources.items() if s != src]
                if follow is not None and follow in others:
                    legal.add(src * 4 + pile)
    if rec["hand_len"][seat] > 0:
        for code in range(13):
            if rec["hand"][seat, code] > 0:
                idx = 12 if code == 0 else code - 1
                legal.update(92 + idx * 4 + k for k in range(4))
    else:
        legal.add(144)
    return legal


LEGAL["skipbo"] = skipbo_legal


# -------------------------------------------------------------------------------- Skip-Bo Junior
def skipbo_junior_legal(rec, rules):
    if rec["status"] != 0:
        return set()
    seat = int(rec["current"])
    sources = {}
    if rec["stock_len"][seat] > 0:
        sources[0] = int(rec["stock"][seat, rec["stock_len"][seat] - 1])
    for k in range(3):
        n = rec["stack_len"][seat, k]
        if n > 0:
            sources[1 + k] = int(rec["stacks"][seat, k, n - 1])
    legal = set()
    for pile in range(4):
        need = int(rec["heights"][pile]) + 1
        for src, card in sources.items():
            if card == 0 or card == need:
                legal.add(src * 4 + pile)
    if not rules.must_play:
        legal.add(16)
    return legal


LEGAL["skipbo_junior"] = skipbo_junior_legal


def legal_of(name: str):
    """The plain-Python legality of game ``name``: `LEGAL`, else ``legal`` of the game folder's own
    ``reference.py`` (a test game's), else None (the game has no independent reading)."""
    if name in LEGAL:
        return LEGAL[name]
    import cardgym

    module = f"{cardgym.GAMES[name].package}.reference"
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module).legal
