"""The one rule for what counts as an action, shared by the AEC, single-agent and vector layers.

An action is a Python ``int`` or a numpy integer scalar of any width (``np.int8`` .. ``np.uint64``,
or a 0-d integer array) in ``0..num_actions-1``. Bools, floats (even ``1.0``), strings, ``None``
(outside PettingZoo's dead-agent step) and arrays of any other shape or dtype are refused with an
`ActionTypeError`; integers outside the action range with a ``ValueError``. Nothing is coerced with
``int()``: ``0.7`` or ``"0"`` is a bug in the caller, not action 0.

The vector env takes an integer array of shape ``(num_envs,)`` (`check_actions`); its range is
checked with one vectorised reduction before anything reaches the compiled step.
"""

from __future__ import annotations

import numpy as np


#: the one action marked legal in the mask a finished episode returns from the Gymnasium and vector envs
#: (their terminal-step ``info["action_mask"]`` / ``action_masks()``): Gymnasium's next-step autoreset
#: asks for one more action before it resets, and common sampling code (``rng.choice(np.flatnonzero(mask))``,
#: ``action_space.sample(mask=...)``, masked softmax) needs a non-empty mask to give one. The step that
#: resets ignores it (docs/api.md, "Masks at the end of an episode"). The AEC env keeps PettingZoo's
#: convention (all zeros; a finished agent steps ``None``).
TERMINAL_ACTION = 0


def terminal_mask(mask) -> None:
    """Write the mask of a finished episode into ``mask`` (a row, or rows ``(k, num_actions)``):
    `TERMINAL_ACTION` alone."""
    mask[..., :] = 0
    mask[..., TERMINAL_ACTION] = 1


def bot_choice(game, bot: str, states, params, masks) -> int:
    """The named bot's action for the seat to act in the one record of ``states`` (``masks`` its mask as
    one row, ``(1, num_actions)``). Through ``batch_bot`` of the bot's own binding, the call the episode
    driver makes: the AEC env, the single-agent env, ``cardgym play`` and the trainer share one compiled
    bot (`cardgym.core.compiled.binder`)."""
    out = np.zeros(1, np.int64)
    game.compiled(bot=game.bot_index(bot)).batch_bot(states, params, masks, 0, out)
    return int(out[0])


class ActionTypeError(TypeError, ValueError):
    """An action of the wrong type (a ``TypeError``; also a ``ValueError`` for callers that caught the
    ``ValueError`` these layers raised before)."""


def _describe(action) -> str:
    if isinstance(action, np.ndarray):
        return f"array of dtype {action.dtype} and shape {action.shape}"
    return f"{action!r} ({type(action).__name__})"


def check_action(action, num_actions: int) -> int:
    """``action`` as a Python int in ``0..num_actions-1``, or a clear error."""
    if type(action) is int:
        a = action
    elif isinstance(action, np.integer):  # any width, uint64 included (np.bool_ is not np.integer)
        a = int(action)
    elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        a = int(action)
    else:
        raise ActionTypeError(
            f"action must be an integer (Python int or numpy integer scalar) in 0..{num_actions - 1}, "
            f"got {_describe(action)}"
        )
    if a < 0 or a >= num_actions:
        raise ValueError(f"action {a} is out of range; actions are 0..{num_actions - 1}")
    return a


def check_actions(actions, num_envs: int, num_actions: int, out: np.ndarray) -> np.ndarray:
    """Copy a batch of actions into ``out`` (int64, shape ``(num_envs,)``) after checking it: an
    integer array (any width) of shape ``(num_envs,)`` with every value in ``0..num_actions-1``."""
    acts = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if acts.dtype.kind not in "iu":
        raise ActionTypeError(
            f"actions must be an integer array of shape ({num_envs},), got dtype {acts.dtype} "
            f"(bools, floats and strings are not actions)"
        )
    if acts.shape != (num_envs,):
        raise ValueError(f"actions must have shape ({num_envs},), got {acts.shape}")
    np.copyto(out, acts, casting="unsafe")
    # one reduction: negative values (and uint64 values past int64) read as huge unsigned numbers
    if out.view(np.uint64).max() >= num_actions:
        bad = [(i, int(acts[i])) for i in range(num_envs) if not 0 <= int(acts[i]) < num_actions]
        raise ValueError(
            f"actions out of range at (env, action) {bad[:8]}; actions are 0..{num_actions - 1}"
        )
    return out
