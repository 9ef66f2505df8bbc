"""Skip-Bo (Mattel): classic, teams, quick, match scoring and variants. See docs/skipbo.md."""

from ...core.game import GameSpec

GAME = GameSpec.from_package(__name__, title="Skip-Bo", gym_name="SkipBo")
