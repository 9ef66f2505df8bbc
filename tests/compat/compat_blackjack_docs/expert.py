"""The Blackjack expert: basic strategy without doubling or splitting (hard hands stand on 17 or more,
and on 13-16 against a dealer's 2-6 and on 12 against 4-6; soft hands hit up to soft 17, and soft 18
against a dealer's 9, ten or ace)."""

from __future__ import annotations

from numba import njit

from .rules import HIT, STAND, card_value, hand_total


@njit(cache=True)
def bot_expert(s, p, mask):
    if not mask[HIT]:
        return STAND
    j = s.current
    total, soft = hand_total(s.hand[j], s.hand_len[j])
    up = card_value(s.dealer[0])
    if soft:
        if total <= 17 or (total == 18 and (up >= 9 or up == 1)):
            return HIT
        return STAND
    if total >= 17:
        return STAND
    if total >= 13:
        return STAND if 2 <= up <= 6 else HIT
    if total == 12:
        return STAND if 4 <= up <= 6 else HIT
    return HIT


BOTS = {"expert": bot_expert}
