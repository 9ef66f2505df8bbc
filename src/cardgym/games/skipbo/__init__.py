"""Skip-Bo (Mattel): classic, teams, quick, match scoring and variants. See docs/skipbo.md."""

from ...kit import GameSpec, Standing
from .._shared import presets

GAME = GameSpec.from_package(
    __name__,
    title="Skip-Bo",
    gym_name="SkipBo",
    contract=2,  # the game contract it is written for (docs/api.md, "The game contract")
    utility="team",  # the teams option forms sides; result()["winners"] is the whole side
    standing=Standing("stock_left", better="lower"),  # multi-player ratings: fewer stock cards first
    test_configs=[{"num_players": 2, "stock_size": 10}, {"num_players": 4, "teams": True, "stock_size": 5},
                  {"num_players": 3, "stock_size": 4, "build_directions": "two_up_two_down",
                   "wild_must_be_covered": True, "match_target": 60}],
    train_preset=dict(presets.CLONE_EXPERT, hidden=(512, 512), opponents="greedy:0.5,random:0.2,self:0.3"),
)
