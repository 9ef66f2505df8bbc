"""What the applications built on cardgym's environments share, below all of them (docs/api.md,
"Layers"): the command-line options of `cardgym`, `cardgym train`, the web form and the MCP server
(`cardgym.app.options`), game record files (`cardgym.app.game_records`), the game pages
(`cardgym.app.pages`). Nothing is imported here (``cardgym.app.wiring`` moved to `cardgym.wiring`, below
the registry; the old name warns).
"""
