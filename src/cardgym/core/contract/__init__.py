"""The game contract: a game as the layers above see it, `cardgym.core.contract.game.GameSpec` (the game
protocol), and the worlds it can sample for imperfect-information search (`worlds`, over its compiled loop
`worlds_loop`). The package was ``cardgym.core.spec``; that path still imports, with a
``DeprecationWarning`` naming this one."""
