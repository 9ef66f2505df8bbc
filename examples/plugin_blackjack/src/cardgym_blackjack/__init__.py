"""An example cardgym plugin: one game, Blackjack against the dealer (`cardgym_blackjack.blackjack`)."""
