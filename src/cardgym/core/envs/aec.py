"""The PettingZoo AEC environment, written once for every game.

The concerns around it live in their own modules: the classic wrappers in `cardgym.core.envs.aec_wrappers`,
parsing and checking a saved state in `cardgym.core.envs.state_io`, seeds and reset options in
`cardgym.core.envs.resets`, rendering in `cardgym.core.envs.frames`, copies in `cardgym.core.envs.copies`.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardgym.core import services as plugins
from cardgym.core.state.actions import bot_choice, check_action
from cardgym.core.envs.aec_wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper
from cardgym.core.envs.copies import CopiesThroughState
from cardgym.core.compiled.fastcall import entry
from cardgym.core.envs.frames import render_frame
from cardgym.core.contract.game import DictEncoder, GameSpec
from cardgym.core.state.status import RUNNING, TRUNCATED
from cardgym.core.state.dicts import record_to_dict, state_header
from cardgym.core.envs.resets import parse_reset_options, reset_seed
from cardgym.core.envs.state_io import parse_aec_state

__all__ = ["CardGameAEC", "wrap_classic", "aec_metadata"]

class CardGameAEC(CopiesThroughState, AECEnv):
    """PettingZoo AEC environment for one cardgym game (set by the subclass's ``game``).

    Observations are ``{"observation": <encoder output>, "action_mask": int8[num_actions]}``; the mask
    is all zeros for every agent but the one to act. ``step`` raises ``ValueError`` on an illegal
    action (``env()`` wraps this class in PettingZoo's TerminateIllegalWrapper instead).

    ``copy.deepcopy``, ``pickle`` and cloudpickle copy the game in progress (`cardgym.core.envs.copies`:
    the copy is built from the same arguments and loads this env's `state_dict`).
    """

    game: GameSpec = None  # type: ignore[assignment]
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "cardgym", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None, observation: str = "vector", **options):
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
        """The deal itself ended the episode (a game whose ``reset()`` takes
        the turns of players without a play reached the stall rule or ``max_turns``): report it as PettingZoo
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
        return bot_choice(self.game, bot, self._states, self._params, self._mask[None, :])

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

    def view(self, seat=None) -> dict:
        """What ``seat`` sees now as JSON-able data (``None``: the whole table as a spectator sees it),
        built from the game's scene: `cardgym.render.view.view` (plugged in as ``"view"``)."""
        if not self._started:
            raise RuntimeError(f"{self.game.env_name}: view() called before reset()")
        return plugins.get("view")(self.game, self._states[0], self.rules, seat, self._mask)

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
        """Restore a [`state_dict`][cardgym.core.envs.aec.CardGameAEC.state_dict] taken from an environment with the same rules.

        Everything is checked before anything changes, so a refused state (``ValueError`` naming the
        field and the reason) leaves this environment exactly as it was: the record must be a state
        these rules can reach (`cardgym.core.contract.game.GameSpec.validate_record`: lengths, card codes, the
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
        return parse_aec_state(self, data)

    # ------------------------------------------------------------------ copies (core/envs/copies.py)
    def _init_kwargs(self) -> dict:
        return {"render_mode": self.render_mode, "observation": self._observation, **self._options}

    def _snapshot(self):
        return self.state_dict() if self._started else None

    def _restore(self, snapshot) -> None:
        if snapshot is not None:
            self.load_state_dict(snapshot)

    def clone(self):
        """An independent copy that continues exactly like this environment (what ``copy.deepcopy``
        gives, without the state's checks: the record is copied as it is)."""
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
        `cardgym.core.contract.worlds` and docs/hidden_information.md."""
        from cardgym.core.contract.worlds import env_sample_world

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
