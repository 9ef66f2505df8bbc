"""# Blackjack (`blackjack_v0`)

An example cardgym plugin (`examples/plugin_blackjack/` in cardgym's repository): Blackjack against the
dealer for 1 to 4 seats, each playing alone against the house. It is an installed package that
registers itself through the `cardgym.games` entry point and uses only `cardgym.kit`.

## The rules in plain words

- **Goal.** Each player plays alone against the dealer (the house): get a hand closer to 21 than the
  dealer's without going over 21.
- **Cards.** One 52-card deck, shuffled for every game. An ace counts 1, or 11 while that keeps the hand at
  21 or less (a soft hand); jacks, queens and kings count ten; other cards count their number.
- **Players.** 1 to 4, each against the dealer.
- **The deal.** Every player gets two cards face up, the dealer one face up and one face down (the hole
  card), dealt around the table twice, the dealer last.
- **Your turn.** The players play in seat order. On your turn you either hit (take the next card of the
  shoe) or stand (stop). A hand that reaches 21 or more by hitting is finished at once; over 21 is a bust.
  A two-card 21 (a natural) can only stand. There is no doubling, splitting, insurance or surrender.
- **The dealer** then turns up the hole card and draws until the total is 17 or more, unless every player
  has busted. (Variant: the dealer also draws on a soft 17.)
- **Payment.** A player who busted loses. Otherwise the player wins when the dealer busted or when the
  player's total is higher than the dealer's, ties (a push) on an equal total, and loses on a lower total.
  A natural pays like any win.

## Rules as implemented

The rules above, with these names: the variant is the option `dealer_hits_soft_17`; a win is +1, a push
0 and a loss -1 for the seat; a game lasts at most `max_turns` turns.

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

## Version history

- `v0`: first version (the rules above).
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Blackjack",
    gym_name="Blackjack",
    contract=2,  # the game contract it is written for (docs/api.md, "The game contract")
    utility="house",
    test_configs=[{"num_players": 1}, {"num_players": 3}, {"num_players": 4, "dealer_hits_soft_17": True}],
)
