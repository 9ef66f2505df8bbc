"""The PettingZoo AEC environment, written once for every game."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from . import plugins
from .actions import check_action
from .fastcall import entry
from .game import RUNNING, TRUNCATED, DictEncoder, GameSpec
from .records import check_state_header, load_record, record_to_dict, state_header

RESET_OPTIONS = ("deck",)


def entropy_seed() -> int:
    """A fresh seed from the operating system, for the first seedless reset."""
    return int(np.random.SeedSequence().entropy % (2**63))


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed) % (2**63)


def reset_seed(seed, started: bool, c, states) -> int:
    """The seed of a one-game reset: ``seed`` checked if given; else, after the first reset, a seed
    drawn from the game's own generator (``c.seedless``), and the first time a fresh OS seed."""
    if seed is not None:
        return check_seed(seed)
    if started:
        return int(c.seedless(states, 0))
    return entropy_seed()


def parse_reset_options(game: GameSpec, options, who: str):
    """The stacked deck from ``reset(options=...)`` (or an empty one). Unknown keys warn."""
    if options is None:
        return np.empty(0, np.int8)
    if not isinstance(options, dict):
        raise ValueError(f"{who}.reset(options=...) must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - set(RESET_OPTIONS))
    if unknown:
        warnings.warn(
            f"{who}.reset ignores unknown option(s) {unknown}; known options: {list(RESET_OPTIONS)}",
            stacklevel=3,
        )
    if options.get("deck") is None:
        return np.empty(0, np.int8)
    return game.check_deck(options["deck"])


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an int too large for a float
        return False


class CardGameAEC(AECEnv, EzPickle):
    """PettingZoo AEC environment for one cardgym game (set by the subclass's ``game``).

    Observations are ``{"observation": <encoder output>, "action_mask": int8[num_actions]}``; the mask
    is all zeros for every agent but the one to act. ``step`` raises ``ValueError`` on an illegal
    action (``env()`` wraps this class in PettingZoo's TerminateIllegalWrapper instead).
    """

    game: GameSpec = None  # type: ignore[assignment]
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "cardgym", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None, observation: str = "vector", **options):
        EzPickle.__init__(self, render_mode=render_mode, observation=observation, **options)
        super().__init__()
        game = self.game
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r} for {game.env_name}; allowed: "
                f"{self.metadata['render_modes'] + [None]}"
            )
        self.render_mode = render_mode
        self.rules = game.make_rules(**options)
        self._options = dict(options)
        self._observation = observation
        self.encoder = game.encoder(observation)
        self._flat = not isinstance(self.encoder, DictEncoder)
        self._which_obs = game.obs_index(observation)
        self._c = game.compiled(obs=self._which_obs)  # compiles only this encoder
        n = self.rules.num_players
        self.num_players = n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._params = self.rules.params()
        self._states = game.new_states(1)
        self._mask = np.zeros(game.num_actions, np.int8)
        self._zero_mask = np.zeros(game.num_actions, np.int8)
        if self._flat:
            low, high = self.encoder.bounds(self.rules)
            obs_space = spaces.Box(low, high, dtype=np.float32)
            self._obs_buf = np.zeros(low.shape[0], np.float32)
            self._next_obs = np.zeros(low.shape[0], np.float32)  # the acting seat's, from step()
        else:
            obs_space = self.encoder.space(self.rules)
        self._next_obs_seat = -1
        # compiled entry points with the argument types used below (see fastcall.py)
        c, st, pr, m = self._c, self._states, self._params, self._mask
        if self._flat:
            self._f_apply = entry(c.apply_observe_one, st, 0, pr, 0, m, self._next_obs, 0)
            self._f_observe = entry(c.observe_one, st, 0, pr, 0, self._obs_buf, 0)
        else:
            self._f_apply = entry(c.apply_one, st, 0, pr, 0, m)
        mask_space = spaces.Box(0, 1, (game.num_actions,), dtype=np.int8)
        self._obs_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": mask_space}) for a in self.possible_agents
        }
        self._act_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        ssize = game.state_size(self.rules)
        self.state_space = spaces.Box(-np.inf, np.inf, (ssize,), dtype=np.float32)
        self._state_buf = np.zeros(ssize, np.float32)
        self._started = False
        self._cur = self._status = 0
        self._num_actions = game.num_actions
        self._rewards_zero = True

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None):
        deck = parse_reset_options(self.game, options, self.game.env_name)
        seed = reset_seed(seed, self._started, self._c, self._states)
        self._cur, self._status, _ = self._c.reset_one(
            self._states, 0, self._params, seed, deck, len(deck), self._mask
        )
        self._next_obs_seat = -1
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._rewards_zero = True  # every value of self.rewards is 0 (step() skips rewriting them)
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self._cur]
        if self._status != RUNNING:
            self._ended_in_reset()

    def _ended_in_reset(self):
        """The deal itself ended the episode (Skip-Bo Junior: the turns taken inside ``reset()`` by
        players without a play reached the stall rule or ``max_turns``): report it as PettingZoo
        expects, every agent terminated (or truncated) with its reward and the result, so that
        ``agent_iter()`` only asks for the ``None`` steps of the dead agents and then ends."""
        done = self.truncations if self._status == TRUNCATED else self.terminations
        reward = self._states["reward"][0]
        result = self.game.result(self._states[0], self.rules)
        for a_name in self.agents:
            done[a_name] = True
            self.rewards[a_name] = float(reward[self._index[a_name]])
            self.infos[a_name] = {"result": result}
        self._rewards_zero = not any(self.rewards.values())
        self._accumulate_rewards()

    # ---------------------------------------------------------------- observe
    def observe(self, agent):
        if not self._started:
            raise RuntimeError(f"{self.game.env_name}: observe() called before reset()")
        seat = self._index.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        live = self._status == RUNNING and seat == self._cur
        mask = self._mask.copy() if live else self._zero_mask.copy()
        if self._flat:
            if seat == self._next_obs_seat:
                return {"observation": self._next_obs.copy(), "action_mask": mask}
            self._f_observe(self._states, 0, self._params, seat, self._obs_buf, self._which_obs)
            obs = self._obs_buf.copy()
        else:
            obs = self.encoder.observe(self._states[0], self.rules, seat, self._obs_spaces[agent]["observation"])
        return {"observation": obs, "action_mask": mask}

    def legal_actions(self) -> list:
        """The legal action ids of the agent to act."""
        return np.flatnonzero(self._mask).tolist()

    def bot_action(self, bot: str = "greedy") -> int:
        """The action the named bot (``"random"``, ``"greedy"``, ...) would take for the agent to act.

        Bots draw their randomness from the episode's own bot generator, so seeded runs replay.
        """
        if not self._started or not self.agents:
            raise RuntimeError(f"{self.game.env_name}: bot_action() needs a running episode; call reset()")
        if not self._mask.any():
            raise RuntimeError(f"{self.game.env_name}: {self.agent_selection} has no decision to make")
        c = self.game.compiled(bot=self.game.bot_index(bot), obs=self._which_obs)  # compiles only that bot
        return int(c.bot_one(self._states, 0, self._params, self._mask, 0))

    def action_mask(self) -> np.ndarray:
        """The int8 legal-action mask of the agent to act (a copy)."""
        return self._mask.copy()

    # ------------------------------------------------------------------- step
    def step(self, action):
        if not self._started:
            raise RuntimeError(f"{self.game.env_name}: step() called before reset()")
        if not self.agents:
            raise RuntimeError(f"{self.game.env_name}: the episode is over; call reset() to start a new one")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action < self._num_actions and self._mask[action]:
            a = action  # the common case, checked without the general path below
        else:
            a = self._check_action(action)
        self._cumulative_rewards[agent] = 0.0
        if self._flat:
            cur, status, paid = self._f_apply(
                self._states, 0, self._params, a, self._mask, self._next_obs, self._which_obs
            )
            self._next_obs_seat = cur
        else:
            cur, status, paid = self._f_apply(self._states, 0, self._params, a, self._mask)
        self._cur, self._status = cur, status
        agents = self.agents
        rewards = self.rewards
        if paid:
            reward = self._states["reward"][0]
            for a_name in agents:
                rewards[a_name] = float(reward[self._index[a_name]])
            self._rewards_zero = False
        elif not self._rewards_zero:
            for a_name in agents:
                rewards[a_name] = 0.0
            self._rewards_zero = True
        if status != RUNNING:
            done = self.truncations if status == TRUNCATED else self.terminations
            for a_name in agents:
                done[a_name] = True
            result = self.game.result(self._states[0], self.rules)
            for a_name in agents:
                self.infos[a_name] = {"result": result}
        self.agent_selection = self.possible_agents[cur]
        if not self._rewards_zero:  # adding zeros would change nothing
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action) -> int:
        a = check_action(action, self.game.num_actions)
        if not self._mask[a]:
            legal = np.flatnonzero(self._mask).tolist()
            raise ValueError(
                f"illegal action {a} ({self.game.action_to_str(a)}) for {self.agent_selection}; "
                f"legal actions: {legal}"
            )
        return a

    # ----------------------------------------------------------------- extras
    def state(self) -> np.ndarray:
        """Full-information state vector (for centralised critics); see ``state_space``."""
        if not self._started:
            raise RuntimeError(f"{self.game.env_name}: state() called before reset()")
        self._c.state_one(self._states, 0, self._params, self._state_buf)
        return self._state_buf.copy()

    def action_to_str(self, action: int) -> str:
        """The action id in words."""
        a = int(action)
        if a < 0 or a >= self.game.num_actions:
            raise ValueError(f"action {a} is out of range; actions are 0..{self.game.num_actions - 1}")
        return self.game.action_to_str(a)

    @property
    def record(self):
        """The game's state record (a view; copy it before changing)."""
        return self._states[0]

    def result(self) -> dict:
        """Scores and winners so far (JSON-able)."""
        return self.game.result(self._states[0], self.rules)

    def state_dict(self) -> dict:
        """The complete environment state as plain JSON-able data."""
        if not self._started:
            raise RuntimeError(f"{self.game.env_name}: state_dict() called before reset()")
        return {
            **state_header(self.game, self.rules, self.game.env_name),
            "record": record_to_dict(self._states[0]),
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "infos": copy.deepcopy(self.infos),
            "skip_agent_selection": self._skip_agent_selection,
        }

    def load_state_dict(self, data: dict) -> None:
        """Restore a [`state_dict`][cardgym.core.aec.CardGameAEC.state_dict] taken from an environment with the same rules.

        Everything is checked before anything changes, so a refused state (``ValueError`` naming the
        field and the reason) leaves this environment exactly as it was: the record must be a state
        these rules can reach (`cardgym.core.game.GameSpec.validate_record`: lengths, card codes, the
        deck's cards, counters, seats), and the AEC bookkeeping must agree with it (``agents`` in seat
        order, ``agent_selection`` the seat to act while the game runs, every agent terminated once
        the record is terminated, truncated once it is truncated, rewards those of the record's last
        action or zero). See docs/api.md, "Saved states".
        """
        arr, book = self._parse_state_dict(data)
        self._states[:] = arr
        self.agents = book["agents"]
        self.agent_selection = book["agent_selection"]
        self.rewards = book["rewards"]
        self._rewards_zero = not any(self.rewards.values())
        self._cumulative_rewards = book["cumulative_rewards"]
        self.terminations = book["terminations"]
        self.truncations = book["truncations"]
        self.infos = book["infos"]
        self._skip_agent_selection = book["skip_agent_selection"]
        self._cur, self._status, _ = self._c.legal_one(self._states, 0, self._params, self._mask)
        self._next_obs_seat = -1
        self._started = True

    def _parse_state_dict(self, data) -> tuple:
        """(record array, bookkeeping) of a state dict, or ``ValueError``; changes nothing."""
        game = self.game
        check_state_header(game, self.rules, data, game.env_name)
        keys = ("record", "agents", "agent_selection", "rewards", "cumulative_rewards", "terminations",
                "truncations", "infos")
        missing = [k for k in keys if k not in data]
        if missing:
            raise ValueError(f"state_dict misses {missing}")
        arr = load_record(game, self.rules, data["record"])
        rec = arr[0]
        possible = self.possible_agents
        agents = data["agents"]
        if not isinstance(agents, list) or agents != [a for a in possible if a in agents]:
            raise ValueError(f"state_dict agents {agents!r} must be distinct agents of {possible}, in seat order")
        book = {"agents": list(agents)}
        for key, kind in (("rewards", "number"), ("cumulative_rewards", "number"), ("terminations", "bool"),
                          ("truncations", "bool"), ("infos", "dict")):
            value = data[key]
            if not isinstance(value, dict) or set(value) != set(agents):
                raise ValueError(f"state_dict {key} must be a dict over the agents {agents}, got {value!r}")
            for a, v in value.items():
                ok = (isinstance(v, bool) if kind == "bool" else isinstance(v, dict) if kind == "dict" else
                      isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v))
                if not ok:
                    raise ValueError(f"state_dict {key}[{a!r}]={v!r} must be a {'finite ' * (kind == 'number')}{kind}")
            book[key] = copy.deepcopy(value) if kind == "dict" else {a: value[a] for a in agents}
        sel = data["agent_selection"]
        if sel not in possible or (agents and sel not in agents):
            raise ValueError(f"state_dict agent_selection {sel!r} is not one of the agents {agents or possible}")
        skip = data.get("skip_agent_selection")
        if skip is not None and skip not in possible:
            raise ValueError(f"state_dict skip_agent_selection {skip!r} is not one of {possible}")
        book["agent_selection"], book["skip_agent_selection"] = sel, skip
        status, cur = int(rec["status"]), int(rec["current"])
        term, trunc, rew = book["terminations"], book["truncations"], book["rewards"]
        ended_by_wrapper = status == RUNNING and all(term[a] and trunc[a] for a in agents)
        if status == RUNNING and not ended_by_wrapper:
            # a game in progress: nobody is done, nobody has left, the seat to act is selected
            if agents != possible or any(term.values()) or any(trunc.values()) or skip is not None:
                raise ValueError(
                    f"state_dict bookkeeping of a running game must list every agent {possible} as neither "
                    f"terminated nor truncated (got agents {agents}, terminations {term}, truncations {trunc})"
                )
            if sel != possible[cur]:
                raise ValueError(
                    f"state_dict agent_selection {sel!r} is not the seat to act, {possible[cur]!r} "
                    f"(record current={cur})"
                )
        elif status != RUNNING:
            want_term = status != TRUNCATED
            if any(term[a] != want_term or trunc[a] == want_term for a in agents):
                raise ValueError(
                    f"state_dict terminations {term} / truncations {trunc} disagree with the record's "
                    f"status={status} ({'terminated' if want_term else 'truncated'}: every agent is)"
                )
        if not ended_by_wrapper and any(rew.values()):
            paid = {a: float(rec["reward"][self._index[a]]) for a in agents}
            if any(float(rew[a]) != paid[a] for a in agents):
                raise ValueError(
                    f"state_dict rewards {rew} are neither zero nor the rewards of the record's last action {paid}"
                )
        return arr, book

    def clone(self):
        """An independent copy that continues exactly like this environment."""
        other = self.__class__(render_mode=self.render_mode, observation=self._observation, **self._options)
        if self._started:
            other._states[:] = self._states
            other._mask[:] = self._mask
            other._cur, other._status = self._cur, self._status
            other.agents = list(self.agents)
            other.agent_selection = self.agent_selection
            other.rewards = dict(self.rewards)
            other._rewards_zero = self._rewards_zero
            other._cumulative_rewards = dict(self._cumulative_rewards)
            other.terminations = dict(self.terminations)
            other.truncations = dict(self.truncations)
            other.infos = copy.deepcopy(self.infos)
            other._skip_agent_selection = self._skip_agent_selection
            other._started = True
        return other

    def sample_world(self, seat, seed: int):
        """A clone whose hidden cards are dealt again from the cards ``seat`` (a seat number or agent
        name) has not seen, everything it has seen kept; seeded, so a seed replays exactly. See
        `cardgym.core.worlds` and docs/hidden_information.md."""
        from .worlds import env_sample_world

        return env_sample_world(self, seat, seed)

    # ----------------------------------------------------------------- render
    def render(self):
        if self.render_mode is None:
            warnings.warn(
                f"{self.game.env_name}.render() called without a render_mode; pass render_mode='ansi' or 'human'",
                stacklevel=2,
            )
            return None
        if not self._started:
            raise RuntimeError(f"{self.game.env_name}: render() called before reset()")
        return render_frame(self.game, self.render_mode, self._states[0], self.rules)

    def close(self):
        pass


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


def wrap_classic(raw: CardGameAEC):
    """PettingZoo's classic wrapper stack (an illegal move ends the game with -1 for the offender),
    in the subclasses above that read the bookkeeping directly."""
    e = TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


def aec_metadata(game: GameSpec) -> dict:
    return {"render_modes": ["ansi", "human", "rgb_array"], "name": game.env_name, "is_parallelizable": False,
            "render_fps": 1}


def render_frame(game: GameSpec, mode: str, record, rules, viewer=None):
    """The table in ``mode``: ``"ansi"`` text (returned), ``"human"`` (printed), ``"rgb_array"`` picture."""
    if mode == "rgb_array":
        return plugins.get("rgb_array")(game, record, rules, viewer=viewer)  # cardgym.render, plugged in
    text = game.render_ansi(record, rules)
    if mode == "ansi":
        return text
    print(text)
    return None
