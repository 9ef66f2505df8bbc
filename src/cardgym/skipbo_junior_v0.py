"""Skip-Bo Junior: PettingZoo AEC, Gymnasium single-agent and compiled vector entry points.

At import this docstring becomes the game's page (docs/skipbo_junior.md): ``help(cardgym.skipbo_junior_v0)`` shows the
rules, options, spaces and actions. The module is generic: `cardgym.registry.env_module` fills it with
``GAME``, ``raw_env``, ``env``, the Gymnasium class and ``make_vec``, as it does for every game.
"""

from .registry import env_module

env_module(globals())
