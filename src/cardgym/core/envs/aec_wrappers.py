"""PettingZoo's classic AEC wrappers (TerminateIllegal, AssertOutOfBounds, OrderEnforcing) as
subclasses that read the raw env's bookkeeping directly; `cardgym.core.envs.aec.wrap_classic` stacks them."""

from __future__ import annotations

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from cardgym.core.envs.copies import CopiesWholeStack
from cardgym.core.state.actions import check_action


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


class _DirectBookkeeping(CopiesWholeStack):
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
    """PettingZoo's OrderEnforcingWrapper with direct bookkeeping reads.

    Over the stack that `cardgym.core.envs.aec.wrap_classic` builds (this wrapper, AssertOutOfBounds,
    TerminateIllegal, the raw env), ``step`` and ``last`` take the common case in one call: a running
    episode, an in-range Python int that the mask allows. They do what the three layers would do for
    it (the same flags, TerminateIllegal's remembered observation, the raw env's ``step``/``observe``)
    without passing the call down three Python frames; every other case (before reset, after the end,
    a dead agent's ``None``, an illegal or out-of-range action, other action types) goes through the
    layers as before."""

    _check_reset = True

    def __init__(self, env):
        super().__init__(env)
        ti = getattr(env, "env", None)
        fused = (type(env) is AssertOutOfBoundsWrapper and type(ti) is TerminateIllegalWrapper
                 and ti.env is self._raw)
        self._ti = ti if fused else None  # the TerminateIllegal layer, when the stack is wrap_classic's

    def step(self, action):
        ti = self._ti
        if ti is not None and self._has_reset and type(action) is int and not ti._terminated:
            raw = self._raw
            agent = raw.agent_selection
            if (raw.agents and 0 <= action < raw._num_actions
                    and not (raw.terminations[agent] or raw.truncations[agent])):
                prev = ti._prev_obs  # TerminateIllegal checks the mask of the observation it last gave
                if (prev["action_mask"] if prev is not None else raw._mask)[action]:
                    self._has_updated = True
                    ti._prev_obs = None
                    ti._prev_info = None
                    raw.step(action)
                    return
        super().step(action)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def last(self, observe: bool = True):
        """``AECEnv.last`` reading the raw env's bookkeeping directly."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        agent = raw.agent_selection
        if not observe:
            obs = None
        elif self._ti is not None:  # TerminateIllegal.observe, without the two layers above it
            obs = raw.observe(agent)
            self._ti._prev_obs = obs
            self._ti._prev_info = raw.infos.get(agent, {})
        else:
            obs = self.env.observe(agent)
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's ``agent_iter`` iterator (same stop rule, same order check) reading the raw env's
    ``agents`` and ``agent_selection`` directly."""

    def __next__(self):
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection
