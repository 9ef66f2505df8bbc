from crazy_eights.rules import DECK, MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS, RULES, STATE_DTYPE  # noqa: F401
