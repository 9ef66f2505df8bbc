"""The single-agent Gymnasium environment, written once for every game.

One seat is the learner; every other seat is played inside ``step()`` by the opponent (a compiled bot
by name, or a Python callable). An illegal action ends the episode (``terminated=True``) with reward
``illegal_penalty``.

It plays on the vector env's engines (`cardgym.core.envs.vector_engines`) with a batch of one: a compiled bot
on `CompiledEngine` (the whole step in one compiled call), a Python opponent on `DriverEngine`.
"""

from __future__ import annotations

import numpy as np
import gymnasium as gym
from gymnasium import spaces

from cardgym.core.state.actions import bot_choice, check_action, terminal_mask
from cardgym.core.envs.frames import render_frame
from cardgym.core.envs.resets import parse_reset_options, reset_seed
from cardgym.core.envs.state_io import parse_single_state
from cardgym.core.compiled.batch import check_penalty, illegal_penalty, new_batch, setup
from cardgym.core.envs.copies import CopiesThroughState
from cardgym.core.envs.episodes import EXTERNAL
from cardgym.core.envs.vector_engines import CompiledEngine, DriverEngine
from cardgym.core.contract.game import DictEncoder, GameSpec
from cardgym.core.state.status import RUNNING
from cardgym.core.envs.opponents import (check_learner_can_act, opponent_raised, refuse_if_opponent_raised,
                                        resolve_opponent, resolve_seat)


class CardGameEnv(CopiesThroughState, gym.Env):
    """Gymnasium env for one cardgym game (set by the subclass's ``game``).

    Args:
        opponent: ``"random"``, ``"greedy"``, ... (a bot of the game) or a callable ``(obs, mask) ->
            action`` that receives the acting seat's observation.
        seat: the learner's seat, or ``"random"`` (drawn at every reset from the episode's generator).
        observation: encoder name (``"vector"`` default, ``"dict"``).
        illegal_penalty: reward of an illegal action, which also terminates the episode.
        **options: the game's rule options.

    ``copy.deepcopy``, ``pickle`` and cloudpickle copy the episode in progress (`cardgym.core.envs.copies`);
    ``clone()`` is ``copy.deepcopy``.
    """

    game: GameSpec = None  # type: ignore[assignment]
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    illegal_penalty = illegal_penalty  # held in the compiled step's Setup (core/compiled/batch.py)

    def __init__(
        self,
        opponent="random",
        seat=0,
        observation: str = "vector",
        render_mode: str | None = None,
        illegal_penalty: float = -1.0,
        **options,
    ):
        game = self.game
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r}; allowed: {self.metadata['render_modes'] + [None]}"
            )
        self.render_mode = render_mode
        self.rules = game.make_rules(**options)
        self._params = self.rules.params()
        self._options, self._observation_name = dict(options), observation
        n = self.rules.num_players
        self._seat_choice = resolve_seat(seat, n)
        check_learner_can_act(self.rules, self._seat_choice)
        self._bot, self._policy = resolve_opponent(game, opponent, self.rules, observation)
        self._which_bot = game.bot_index(opponent) if self._policy is None else 0
        self.encoder = game.encoder(observation)
        self._flat = not isinstance(self.encoder, DictEncoder)
        self._which_obs = game.obs_index(observation)
        self._c = game.compiled(bot=self._which_bot, obs=self._which_obs)  # compiles only these
        penalty = check_penalty(illegal_penalty)
        if self._flat:
            low, high = self.encoder.bounds(self.rules)
            self.observation_space = spaces.Box(low, high, dtype=np.float32)
            size = low.shape[0]
        else:
            self.observation_space = self.encoder.space(self.rules)
            size = 1
        self.action_space = spaces.Discrete(game.num_actions)
        self._num_actions = game.num_actions
        b = self._batch = new_batch(game, 1, size)  # the compiled loops' arrays
        self._states, self._masks, self._obs, self._final = b.states, b.masks, b.obs, b.final_obs
        self._seats, self._rew, self._term, self._trunc = b.seats, b.rewards, b.terminated, b.truncated
        self._illegal, self._needs_reset, self._acts = b.illegal, b.needs_reset, b.actions
        self._setup = setup(self._seat_choice, self._which_bot, self._which_obs, False, penalty)
        self._seeds = np.zeros(1, np.int64)
        self._started = False
        self._done = True
        self.seat = None
        self.decisions = 0  # every seat's decisions taken so far (benchmarks read it)
        self._obs_buf = np.zeros(size, np.float32)
        self._driver = None
        if self._policy is not None:
            # Python opponents: the episode driver plays them (one call per decision, as before: float64
            # rewards, the callable called itself rather than a batched ``act`` on one record)
            # Python opponents: the vector env's driven engine on a batch of one (one call per decision, as
            # before: float64 rewards, the callable called itself rather than a batched ``act``)
            self._engine = DriverEngine(self, observation, [self._policy], np.float64, per_record=True)
            self._driver = self._engine.driver
            self._states, self._masks = self._driver.states, self._driver.masks
        else:
            self._engine = CompiledEngine(self)  # the vector env's compiled engine, on a batch of one

    # -------------------------------------------------------------- helpers
    def _observation(self, seat: int):
        if self._flat:
            return self._obs[0].copy() if seat == self.seat else self._encode_flat(seat)
        return self.encoder.observe(self._states[0], self.rules, seat, self.observation_space)

    def _encode_flat(self, seat):
        self._c.observe_one(self._states, 0, self._params, seat, self._obs_buf, self._which_obs)
        return self._obs_buf.copy()

    def _info(self):
        info = {"action_mask": self._masks[0].copy(), "seat": self.seat}
        rec = self._states[0]
        if rec["status"] != RUNNING:
            info["result"] = self.game.result(rec, self.rules)
        return info

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action mask of the learner (the sb3-contrib MaskablePPO convention)."""
        if not self._started:
            raise RuntimeError("action_masks() called before reset()")
        return self._masks[0].astype(bool)

    def bot_action(self, bot: str = "greedy") -> int:
        """The action the named bot would take in the learner's place (e.g. a baseline to compare)."""
        if not self._started or self._done:
            raise RuntimeError("bot_action() needs a running episode; call reset()")
        return bot_choice(self.game, bot, self._states, self._params, self._masks)

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        deck = parse_reset_options(self.game, options, self.game.gym_id)
        seed = reset_seed(seed, self._started, self._c, self._states)
        if self._policy is None:
            if len(deck):
                self._check_deck_reaches_learner(seed, deck)
            self._seeds[0] = seed
            self._engine.reset(self._seeds, deck)
            self.seat = int(self._seats[0])
        else:
            drv = self._driver
            self._opponent_raised = None
            # a stacked deck that ends before the learner's first decision is refused, not re-dealt
            try:
                over = self._engine.begin([0], [seed], [self._seat_choice], [0], deck=deck if len(deck) else None,
                                          redeal=not len(deck))
            except Exception as exc:
                opponent_raised(self, exc)
                raise
            if over.size:
                self._started = False
                raise ValueError(self._dead_deck_message())
            self.seat = int(drv.seats[0])
            self._c.observe_one(self._states, 0, self._params, self.seat, self._obs[0], self._which_obs)
        self._started = True
        self._done = self._states[0]["status"] != RUNNING
        return self._observation(self.seat), self._info()

    def _dead_deck_message(self) -> str:
        return (
            f"{self.game.gym_id}: the stacked deck ends the episode before the learner's first decision "
            "(a game may take the turns without a play inside reset(), and the opponents play "
            "up to the learner's seat); a single-agent reset() cannot return a finished episode and would "
            "have to deal another deck. Use the AEC env (raw_env) to play this deck, or another deck"
        )

    def _check_deck_reaches_learner(self, seed: int, deck: np.ndarray) -> None:
        """Play the stacked deck's start on a scratch record exactly as the compiled reset will (same
        seed, so the same seat draw and bot choices) and refuse it if it ends before the learner's first
        decision: the compiled reset would silently replace it with a random deal."""
        c, states = self._c, self.game.new_states(1)
        mask = np.zeros(self.game.num_actions, np.int8)
        c.reset_one(states, 0, self._params, seed, deck, len(deck), mask)
        seat = self._seat_choice if self._seat_choice >= 0 else int(c.draw_seat(states, 0))
        rec = states[0]
        while rec["status"] == RUNNING and rec["current"] != seat:
            c.apply_one(states, 0, self._params, int(c.bot_one(states, 0, self._params, mask, self._which_bot)), mask)
        if rec["status"] != RUNNING:
            raise ValueError(self._dead_deck_message())

    def step(self, action):
        if not self._started:
            raise RuntimeError("step() called before reset()")
        refuse_if_opponent_raised(self, "step")
        if self._done:
            raise RuntimeError("the episode is over; call reset() to start a new one")
        a = action if type(action) is int and 0 <= action < self._num_actions else check_action(
            action, self._num_actions
        )
        if not self._masks[0, a]:
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(self.seat), self.illegal_penalty, True, False, info
        if self._policy is None:
            self._acts[0] = a
            self._engine.step()
            self._needs_reset[0] = False
            reward = float(self._rew[0])
        else:
            self._acts[0] = a
            try:
                self._engine.advance([0], self._acts)
            except Exception as exc:  # the game stopped mid-turn: refuse further steps until reset()
                opponent_raised(self, exc)
                raise
            reward = float(self._driver.rewards[0, self.seat])
            self._c.observe_one(self._states, 0, self._params, self.seat, self._obs[0], self._which_obs)
        status = int(self._states[0]["status"])
        terminated, truncated = status == 1, status == 2
        self._done = terminated or truncated
        if self._done:
            # the terminal mask (core/state/actions.py): only TERMINAL_ACTION, a placeholder nothing plays
            terminal_mask(self._masks[0])
        if self.render_mode == "human":
            self.render()
        return self._observation(self.seat), reward, terminated, truncated, self._info()

    # ------------------------------------------------------------ saved states
    def state_dict(self) -> dict:
        """The environment's state as plain JSON-able data: the game record (`record_to_dict`, the
        AEC env's format), the learner's ``seat`` and whether the episode is ``done``."""
        from cardgym.core.state.dicts import record_to_dict, state_header

        if not self._started:
            raise RuntimeError("state_dict() called before reset()")
        refuse_if_opponent_raised(self, "state_dict")
        return {
            **state_header(self.game, self.rules, self.game.gym_id),
            "record": record_to_dict(self._states[0]),
            "seat": int(self.seat),
            "done": bool(self._done),
        }

    def load_state_dict(self, data: dict) -> None:
        """Restore a [`state_dict`][cardgym.core.envs.single.CardGameEnv.state_dict] taken from an
        environment with the same rules (and the same fixed ``seat``, if it has one).

        Checked before anything changes (a refused state raises ``ValueError`` and leaves this
        environment as it was): the record must be a state these rules can reach
        (`cardgym.core.contract.game.GameSpec.validate_record`), ``seat`` a seat of the game, and a running
        episode that is not ``done`` must be at the learner's decision. The mask and the observation
        are recomputed from the record. See docs/api.md, "Saved states".
        """
        arr, seat, done = parse_single_state(self, data)
        running = int(arr[0]["status"]) == RUNNING
        self._states[:] = arr
        self.seat = seat
        self._seats[0] = seat  # the compiled step's learner seat
        if self._driver is not None:  # the driver's: the opponent plays every other seat
            self._driver.seats[0] = seat
            self._driver.seat_player[0, :] = 0
            self._driver.seat_player[0, seat] = EXTERNAL
        self._done = done
        self._needs_reset[0] = False
        if running:
            self._c.legal_one(self._states, 0, self._params, self._masks[0])
        else:
            terminal_mask(self._masks[0])
        if self._flat:
            self._c.observe_one(self._states, 0, self._params, seat, self._obs[0], self._which_obs)
        self._started = True
        self._opponent_raised = None

    # ------------------------------------------------------------------ copies (core/envs/copies.py)
    def _init_kwargs(self) -> dict:
        opponent = list(self.game.bots)[self._which_bot] if self._policy is None else self._policy
        seat = "random" if self._seat_choice < 0 else self._seat_choice
        return {"opponent": opponent, "seat": seat, "observation": self._observation_name,
                "render_mode": self.render_mode, "illegal_penalty": self.illegal_penalty, **self._options}

    def _python_parts(self):
        return () if self._policy is None else (("opponent", self._policy),)

    def _snapshot(self):
        return {"state": self.state_dict() if self._started else None, "decisions": self.decisions,
                "np_random": (self._np_random, self._np_random_seed)}

    def _restore(self, snapshot) -> None:
        if snapshot["state"] is not None:
            self.load_state_dict(snapshot["state"])
        self.decisions = snapshot["decisions"]
        self._np_random, self._np_random_seed = snapshot["np_random"]

    def render(self):
        if self.render_mode is None:
            return None
        if not self._started:
            raise RuntimeError("render() called before reset()")
        # pictures show the table as the learner sees it; text shows the public table
        return render_frame(self.game, self.render_mode, self._states[0], self.rules, viewer=self.seat)

    def close(self):
        pass
