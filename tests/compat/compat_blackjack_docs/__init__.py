"""# Blackjack (`blackjack_v0`)

An example cardgym plugin (`examples/plugin_blackjack/` in cardgym's repository): Blackjack against the
dealer for 1 to 4 seats, each playing alone against the house. It is an installed package that
registers itself through the `cardgym.games` entry point and uses only `cardgym.kit`.

## Rules as implemented

One 52-card deck, shuffled for every game. Each seat gets two cards face up, the dealer one face up and
one face down (the hole card), dealt around the table twice, the dealer last. An ace counts 1, or 11
while that keeps the hand at 21 or less (a soft hand); J, Q and K count ten.

- **A turn**: the seats play in order. The seat to act hits (takes the shoe's top card) or stands. A
  hand that reaches 21 or more by hitting is finished at once (over 21 is a bust); a two-card 21 (a
  natural) can only stand. No doubling, splitting, insurance or surrender.
- **The dealer** then turns the hole card and draws until 17 or more (with `dealer_hits_soft_17`,
  also on a soft 17), unless every seat has busted.
- **Payment**: a seat that busted loses (-1); otherwise it beats the dealer (+1) when the dealer
  busted or its total is higher, pushes (0) on an equal total, and loses (-1) on a lower one. A natural
  pays like any win.

## Options

`num_players` (1-4, default 1), `dealer_hits_soft_17` (default false), `max_turns` (default 200),
`reward` (`"win"` only).

## Actions

`0` stand, `1` hit.

## Observations

`"vector"`: the dealer's up card (one-hot by value), the dealer's final total once over, each seat's
total, softness, card count and whether it has finished (observer first), the seat to act and the
shoe's size. No seat sees the hole card before the end or the order of the shoe.

## Bots

`random`, `greedy` (hits below 17) and `expert` (basic strategy without doubling or splitting).
"""

from __future__ import annotations

from cardgym.core.game import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Blackjack (old docs)",
    gym_name="CompatBlackjackDocs",
    utility="house",
    test_configs=[{"num_players": 1}, {"num_players": 3}, {"num_players": 4, "dealer_hits_soft_17": True}],
)
