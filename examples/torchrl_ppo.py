"""PPO with TorchRL for one seat of a turn-based cardgym AEC env, against bots and its own snapshots.

    python examples/torchrl_ppo.py [--game skipbo_junior] [--steps 150000] [--games 400] [--seed 0]

The learner plays one seat (drawn at random for every game) of the PettingZoo AEC env; the other seats
are played by an opponent drawn at every episode start from ``--opponents`` (the game's bots and
``self``, a frozen snapshot of the learner taken every ``--snapshot-every`` iterations). An opponent is
kept until its game ends: a new snapshot only reaches games that start after it.

What makes a turn-based seat different (docs/training.md, "TorchRL"):

- the policy sees the acting seat's own observation and ``action_mask`` (TorchRL's ``MaskedCategorical``);
- a transition of the learner runs from one of its decisions to its next decision: the rewards paid
  while the other seats move are credited to the learner's last action (`SeatCredit`), and the end of the
  game, terminal reward included, closes the learner's last transition even when another seat made the
  last move;
- GAE (TorchRL's ``GAE``) runs over the learner's own decision sequence, so ``next`` is the learner's
  next decision, not the next seat's.

TorchRL parts: ``TensorDict``, ``ProbabilisticActor`` with ``MaskedCategorical``, ``ValueOperator``,
``GAE``, ``ClipPPOLoss``, ``ReplayBuffer`` with ``SamplerWithoutReplacement``. The rollout is a small loop
over the AEC envs (the docs explain why it is not ``PettingZooWrapper``). Before and after training the
argmax policy plays ``--games`` duplicate games against ``random`` and ``greedy`` (95% Wilson intervals).
Outputs in ``--out``: ``results.json`` (settings, both evaluations, the per-iteration log; no wall-clock
time, so the same command writes the same bytes), ``log.csv``, ``model.pt`` (the actor's and the critic's
weights) and ``timing.json``.
"""

from __future__ import annotations

import os

# torch's OpenMP threads spin while they wait; on a busy 2-core machine that makes the update ~3x slower
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import csv  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import cardgym  # noqa: E402
from cardgym.app.options import (  # noqa: E402
    Parser, amount, check_rules, integer, key_value, literal, real, seed, sizes, text,
)

EVAL_SEED = 10**6  # deals of the before/after evaluations (the training deals come from --seed)


# ------------------------------------------------------------------------------------ per-seat credit
class SeatCredit:
    """The learner's open transition in one game, and the reward it has earned since its last decision.

    Call `decide` when the learner acts (it returns the transition it closes, if any: the previous
    decision's, now that the learner is to act again), `earn` after every step of any seat with the
    learner's reward of that step, and `end` when the game is over (it closes the last transition,
    terminal reward included, whoever moved last). Rewards earned before the learner's first decision
    belong to no action of it and are counted in `unowned`."""

    def __init__(self):
        self.open = None  # the slot of the learner's last decision, until it is closed
        self.reward = 0.0
        self.unowned = 0.0

    def earn(self, reward: float):
        if self.open is None:
            self.unowned += reward
        else:
            self.reward += reward

    def decide(self, slot):
        """The learner acts now, in ``slot``: returns ``(previous slot, its reward)`` or None."""
        closed = None if self.open is None else (self.open, self.reward)
        self.open, self.reward = slot, 0.0
        return closed

    def end(self):
        """The game is over: returns ``(last slot, its reward)`` or None (no decision of the learner)."""
        closed = None if self.open is None else (self.open, self.reward)
        self.open, self.reward = None, 0.0
        return closed


def seat_transitions(steps, seat: int, truncated: bool = False) -> list:
    """The transitions of ``seat`` in one played game: ``steps`` is the game's sequence of
    ``(acting seat, rewards of every seat after that step)``, ``truncated`` whether it was cut short (a
    turn limit) rather than finished. Returns one ``{"reward", "done", "terminated"}`` per decision of
    ``seat``, in order: the same crediting as the collector's (`SeatCredit`)."""
    credit, out = SeatCredit(), []

    def close(closed, done):
        if closed is not None:
            out.append({"reward": closed[1], "done": done, "terminated": done and not truncated})

    for actor, rewards in steps:
        if actor == seat:
            close(credit.decide(len(out)), False)
        credit.earn(float(rewards[seat]))
    close(credit.end(), True)
    return out


# --------------------------------------------------------------------------------------- the networks
def build_modules(obs_size: int, num_actions: int, hidden=(256, 256)):
    """The actor (``ProbabilisticActor`` over ``MaskedCategorical``: ``observation`` and ``action_mask``
    in, ``action`` and its log-probability out) and the critic (``ValueOperator``: ``state_value``)."""
    import torch
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator

    logits = TensorDictModule(MLP(in_features=obs_size, out_features=num_actions, num_cells=list(hidden),
                                  activation_class=torch.nn.ReLU),
                              in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(logits, in_keys={"logits": "logits", "mask": "action_mask"},
                               out_keys=["action"], distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(MLP(in_features=obs_size, out_features=1, num_cells=list(hidden),
                               activation_class=torch.nn.ReLU), in_keys=["observation"])
    return actor, critic


def logits_of(actor):
    """The actor's MLP (observation -> logits), for evaluation and snapshots."""
    return actor.module[0].module


def add_advantages(batch, critic, gamma: float, lmbda: float):
    """TorchRL's ``GAE`` over a ``[games, decisions]`` TensorDict of the learner's transitions (time is
    its last dimension: one row per learner decision, ``next`` being the learner's next decision).
    Writes ``advantage``, ``value_target`` and ``state_value``; returns ``batch``."""
    import torch
    from torchrl.objectives.value import GAE

    with torch.no_grad():
        GAE(gamma=gamma, lmbda=lmbda, value_network=critic, average_gae=False)(batch)
    return batch


class ActorPolicy:
    """The actor's logits as a cardgym policy (``act(obs, masks)`` batched, ``policy(obs, mask)`` one
    decision): the most likely legal action, or a sample with ``generator``."""

    def __init__(self, logits_net, generator=None):
        self.net, self.gen = logits_net, generator

    def act(self, obs, masks):
        import torch

        with torch.no_grad():
            logits = self.net(torch.as_tensor(np.asarray(obs, np.float32)))
            logits = logits.masked_fill(~torch.as_tensor(np.asarray(masks).astype(bool)), -1e9)
            if self.gen is None:
                return logits.argmax(-1).numpy().astype(np.int64)
            return torch.multinomial(torch.softmax(logits, -1), 1, generator=self.gen)[:, 0].numpy()

    def __call__(self, obs, mask):
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None])[0])


# ----------------------------------------------------------------------------------------- rollouts
class SeatCollector:
    """``num_envs`` AEC games stepped in lockstep, one decision of the learner per game per row: the
    other seats play in between (bots through ``env.bot_action``, snapshots through their network) and
    their steps' rewards are credited to the learner by `SeatCredit`."""

    def __init__(self, game: str, num_envs: int, rules: dict, actor, opponents: dict, seed_: int,
                 pool_size: int = 5):
        import torch

        self.mod = importlib.import_module(cardgym.GAMES[game].module)
        self.envs = [self.mod.raw_env(**rules) for _ in range(num_envs)]
        self.actor = actor
        self.names = list(opponents)
        self.weights = np.array([opponents[n] for n in self.names], float)
        self.weights /= self.weights.sum()
        self.rng = np.random.default_rng(seed_)
        self.gen = torch.Generator().manual_seed(int(self.rng.integers(2**62)))
        self.pool: list = []  # frozen snapshots (ActorPolicy), newest last
        self.pool_size = pool_size
        self.snapshot(logits_of(actor))  # the pool starts with the initial policy
        self.n = self.envs[0].num_players
        self.seat = [0] * num_envs
        self.opp = [None] * num_envs  # ("random", "random") or ("self", ActorPolicy): fixed for the whole game
        self.credit = [SeatCredit() for _ in range(num_envs)]
        self.finished: list = []  # one dict per game finished (see _advance); the caller empties it
        self._ret = [0.0] * num_envs
        self._learner_moved = [False] * num_envs  # whether the last move of game e was the learner's
        for e in range(num_envs):
            self._new_game(e)

    def snapshot(self, logits_net):
        """Add a frozen copy of the learner's policy to the pool (dropping the oldest beyond the pool size).
        Games in progress keep the opponent they started with."""
        import copy

        net = copy.deepcopy(logits_net).eval()
        for p in net.parameters():
            p.requires_grad_(False)
        self.pool = (self.pool + [ActorPolicy(net, self.gen)])[-self.pool_size:]

    def _new_game(self, e):
        env = self.envs[e]
        env.reset(seed=int(self.rng.integers(2**62)))
        self.seat[e] = int(self.rng.integers(self.n))
        kind = self.names[int(self.rng.choice(len(self.names), p=self.weights))]
        self.opp[e] = (kind, self.pool[int(self.rng.integers(len(self.pool)))] if kind == "self" else kind)
        self._ret[e] = 0.0

    def _advance(self, e, slots):
        """Play the other seats of game ``e`` until the learner is to act; close the learner's
        transitions met on the way into ``slots`` (``{slot: (reward, done, terminated, next obs)}``)."""
        env = self.envs[e]
        while True:
            me = env.possible_agents[self.seat[e]]
            if env.terminations[me] or env.truncations[me]:  # the game is over, whoever moved last
                unowned = self.credit[e].unowned
                closed = self.credit[e].end()
                if closed is not None:
                    slot, r = closed
                    slots[slot] = (r, True, bool(env.terminations[me]), env.observe(me)["observation"])
                    self.finished.append({"env": e, "opponent": self.opp[e][0], "return": self._ret[e],
                                          "score": _won(env.result(), self.seat[e]), "unowned": unowned,
                                          "learner_moved_last": self._learner_moved[e]})
                self.credit[e] = SeatCredit()
                self._new_game(e)
                continue
            if env.agent_selection == me:
                return
            kind, who = self.opp[e]
            if kind == "self":
                ob = env.observe(env.agent_selection)
                a = who(ob["observation"], ob["action_mask"])
            else:
                a = env.bot_action(who)
            env.step(int(a))
            self._learner_moved[e] = False
            r = float(env.rewards[me])
            self._ret[e] += r
            self.credit[e].earn(r)

    def collect(self, rows: int):
        """``rows`` decisions of the learner in every game: a ``[num_envs, rows]`` TensorDict in TorchRL's
        layout (``observation``, ``action_mask``, ``action``, its log-probability, and under ``next`` the
        learner's next decision: ``observation``, ``reward``, ``done``, ``terminated``)."""
        import torch
        from tensordict import TensorDict

        E = len(self.envs)
        obs_size = self.envs[0].observation_space("player_0")["observation"].shape[0]
        next_obs = np.zeros((E, rows, obs_size), np.float32)
        reward = np.zeros((E, rows, 1), np.float32)
        done = np.zeros((E, rows, 1), bool)
        term = np.zeros((E, rows, 1), bool)
        steps = []
        for t in range(rows + 1):
            slots = [{} for _ in range(E)]
            for e in range(E):
                self._advance(e, slots[e])
            obs = np.stack([self.envs[e].observe(self.envs[e].agent_selection)["observation"] for e in range(E)])
            for e in range(E):
                for (slot, (r, d, te, nob)) in slots[e].items():
                    reward[e, slot, 0], done[e, slot, 0], term[e, slot, 0], next_obs[e, slot] = r, d, te, nob
            if t == rows:  # every game waits at the learner's turn: that closes the rollout's last transitions
                for e in range(E):
                    closed = self.credit[e].end() if self.credit[e].open is not None else None
                    if closed is not None:
                        slot, r = closed
                        reward[e, slot, 0], next_obs[e, slot] = r, obs[e]
                break
            masks = np.stack([self.envs[e].action_mask() for e in range(E)]).astype(bool)
            td = TensorDict(observation=torch.from_numpy(obs), action_mask=torch.from_numpy(masks), batch_size=[E])
            with torch.no_grad():
                td = self.actor(td)
            steps.append(td.exclude("logits"))
            for e, a in enumerate(td["action"].tolist()):
                env = self.envs[e]
                me = env.possible_agents[self.seat[e]]
                closed = self.credit[e].decide(t)
                if closed is not None:  # the previous decision's transition ends at this one
                    slot, r = closed
                    reward[e, slot, 0], next_obs[e, slot] = r, obs[e]
                env.step(int(a))
                self._learner_moved[e] = True
                r = float(env.rewards[me])
                self._ret[e] += r
                self.credit[e].earn(r)
        batch = torch.stack(steps, dim=1)
        batch["next"] = TensorDict(observation=torch.from_numpy(next_obs), reward=torch.from_numpy(reward),
                                   done=torch.from_numpy(done), terminated=torch.from_numpy(term),
                                   batch_size=[E, rows])
        return batch


def _won(result: dict, seat: int) -> float:
    """1 for a win, 0.5 for a draw (shared or no winner), 0 for a loss."""
    winners = list(result.get("winners", []))
    if winners == [seat]:
        return 1.0
    return 0.5 if seat in winners or not winners else 0.0


def parse_opponents(text_: str, game) -> dict:
    """``random:0.25,greedy:0.5,self:0.25`` -> ``{name: weight}``; names are the game's bots and ``self``."""
    allowed = list(game.bots) + ["self"]
    out = {}
    for part in text_.split(","):
        name, _, w = part.strip().partition(":")
        try:
            weight = float(w) if w else 1.0
        except ValueError:
            weight = float("nan")
        if name not in allowed or not np.isfinite(weight) or weight <= 0 or name in out:
            raise argparse.ArgumentTypeError(
                f"must be NAME:WEIGHT pairs, each name once, of {', '.join(allowed)} with weights > 0 "
                f"(e.g. random:0.5,greedy:0.5), got {text_!r}")
        out[name] = weight
    return out


def evaluate(game: str, policy, games: int, rules: dict) -> dict:
    """Duplicate games (every deal once per seat rotation, a draw counts half, 95% Wilson interval) of
    ``policy`` against ``random`` and ``greedy``, under the game's own ``win`` reward (a ``reward`` rule
    option shapes training only, as in ``cardgym train``)."""
    from cardgym.train.evaluate import duplicate_eval

    rules = {k: v for k, v in rules.items() if k != "reward"}
    bots = [b for b in ("random", "greedy") if b in cardgym.get_game(game).bots]
    return {bot: duplicate_eval(game, policy, bot, games=games, seed=EVAL_SEED, **rules) for bot in bots}


def main(argv=None) -> dict:
    ap = Parser(prog="torchrl_ppo.py", description=__doc__.split("\n")[0],
                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--game", default="skipbo_junior", choices=sorted(cardgym.GAMES), help="the game")
    ap.add_argument("--num-players", "--players", dest="players", type=integer(2, 8), default=2,
                    help="players per game (one learner, the others its opponent)")
    ap.add_argument("--rule", action="append", type=key_value, default=[], metavar="KEY=VALUE",
                    help="a rule option of the game, e.g. reward=score (repeatable)")
    ap.add_argument("--steps", type=amount(1, 10**9), default=150_000, help="learner decisions to train on")
    ap.add_argument("--envs", type=integer(1, 4096), default=32, help="games played in lockstep")
    ap.add_argument("--rollout", type=integer(1, 10**5), default=64, help="learner decisions per game per iteration")
    ap.add_argument("--epochs", type=integer(1, 100), default=4, help="PPO epochs per iteration")
    ap.add_argument("--minibatch", type=integer(1, 10**6), default=512, help="PPO minibatch size")
    ap.add_argument("--lr", type=real(0, 1, lo_open=True), default=3e-4, help="Adam learning rate")
    ap.add_argument("--gamma", type=real(0, 1), default=0.997, help="discount per learner decision")
    ap.add_argument("--lmbda", type=real(0, 1), default=0.95, help="GAE lambda")
    ap.add_argument("--ent-coef", type=real(0), default=0.01, help="entropy bonus")
    ap.add_argument("--hidden", type=sizes(1, 4096), default=(256, 256), help="hidden layers of actor and critic")
    ap.add_argument("--opponents", default="random:0.4,greedy:0.4,self:0.2",
                    help="opponent mixture drawn at every game start: the game's bots and self (a snapshot)")
    ap.add_argument("--snapshot-every", type=integer(1, 10**6), default=5, help="iterations between snapshots")
    ap.add_argument("--pool-size", type=integer(1, 1000), default=5, help="snapshots kept as opponents")
    ap.add_argument("--games", type=integer(2, 10**5), default=400,
                    help="duplicate games against random and greedy before and after training")
    ap.add_argument("--threads", type=integer(1, 256), default=2, help="torch threads")
    ap.add_argument("--seed", type=seed, default=0, help="seed of the run: the same seed replays it")
    ap.add_argument("--out", type=text("a folder"), default="runs/torchrl_ppo", help="output folder")
    a = ap.parse_args(argv)
    game = cardgym.get_game(a.game)
    try:
        opponents = parse_opponents(a.opponents, game)
    except argparse.ArgumentTypeError as exc:
        ap.error(f"argument --opponents: {exc}")
    rules = {"num_players": a.players}
    for kv in a.rule:
        k, _, v = kv.partition("=")
        rules[k.strip()] = literal(v)
    spelling = {k: "--rule" for k in rules}
    if not any(kv.partition("=")[0].strip() == "num_players" for kv in a.rule):
        spelling["num_players"] = "--num-players"
    check_rules(ap, game, rules, spelling)

    import logging

    import torch
    from torchrl.data import LazyTensorStorage, ReplayBuffer
    from torchrl.data.replay_buffers.samplers import SamplerWithoutReplacement
    from torchrl.objectives import ClipPPOLoss

    logging.getLogger("torchrl").setLevel(logging.WARNING)  # its storage's "Initialized ..." line
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(a.seed)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), time.process_time()

    mod = importlib.import_module(cardgym.GAMES[a.game].module)
    probe = mod.raw_env(**rules)
    obs_size = probe.observation_space("player_0")["observation"].shape[0]
    num_actions = probe.action_space("player_0").n
    actor, critic = build_modules(obs_size, num_actions, a.hidden)
    logits_net = logits_of(actor)
    loss_fn = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=a.ent_coef, critic_coeff=0.5,
                          loss_critic_type="l2", normalize_advantage=True)
    optim = torch.optim.Adam(loss_fn.parameters(), lr=a.lr)
    per_iter = a.envs * a.rollout
    iters = max(1, -(-a.steps // per_iter))
    print(f"TorchRL PPO on {a.game} ({a.players} players): {iters} iterations of {per_iter:,} learner decisions "
          f"({a.envs} games x {a.rollout}) against {a.opponents}; {a.games} duplicate games per bot before and after",
          flush=True)

    before = evaluate(a.game, ActorPolicy(logits_net), a.games, rules)
    for bot, r in before.items():
        print(f"before training  {_fmt(bot, r)}", flush=True)

    collector = SeatCollector(a.game, a.envs, rules, actor, opponents, a.seed, a.pool_size)
    mb_size = min(a.minibatch, per_iter)
    rb = ReplayBuffer(storage=LazyTensorStorage(per_iter), sampler=SamplerWithoutReplacement(), batch_size=mb_size)
    log, c_train = [], time.process_time()
    for it in range(1, iters + 1):
        batch = collector.collect(a.rollout)
        add_advantages(batch, critic, a.gamma, a.lmbda)
        rb.empty()
        rb.extend(batch.reshape(-1))
        for g in optim.param_groups:  # the learning rate falls linearly to 0 over the run
            g["lr"] = a.lr * (1 - (it - 1) / iters)
        sums = {"loss_objective": 0.0, "loss_critic": 0.0, "loss_entropy": 0.0}
        n = 0
        for _ in range(a.epochs):
            for _ in range(max(1, per_iter // mb_size)):
                mb = rb.sample()
                losses = loss_fn(mb)
                loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optim.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(loss_fn.parameters(), 0.5)
                optim.step()
                for k in sums:
                    sums[k] += float(losses[k].detach())
                n += 1
        if it % a.snapshot_every == 0:
            collector.snapshot(logits_net)  # reaches only the games that start from now on
        fin, collector.finished = collector.finished, []
        row = {"iteration": it, "steps": it * per_iter, "games": len(fin),
               **{k: round(v / n, 5) for k, v in sums.items()},
               "reward_per_decision": round(float(batch["next", "reward"].mean()), 5)}
        for kind in opponents:
            s = [g["score"] for g in fin if g["opponent"] == kind]
            row[f"score_vs_{kind}"] = round(float(np.mean(s)), 4) if s else None
        log.append(row)
        print(f"iter {it:>4}/{iters}  steps {row['steps']:>9,}  games {row['games']:>4}  "
              + "  ".join(f"vs {k} {row[f'score_vs_{k}']:.2f}" for k in opponents if row[f"score_vs_{k}"] is not None)
              + f"  loss pi {row['loss_objective']:+.4f} v {row['loss_critic']:.4f}", flush=True)
    train_cpu = time.process_time() - c_train

    after = evaluate(a.game, ActorPolicy(logits_net), a.games, rules)
    for bot, r in after.items():
        print(f"after training   {_fmt(bot, r)}", flush=True)
    verdicts = {}
    for bot in after:
        lo0, hi0 = before[bot]["ci95"]
        lo1, hi1 = after[bot]["ci95"]
        verdicts[bot] = "rise beyond the intervals" if lo1 > hi0 else "within the noise"
        print(f"  vs {bot}: {before[bot]['win_rate']:.1%} [{lo0:.1%}, {hi0:.1%}] -> "
              f"{after[bot]['win_rate']:.1%} [{lo1:.1%}, {hi1:.1%}]: {verdicts[bot]}")
    torch.save({"actor": actor.state_dict(), "critic": critic.state_dict(),
                "meta": {"game": a.game, "rules": rules, "obs_size": obs_size, "num_actions": num_actions,
                         "hidden": list(a.hidden)}}, out / "model.pt")
    settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(a).items() if k != "out"}
    results = {"settings": settings, "iterations": iters, "learner_steps": iters * per_iter,
               "before": before, "after": after, "verdicts": verdicts, "log": log}
    (out / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    with open(out / "log.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(log[0]))
        w.writeheader()
        w.writerows(log)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    (out / "timing.json").write_text(json.dumps({"wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                                                 "train_cpu_s": round(train_cpu, 1)}) + "\n")
    print(f"finished in {wall:.0f} s wall, {cpu:.0f} s CPU (training {train_cpu:.0f} s); "
          f"outputs in {out}/ (results.json, log.csv, model.pt, timing.json)")
    return results


def _fmt(bot: str, r: dict) -> str:
    from cardgym.train.evaluate import format_result

    return format_result(bot, r)


if __name__ == "__main__":
    main()
