from crazy_eights.invariants import cards_of, check_state  # noqa: F401
