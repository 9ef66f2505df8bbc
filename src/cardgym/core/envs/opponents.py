"""Opponents of the single-agent and vector environments."""

from __future__ import annotations

from cardgym.core import services as plugins
from cardgym.core.contract.game import GameSpec


def is_bot_name(game: GameSpec, opponent) -> bool:
    return isinstance(opponent, str) and opponent in game.bots


def load_model_opponent(game: GameSpec, path, rules=None, observation: str | None = None):
    """A saved model (``cardgym.agents.load_policy``, torch ``weights_only=True``) as an opponent.

    The file is checked before anything is built (``ValueError("not a cardgym model: ...")`` otherwise);
    a model trained on another game is refused, and so is one trained with other ``rules`` (a ``Rules``
    object or option dict) or another ``observation`` encoder when those are given. Core does not import
    the agents layer: the loader is the one plugged into `cardgym.core.services` (``"model_opponent"``)."""
    return plugins.get("model_opponent")(game, path, rules, observation)


def resolve_opponent(game: GameSpec, opponent, rules=None, observation: str | None = None):
    """A compiled bot dispatcher for a bot name, a loaded policy for a model path, or the callable.

    Returns ``(bot_kernel_or_None, python_callable_or_None)``. Callables take ``(obs, mask)`` (the
    acting seat's own observation and int8 mask) and return an action id. A path (``str`` or
    ``os.PathLike``) that is not a bot name loads a model saved by ``cardgym train`` /
    ``cardgym.agents.save_policy``; with ``rules``/``observation`` given, a model trained with other
    ones is refused (``ValueError``). An object with ``act_records(records, masks)`` (a text player,
    `cardgym.agents.text.TextPlayer`) is given the state records of the seats to act.
    """
    import os

    if is_bot_name(game, opponent):
        return game.bot(opponent), None
    if isinstance(opponent, (str, os.PathLike)):
        return None, load_model_opponent(game, opponent, rules, observation)
    if callable(opponent) or callable(getattr(opponent, "act_records", None)):
        return None, opponent  # act_records(records, masks): a player that reads the records (a text player)
    raise ValueError(
        f"opponent must be a bot name {sorted(game.bots)}, a model path, a callable (obs, mask) -> action or a "
        "player with act_records(records, masks), "
        f"got {opponent!r}"
    )


def resolve_seat(seat, num_players: int) -> int:
    """Seat index, or -1 for ``"random"`` (drawn from the episode's bot generator at each reset)."""
    if isinstance(seat, str):
        if seat == "random":
            return -1
        raise ValueError(f"seat must be 0..{num_players - 1} or 'random', got {seat!r}")
    from cardgym.core.state.rules import coerce_option

    seat = coerce_option(seat)  # numpy integers of any width behave like Python ints
    if type(seat) is not int or not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0..{num_players - 1} or 'random', got {seat!r}")
    return seat


def check_learner_can_act(rules, seat_choice: int) -> None:
    """Refuse options under which the learner can never make a decision.

    The single-agent and vector envs re-deal a game that ends before the learner's first decision
    (see ``start_episode`` in ``core/compiled/bound.py``). With a fixed learner seat, a fixed ``first_player``
    and ``max_turns`` <= the turns taken before the learner's first turn, every deal ends first and
    that re-deal loop would never stop (compiled code: the interpreter hangs)."""
    first = getattr(rules, "first_player", None)
    if seat_choice < 0 or type(first) is not int:
        return  # a random seat or start: some deals give the learner the first turn
    before = (seat_choice - first) % rules.num_players
    if rules.max_turns <= before:
        raise ValueError(
            f"options max_turns={rules.max_turns}, first_player={first} and seat={seat_choice}: the learner's "
            f"first turn would be turn {before + 1}, after the turn cap, so no episode could ever reach a "
            f"decision of the learner; allowed: max_turns > {before} (or seat='random' / first_player='random')"
        )


def opponent_raised(env, exc: BaseException) -> None:
    """Mark ``env`` (a single-agent or vector env) as stopped mid-turn by its opponent's ``exc`` (raised
    inside ``step()`` or ``reset()``): `refuse_if_opponent_raised` then refuses every step and copy until
    a ``reset()`` (or a loaded state) starts afresh."""
    env._opponent_raised = f"{type(exc).__name__}: {str(exc)[:300]}"


def refuse_if_opponent_raised(env, what: str) -> None:
    """``RuntimeError`` when the opponent of ``env`` raised inside its last ``step()``/``reset()``: the
    game stopped in the middle of the opponent's turn, so a ``step(action)`` would play the learner's
    action as the opponent's move."""
    why = getattr(env, "_opponent_raised", None)
    if why is not None:
        raise RuntimeError(f"{type(env).__name__}.{what}(): the opponent raised {why} inside step() or reset(), "
                           "so the game stopped in the middle of the opponent's turn; call reset()")
