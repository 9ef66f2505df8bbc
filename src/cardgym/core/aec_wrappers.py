"""PettingZoo's classic AEC wrappers (TerminateIllegal, AssertOutOfBounds, OrderEnforcing) as
subclasses that read the raw env's bookkeeping directly; `cardgym.core.aec.wrap_classic` stacks them."""

from __future__ import annotations

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .actions import check_action


#: the AEC bookkeeping that the loop reads on every decision
_BOOKKEEPING = (
    "agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards",
    "possible_agents",
)
#: what OrderEnforcingWrapper refuses to show before reset()
_BEFORE_RESET = {"agents", "agent_selection", "rewards", "terminations", "truncations", "infos"}


def _direct(name: str):
    def get(self):
        if self._check_reset and not self._has_reset and name in _BEFORE_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def put(self, value):
        setattr(self._raw, name, value)

    return property(get, put, doc=f"The raw environment's ``{name}``.")


class _DirectBookkeeping:
    """Reads the AEC bookkeeping straight from the raw env.

    PettingZoo's wrappers forward attributes through ``BaseWrapper.__getattr__``, one failed lookup per
    layer, which costs more than a whole compiled game step. The values are the raw env's either way;
    these classes only remove the detour (and keep OrderEnforcing's before-reset errors).
    """

    _check_reset = False

    def __init__(self, env, *args, **kwargs):
        super().__init__(env, *args, **kwargs)
        self._raw = env.unwrapped


for _name in _BOOKKEEPING:
    setattr(_DirectBookkeeping, _name, _direct(_name))


class TerminateIllegalWrapper(_DirectBookkeeping, wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper with direct bookkeeping reads (``observe`` and ``step`` are
    PettingZoo 1.27's, line for line, reading the raw env's attributes directly)."""

    def observe(self, agent):
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action):
        raw = self._raw
        current_agent = raw.agent_selection
        if self._prev_obs is None:
            self.observe(current_agent)
        mask = self._prev_obs["action_mask"]
        self._prev_obs = None
        self._prev_info = None
        dead = raw.terminations[current_agent] or raw.truncations[current_agent]
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[current_agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[current_agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            self.env.step(action)


class AssertOutOfBoundsWrapper(_DirectBookkeeping, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper with direct bookkeeping reads, and the common case (a
    Python int inside the Discrete range) checked without ``Discrete.contains``."""

    def step(self, action):
        if type(action) is int and 0 <= action < self._raw.game.num_actions:
            self.env.step(action)
        elif action is None and (
            self._raw.terminations[self._raw.agent_selection] or self._raw.truncations[self._raw.agent_selection]
        ):  # PettingZoo's dead-agent step
            self.env.step(action)
        else:  # the one action rule of every layer (numpy integers of any width; no bools/floats/str)
            self.env.step(check_action(action, self._raw.game.num_actions))


class OrderEnforcingWrapper(_DirectBookkeeping, wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with direct bookkeeping reads."""

    _check_reset = True

    def last(self, observe: bool = True):
        """``AECEnv.last`` reading the raw env's bookkeeping directly."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        agent = raw.agent_selection
        obs = self.env.observe(agent) if observe else None
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]
