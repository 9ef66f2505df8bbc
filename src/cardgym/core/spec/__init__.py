"""A game as the layers above see it: `cardgym.core.spec.game.GameSpec` (the game protocol) and the
worlds it can sample for imperfect-information search (`worlds`, over its compiled loop `worlds_loop`)."""
