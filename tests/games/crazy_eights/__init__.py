"""# Crazy Eights (`crazy_eights_v0`)

A game that lives in the test suite alone (`tests/games/crazy_eights/`): the proof that a cardgym game
is one folder. The test session adds it through the registry's `CARDGYM_GAMES` hook, and every generic
suite runs on it.

## The rules in plain words

- **Goal.** Be the first to get rid of all the cards in your hand.
- **Cards.** The 32-card piquet deck: 7, 8, 9, 10, jack, queen, king and ace in clubs, diamonds, hearts and
  spades.
- **Players.** 2 to 4.
- **The deal.** The deck is shuffled and every player gets 5 cards, one at a time around the table. The
  next card is turned face up to start the discard pile; the rest is the face-down draw pile. The suit to
  follow is the suit of that first card (also when it is an eight). Seat 0 plays first and play goes
  around the table in seat order.
- **Your turn.** Play one card of your hand on the discard pile: a card of the suit to follow, a card of
  the same rank as the discard pile's top card, or any eight (eights are wild). The suit of the card you
  play becomes the suit to follow. After playing an eight you name the suit to follow (any of the four),
  as a second move of the same turn. Instead of playing you may draw one card, which ends your turn. When
  the draw pile is empty, the discard pile under its top card is shuffled into a new draw pile. If you
  have nothing to play and nothing can be drawn, you pass.
- **End.** The first player to empty their hand wins; every other player loses. When every player passes
  in a row nobody can ever move again: the game is blocked and is a draw. A game is cut off after 300
  turns (no winner).
- **Variants** (set when the game is made, and then told in the prompt): another number of cards dealt to
  each player.

## Rules as implemented

The rules above, with these names: the cards dealt to each player are the option `hand_size` (1 to
31 // `num_players`, default 5); a win is +1 and a loss -1; a blocked or truncated game (after
`max_turns` turns) is 0 to everyone.

## Options

`num_players` (2-4), `hand_size` (1 .. 31 // num_players, default 5), `max_turns` (default 300),
`reward` (`"win"` only).

## Actions

37 actions: `0..31` play the card with that code (`suit * 8 + rank`, suits clubs, diamonds, hearts,
spades, ranks 7 8 9 10 J Q K A), `32` draw a card (a pass when none can be drawn), `33..36` name clubs,
diamonds, hearts or spades after an eight.

## Observations

`"vector"`: the observer's hand, the discard top and the whole discard pile (by card code), the suit
to follow, whether a suit must be named, the draw pile's size, every hand's size and the seat to act
(relative to the observer). `"dict"`: the same in named fields. No seat sees another hand or the order
of the draw pile.

## Bots

`random` (a uniformly random legal action) and `greedy` (plays the suit it holds most of, keeps eights
for last, draws last; names the suit it holds most of); `expert` (`expert.py`: keeps eights for last,
plays the card its hand can follow most and the others can follow least, names the suit it holds most
of, and defends when another seat holds one card); `search` (`search.py`: the shared rollout loop,
128 deals of the hidden cards per legal action played out by the expert, overruling the expert's action
only by one standard error).

Measured (2 players, duplicate games, seed 0; `CARDGYM_GAMES=$PWD/tests/games cardgym eval crazy_eights
--bots ...`): expert vs greedy 51.1% over 2000 games [48.9%, 53.3%] (52.2% over 1000); search vs expert
54.5% over 200 games [47.6%, 61.3%]. A short hand in a 32-card deck leaves little to skill: both edges
are small and within the noise of these runs.

## Version history

- `v0`: first version (the rules above, `vector` and `dict` observations, four bots).
"""

from __future__ import annotations

from cardgym.kit import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Crazy Eights",
    gym_name="CrazyEights",
    contract=2,  # the game contract it is written for (docs/api.md, "The game contract")
    test_configs=[{"num_players": 2}, {"num_players": 4, "hand_size": 7}, {"num_players": 3, "hand_size": 3}],
)
