"""The compiled vector env for RLlib's single-agent EnvRunners (new API stack), without importing Ray.

RLlib's ``SingleAgentEnvRunner`` builds its env with ``gymnasium.make_vec(..., vectorization_mode=
config.gym_env_vectorize_mode)``. With ``gym_env_vectorize_mode="vector_entry_point"`` and
`rllib_vector_env` as the registered env creator, each EnvRunner steps ``num_envs_per_env_runner``
games in one compiled call per step (``gymnasium.make_vec("cardgym/<Game>-v0", ...)``, the game id's
vector entry point) instead of one Python env per game::

    from ray.tune.registry import register_env
    from cardgym.wrappers import rllib_vector_env

    register_env("cardgym_vec", rllib_vector_env)
    config.environment("cardgym_vec", env_config={"game": "skyjo", "opponent": ["random", "greedy"]})
    config.env_runners(num_envs_per_env_runner=1024, gym_env_vectorize_mode="vector_entry_point")

`RLlibVectorEnv` gives the observations of ``cardgym.wrappers.rllib_keys`` (``{"observations": float32,
"action_mask": float32}``, what `cardgym.wrappers.rllib_module.MaskedMLPModule` reads) and empty
infos (RLlib's ``DictInfoToList`` would otherwise copy every game's mask into a dict per step). It can
split the batch over several opponents (bots, saved models or policies), one block of games each.

The opponent ``"self"`` is a `PolicySlot`: a Python opponent whose policy is set from outside, e.g. to a
frozen copy of the EnvRunner's own RLModule, refreshed by an RLlib callback every few iterations
(``examples/rllib_batched.py --opponents random,greedy,self``). Its block of games runs with the
opponents' decisions taken in batches from Python between compiled calls (slower than a bot block).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

OBS_KEY = "observations"
MASK_KEY = "action_mask"

#: the opponent name of a `PolicySlot` (the learner's snapshots)
SELF = "self"


def _random_legal(rng, masks):
    # uniformly random legal actions (an all-zero row gives action 0, which the env never asks for)
    u = rng.random(masks.shape) * (masks > 0)
    return u.argmax(axis=1).astype(np.int64)


class PolicySlot:
    """An opponent whose policy is set later (``slot.set_policy(p)``, with ``p.act(obs, masks) ->
    actions``); until then it plays uniformly random legal actions. ``updates`` counts the policies set.

    In an `RLlibVectorEnv`, a new policy takes effect at each game's next episode: games in progress
    finish against the policy they started with (the env plays a `SlotPlayer` of the slot's policy of
    the moment, replaced through ``set_opponent``). So set a *new* frozen copy at each refresh rather
    than changing the weights of the policy already set (that would change games in progress).
    ``slot.act`` itself always plays the policy of the moment."""

    def __init__(self, seed: int = 0):
        self.policy = None
        self.updates = 0
        self._rng = np.random.default_rng(seed)
        self._envs: list = []  # the vector envs (one block each) that play this slot

    def set_policy(self, policy) -> None:
        if not hasattr(policy, "act"):
            raise TypeError(f"a PolicySlot policy needs act(obs, masks) -> actions, got {policy!r}")
        self.policy = policy
        self.updates += 1
        for env in self._envs:
            env.set_opponent(0, SlotPlayer(self, policy))

    def act(self, obs, masks):
        masks = np.asarray(masks)
        if self.policy is not None:
            return np.asarray(self.policy.act(obs, masks), np.int64)
        return _random_legal(self._rng, masks)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def __getstate__(self):
        return {**self.__dict__, "_envs": []}  # a copy of a slot is not wired to the original's envs


class SlotPlayer:
    """What an `RLlibVectorEnv` block plays for a `PolicySlot`: the slot's policy at one moment (``None``:
    random legal actions from the slot's generator)."""

    def __init__(self, slot: PolicySlot, policy):
        self.slot, self.policy = slot, policy

    def act(self, obs, masks):
        masks = np.asarray(masks)
        if self.policy is not None:
            return np.asarray(self.policy.act(obs, masks), np.int64)
        return _random_legal(self.slot._rng, masks)

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])


class RLlibVectorEnv(VectorEnv):
    """``num_envs`` games of one cardgym game for RLlib: Dict observations with the float mask, empty
    infos; the batch is split into equal blocks, one per opponent.

    Args:
        game: game name (``"skyjo"``, ``"skipbo"``, ``"skipbo_junior"``).
        num_envs: games in the batch (at least one per opponent).
        opponent: a bot name, saved model path, policy or ``"self"`` (a new `PolicySlot`), or a list of
            them (block ``k`` of the batch plays ``opponent[k]``; bots are played inside the compiled
            step, models, policies and slots in batches from Python).
        keep_info: pass the vector env's infos through (``action_mask`` and ``seat`` per game) instead
            of empty ones.
        **kwargs: every other argument of ``gymnasium.make_vec("cardgym/<Game>-v0", ...)``: ``seat``,
            ``observation`` (a flat encoder), ``illegal_penalty``, rule options. ``autoreset_mode`` is
            ``"next_step"`` (what RLlib expects) and ``copy`` is handled here.
    """

    def __init__(self, game: str, num_envs: int, opponent="random", keep_info: bool = False, **kwargs):
        import gymnasium

        import cardgym

        if game not in cardgym.GAMES:
            raise ValueError(f"unknown game {game!r}; games: {sorted(cardgym.GAMES)}")
        for key in ("autoreset_mode", "copy", "render_mode"):
            if key in kwargs:
                raise ValueError(f"RLlibVectorEnv sets {key!r} itself; leave it out (got {kwargs[key]!r})")
        opponents = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        if not opponents:
            raise ValueError("opponent must be a bot name, a model path, a policy or a non-empty list of them")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < len(opponents):
            raise ValueError(
                f"num_envs must be an integer >= the number of opponents ({len(opponents)}), got {num_envs!r}"
            )
        n = int(num_envs)
        sizes = [n // len(opponents) + (k < n % len(opponents)) for k in range(len(opponents))]
        gym_id = cardgym.GAMES[game].gym_id
        #: the `PolicySlot` of every ``"self"`` opponent, in block order
        self.policy_slots = []
        for k, opp in enumerate(opponents):
            if isinstance(opp, str) and opp == SELF:
                opponents[k] = PolicySlot(seed=k)
                self.policy_slots.append(opponents[k])
        self.envs = [
            gymnasium.make_vec(gym_id, num_envs=size, vectorization_mode="vector_entry_point",
                               opponent=[SlotPlayer(opp, opp.policy)] if isinstance(opp, PolicySlot) else opp,
                               copy=False, **kwargs)
            for size, opp in zip(sizes, opponents)
        ]
        for env, opp in zip(self.envs, opponents):
            if isinstance(opp, PolicySlot):  # its new policies reach this block at each game's next episode
                opp._envs.append(env.unwrapped)
        self.opponents = opponents
        self._bounds = np.cumsum([0] + sizes)
        self.keep_info = bool(keep_info)
        first = self.envs[0]
        self.game = first.game
        self.num_envs = n
        num_actions = int(first.single_action_space.n)
        self.single_observation_space = spaces.Dict({
            OBS_KEY: first.single_observation_space,
            MASK_KEY: spaces.Box(0.0, 1.0, (num_actions,), np.float32),
        })
        self.single_action_space = first.single_action_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.metadata = dict(first.metadata)
        self.render_mode = None

    def _gather(self, parts):
        obs = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0].copy()
        masks = np.concatenate([p[1]["action_mask"] for p in parts]).astype(np.float32)
        out = {OBS_KEY: obs, MASK_KEY: masks}
        if not self.keep_info:
            return out, {}
        info = {}
        for key in ("action_mask", "seat"):
            info[key] = np.concatenate([p[1][key] for p in parts])
            info["_" + key] = np.ones(self.num_envs, np.bool_)
        return out, info

    def reset(self, *, seed=None, options=None):
        parts = []
        for k, env in enumerate(self.envs):
            lo = int(self._bounds[k])
            if seed is None:
                sub = None
            elif isinstance(seed, (list, tuple, np.ndarray)):
                if len(seed) != self.num_envs:
                    raise ValueError(f"got {len(seed)} seeds for {self.num_envs} environments")
                sub = list(seed[lo:int(self._bounds[k + 1])])
            else:
                sub = int(seed) + lo  # game i is seeded seed + i, as in one vector env
            parts.append(env.reset(seed=sub, options=options))
        return self._gather(parts)

    def step(self, actions):
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {acts.shape}")
        if len(self.envs) == 1:
            obs, rew, term, trunc, info = self.envs[0].step(acts)
            dict_obs, out_info = self._gather([(obs, info)])
            return dict_obs, rew.copy(), term.copy(), trunc.copy(), out_info
        results = [env.step(acts[int(self._bounds[k]):int(self._bounds[k + 1])]) for k, env in enumerate(self.envs)]
        dict_obs, out_info = self._gather([(r[0], r[4]) for r in results])
        rew = np.concatenate([r[1] for r in results])
        term = np.concatenate([r[2] for r in results])
        trunc = np.concatenate([r[3] for r in results])
        return dict_obs, rew, term, trunc, out_info

    def action_masks(self) -> np.ndarray:
        """Boolean masks ``(num_envs, num_actions)`` of the current observations."""
        return np.concatenate([env.action_masks() for env in self.envs])

    def close_extras(self, **kwargs):
        for env in getattr(self, "envs", ()):  # also when __init__ refused its arguments
            env.close()


def rllib_vector_env(config: Mapping) -> RLlibVectorEnv:
    """RLlib env creator (``ray.tune.registry.register_env(name, rllib_vector_env)``): an
    `RLlibVectorEnv` from an ``env_config`` mapping (RLlib's ``EnvContext``) with ``"game"``,
    ``"num_envs"`` (RLlib adds it from ``num_envs_per_env_runner`` when
    ``gym_env_vectorize_mode="vector_entry_point"``; default 1), ``"opponent"`` (default
    ``"random"``) and any other `RLlibVectorEnv` argument."""
    cfg = dict(config)
    if "game" not in cfg:
        raise ValueError("env_config needs 'game' (one of 'skyjo', 'skipbo', 'skipbo_junior')")
    game = cfg.pop("game")
    num_envs = cfg.pop("num_envs", 1)
    opponent = cfg.pop("opponent", "random")
    return RLlibVectorEnv(game, num_envs, opponent=opponent, **cfg)
