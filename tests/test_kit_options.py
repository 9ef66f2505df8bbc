"""Option help beside each option (`cardgym.kit.option`) and the `Layout` that serves its encoder."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

import cardgym
from cardgym.app.options import option_help
from cardgym.kit import FlatEncoder, Layout, Rules, Slot, option


@dataclass(frozen=True)
class NewRules(Rules):
    """Options declared with `option`."""

    num_players: int = option(2, "2..4.")
    target: int = option(100, "the game ends when a score reaches ``target``.")
    max_turns: int = 50

    def _validate(self):
        pass


@dataclass(frozen=True)
class OldRules(Rules):
    """Options described the old way, in the docstring.

    - ``num_players``: 2..3.
    - ``mode``: ``"fast"`` or ``"slow"``, a description
      that goes on.
    """

    num_players: int = 2
    mode: str = "fast"

    def _validate(self):
        pass


def test_option_is_a_field_with_its_help():
    f = {f.name: f for f in dataclasses.fields(NewRules)}
    assert f["target"].default == 100 and f["target"].metadata["help"].startswith("the game ends")
    assert NewRules().target == 100 and NewRules(target=7).target == 7
    assert NewRules.option_help() == {"num_players": "2..4.", "target": "the game ends when a score reaches ``target``."}
    # what the CLI and the web form show: plain text; an option without help has none
    assert option_help(NewRules) == {"num_players": "2..4.", "target": "the game ends when a score reaches target."}


def test_a_game_written_before_option_keeps_its_docstring_help():
    assert option_help(OldRules) == {"num_players": "2..3.", "mode": '"fast" or "slow", a description that goes on.'}


@pytest.mark.parametrize("help", ["", "   ", None, 3])
def test_option_needs_a_help_text(help):
    with pytest.raises(TypeError, match="help must be a non-empty str"):
        option(1, help)


def test_option_refuses_a_mutable_default():
    with pytest.raises(TypeError, match="must be immutable.*list"):
        option([1, 2], "a list")


@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_every_option_of_a_game_has_its_help_beside_it(name):
    rules_cls = cardgym.get_game(name).rules_cls
    if rules_cls.__module__.startswith("cardgym.games.") or name == "crazy_eights":
        assert set(rules_cls.option_help()) == set(rules_cls.option_names()), name
    assert set(option_help(rules_cls)) == set(rules_cls.option_names()), name  # the plugin too, from its docstring


def test_a_layout_serves_its_encoder():
    layout = Layout(Slot("hand", 0, 4, 0, 1, "own hand"), Slot("sizes", 1, 0, 0, 9, "per seat"))

    def kernel(s, p, seat, out):  # stands for the compiled observe kernel
        out[:] = 0

    enc = layout.encoder(kernel, doc="own hand, sizes")
    assert isinstance(enc, FlatEncoder) and enc.name == "vector" and enc.kernel is kernel
    rules = NewRules(num_players=3)
    assert enc.size(rules) == 7 == layout.size_of(rules)
    assert [f.name for f in enc.layout(rules)] == ["hand", "sizes"]
    low, high = enc.bounds(rules)
    assert np.array_equal(high, np.array([1] * 4 + [9] * 3, np.float32))
    assert layout.encoder(kernel, name="cards").name == "cards"
    with pytest.raises(ValueError, match="encoder name"):
        layout.encoder(kernel, name="two words")
    with pytest.raises(TypeError, match="kernel must be"):
        layout.encoder(None)


@pytest.mark.parametrize("name", ["skipbo", "skipbo_junior", "crazy_eights"])
def test_the_layout_games_take_their_encoder_from_the_layout(name):
    import importlib

    game = cardgym.get_game(name)
    observe = importlib.import_module(f"{game.package}.observe")
    enc = observe.ENCODERS["vector"]
    assert enc.layout == observe.VECTOR.fields
