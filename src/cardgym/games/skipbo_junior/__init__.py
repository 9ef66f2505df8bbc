"""Skip-Bo Junior (Mattel): 96 cards, 2-4 players, stocks of 10, three face-up hand stacks.

See ``docs/skipbo_junior.md`` for the rules as implemented, the options, the action table and the
observation layouts. The deal, the build piles and the recycling are the Skip-Bo helpers of
``games/_shared``.
"""

from ...kit import GameSpec, Standing
from .._shared import presets

GAME = GameSpec.from_package(
    __name__,
    title="Skip-Bo Junior",
    gym_name="SkipBoJunior",
    contract=2,  # the game contract it is written for (docs/api.md, "The game contract")
    utility="head_to_head",
    standing=Standing("stock_left", better="lower"),  # multi-player ratings: fewer stock cards first
    test_configs=[{"num_players": 2}, {"num_players": 4, "must_play": False, "stock_size": 5}],
    train_preset=dict(presets.CLONE_EXPERT, hidden=(512, 512), opponents="greedy:0.4,random:0.4,self:0.2"),
)
