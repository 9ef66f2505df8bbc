"""The command line of the built-in trainer: ``cardgym train GAME [options]`` and
``python -m cardgym.train GAME [options]``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from .config import Config, game_preset, parse_spec, presets
from .evaluate import format_result

def _value(s: str):
    for cast in (int, float):
        try:
            return cast(s)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(s.lower(), s)


#: upper bounds of the trainer's sizes: a batch of games, steps per game per iteration, learner steps,
#: duplicate games of an evaluation (the arrays of one iteration are envs * rollout rows)
MAX_ENVS, MAX_ROLLOUT, MAX_STEPS, MAX_GAMES = 65536, 4096, 10**12, 10**6


def _mix(value: str) -> str:
    """``--opponents``: ``name:weight,...`` with weights >= 0 and a positive sum (the names are checked
    against the game's bots once the game is known)."""
    try:
        parse_spec(value)
        return value
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must look like greedy:0.5,random:0.1,self:0.4 (weights finite, >= 0, summing above 0), got {value!r}"
        ) from None


def _seat(value: str):
    """``--seat``: ``random`` or a seat number (checked against the number of players after parsing)."""
    if value == "random":
        return value
    from cardgym.app.options import integer

    integer(0, 7)(value)  # the message names the form; the players' count bounds it after parsing
    return value


class _RuleFlag(argparse.Action):
    """A rule option given as its own flag (``--stock-size 10``): appended to ``--rule`` as
    ``"stock_size=10"``, so both spellings reach the trainer the same way."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.rule = list(getattr(namespace, "rule", None) or []) + [f"{self.dest}={values}"]
        # the flag each option came from, for the error messages of `_check`
        namespace.rule_flags = dict(getattr(namespace, "rule_flags", None) or {}, **{self.dest: option_string})


def build_parser():
    import cardgym

    from cardgym.app.options import (HelpFormatter, Parser, _show, amount, existing_path, flag, integer, key_value, real,
                               seed, sizes, text, with_default)

    d = Config()
    table = presets()

    def preset(key, fmt=str):
        vals = {g: fmt(table[g][key]) for g in table if key in table[g]}
        if len(set(vals.values())) == 1:
            return f"default: {next(iter(vals.values()))} (the presets)"
        return "default: the game's preset: " + ", ".join(f"{g} {v}" for g, v in vals.items())

    def per_game(key, fmt=str):
        """Every game's default of ``key`` (its preset's, else `Config`'s), games with one value grouped."""
        groups: dict = {}
        for g in sorted(cardgym.GAMES):
            groups.setdefault(fmt(table.get(g, {}).get(key, getattr(d, key))), []).append(g)
        if len(groups) == 1:
            return f"default: {next(iter(groups))}"
        return "default: " + ", ".join(f"{' and '.join(gs)} {v}" for v, gs in groups.items())

    preset_rules = "; ".join(f"{g}'s preset sets " + ", ".join(f"{k}={v}" for k, v in t["rules"].items())
                             for g, t in table.items() if t.get("rules"))

    num = lambda v: f"{v:g}"  # noqa: E731
    p = Parser(
        prog="cardgym train", description="Train a masked PPO agent on a cardgym game.",
        formatter_class=HelpFormatter,
        epilog="Each game has a preset (train_preset of its GameSpec, described in docs/training.md): clone\n"
               "the expert bot, then PPO. Every flag given overrides the preset; --imitate '' --pretrain-steps 0\n"
               "trains with pure PPO. Rule options: --rule KEY=VALUE (any option, e.g. --rule reward=score) or\n"
               "the option's own flag (--stock-size 10); --reward is the trainer's reward shaping.\n\n"
               "examples:\n"
               "  cardgym train skyjo --out runs/skyjo\n"
               "  cardgym train skipbo_junior --steps 1e6 --imitate '' --pretrain-steps 0 --out runs/junior\n")
    p.add_argument("game", choices=sorted(cardgym.GAMES))
    p.add_argument("--steps", type=amount(1, MAX_STEPS), default=None,
                   help=f"learner decisions to train, e.g. 3e7 ({preset('total_steps', num)})")
    p.add_argument("--out", type=text("a folder"), default=None, help="output folder (default: runs/GAME)")
    p.add_argument("--seed", type=seed, default=d.seed, help="seed of the run")
    p.add_argument("--envs", type=integer(1, MAX_ENVS), default=d.num_envs, help="games stepped as one batch")
    p.add_argument("--rollout", type=integer(1, MAX_ROLLOUT), default=d.rollout, help="steps per game per iteration")
    p.add_argument("--epochs", type=integer(1, 1000), default=None, help=f"PPO epochs per iteration ({preset('epochs')})")
    p.add_argument("--minibatch", type=integer(1, MAX_ENVS * MAX_ROLLOUT), default=None, help=f"PPO minibatch (default: {d.minibatch})")
    p.add_argument("--lr", type=real(0.0, 1.0, lo_open=True), default=None, help=f"learning rate ({preset('lr', num)})")
    p.add_argument("--ent-coef", type=real(0.0, 100.0), default=None, help=f"entropy bonus (default: {d.ent_coef:g})")
    p.add_argument("--gamma", type=real(0.0, 1.0), default=d.gamma, help="discount")
    p.add_argument("--hidden", type=sizes(1, 8192), default=None, metavar="N,N",
                   help=f"hidden layer sizes ({per_game('hidden', lambda h: ','.join(map(str, h)))})")
    p.add_argument("--opponents", type=_mix, default=None, metavar="MIX",
                   help=f"mixture of bots and self (snapshots), e.g. greedy:0.5,random:0.1,self:0.4 "
                        f"({preset('opponents')})")
    p.add_argument("--pool-size", type=integer(1, 1000), default=d.pool_size, help="snapshots kept for self-play")
    p.add_argument("--snapshot-every", type=integer(1), default=d.snapshot_every, help="iterations between snapshots")
    p.add_argument("--seat", type=_seat, default=d.seat, help="the learner's seat: random or a seat number")
    p.add_argument("--num-players", "--players", dest="players", type=integer(1, 99), default=None, metavar="N",
                   help="players per game (default: 2)")
    p.add_argument("--rule", type=key_value, action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option, repeatable (default: the game's rules" + (f"; {preset_rules})" if preset_rules else ")"))
    p.add_argument("--reward", choices=["env", "diff"], default=None,
                   help=f"env: the game's reward; diff: own reward minus the others' mean ({per_game('reward')})")
    p.add_argument("--reward-scale", type=real(0.0, lo_open=True), default=None, help=per_game("reward_scale", num))
    p.add_argument("--win-bonus", type=real(0.0), default=None,
                   help=f"+b/-b at the end for best/not best total reward ({per_game('win_bonus', num)})")
    p.add_argument("--imitate", "--teacher", dest="imitate", default=None, metavar="BOT|MODEL",
                   help=f"the teacher: also learn this bot's (e.g. search) or saved model's choices on the "
                        f"learner's own states (DAgger); '' for none ({preset('imitate')})")
    p.add_argument("--imitate-coef", "--teacher-weight", dest="imitate_coef", type=real(0.0), default=None,
                   help=f"imitation loss weight at the start ({preset('imitate_coef', num)})")
    p.add_argument("--imitate-steps", "--teacher-until", dest="imitate_steps", type=amount(0, MAX_STEPS), default=None,
                   help=f"learner steps over which the imitation weight falls linearly to 0, 0: constant "
                        f"({preset('imitate_steps', num)})")
    p.add_argument("--init", type=existing_path, default=None, metavar="MODEL",
                   help="start from a saved model's weights (e.g. runs/skyjo/model.pt) instead of random ones")
    p.add_argument("--pretrain-steps", type=amount(0, MAX_STEPS), default=None,
                   help=f"behaviour cloning before PPO: teacher (--imitate) decisions to learn from "
                        f"({preset('pretrain_steps', num)})")
    p.add_argument("--pretrain-epochs", type=integer(1, 1000), default=None,
                   help=f"epochs over the cloning data ({preset('pretrain_epochs')})")
    p.add_argument("--pretrain-minibatch", type=integer(1, 2**24), default=None,
                   help=f"cloning minibatch (default: {d.pretrain_minibatch})")
    p.add_argument("--pretrain-anneal", action="store_true", default=None,
                   help="the cloning learning rate falls linearly from its start to 0 over all cloning updates "
                        f"({per_game('pretrain_anneal')})")
    p.add_argument("--eval-every", type=integer(0), default=d.eval_every,
                   help="iterations between evaluations (0: none; curve.png needs at least one)")
    p.add_argument("--eval-first", action="store_true",
                   help="also evaluate before the first PPO iteration (the starting point of curve.png)")
    p.add_argument("--eval-games", type=integer(1, MAX_GAMES), default=d.eval_games, help="duplicate games per bot per evaluation")
    p.add_argument("--final-eval-games", type=integer(1, MAX_GAMES), default=d.final_eval_games,
                   help="duplicate games per bot at the end")
    p.add_argument("--checkpoint-every", type=integer(1), default=d.checkpoint_every, help="iterations between checkpoints")
    p.add_argument("--threads", type=integer(1, 256), default=d.threads, help="torch threads")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint in OUT (OUT/checkpoint/; a torn one falls back to OUT/checkpoint.prev/)")
    p.add_argument("--no-anneal-lr", action="store_true",
                   help="constant learning rate (the default anneals it to 0 over --steps, so a run resumed "
                        "with a larger --steps follows a different schedule than one planned that long)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    # every game's rule options as flags (the trainer's own --reward and --num-players keep their meaning)
    from cardgym.app.options import option_help, rule_defaults

    group = p.add_argument_group("rule options (cardgym rules GAME explains them; values: numbers, true/false, text)")
    found: dict = {}
    for name in cardgym.registry.loadable(sorted(cardgym.GAMES)):  # a game that fails to load: left out
        rules_cls = cardgym.get_game(name).rules_cls
        helps, defaults = option_help(rules_cls), rule_defaults(rules_cls)
        for opt in defaults:
            if opt not in ("reward", "num_players"):
                found.setdefault(opt, []).append((name, defaults[opt], helps.get(opt, "")))
    for opt, uses in found.items():
        where = ", ".join(f"{g} {_show(dflt)}" for g, dflt, _ in uses)
        group.add_argument(flag(opt), dest=opt, action=_RuleFlag, default=argparse.SUPPRESS,
                           metavar="VALUE", help=with_default(uses[0][2], where))
    return p


# flags a game's preset may set: Config field -> argparse dest (None on the command line = not given)
_PRESET_FLAGS = {"opponents": "opponents", "reward": "reward", "reward_scale": "reward_scale",
                 "win_bonus": "win_bonus", "total_steps": "steps", "imitate": "imitate",
                 "imitate_coef": "imitate_coef", "imitate_steps": "imitate_steps",
                 "pretrain_steps": "pretrain_steps", "pretrain_epochs": "pretrain_epochs",
                 "pretrain_minibatch": "pretrain_minibatch", "pretrain_anneal": "pretrain_anneal", "lr": "lr",
                 "epochs": "epochs", "ent_coef": "ent_coef", "minibatch": "minibatch"}
_INT_FIELDS = {f.name for f in dataclasses.fields(Config) if f.type in ("int", int)}


def config_from_args(argv) -> tuple:
    """``(Config, resume)`` from command-line arguments: the defaults, then the game's preset
    (``GameSpec.train_preset``), then every flag given explicitly."""
    from cardgym.app.options import check_output

    parser = build_parser()
    a = parser.parse_args(argv)
    check_output(parser, "--out", a.out or f"runs/{a.game}", "folder")  # before any training
    try:
        preset = game_preset(a.game)
    except ValueError as exc:  # a game that fails to load (cardgym.registry.BrokenGame): its one line
        parser.error(f"argument game: {exc}")
    rules = dict(preset.pop("rules", {}))
    spelling = {}  # rule option -> the flag it came from, for the error messages
    for kv in a.rule:
        k, _, v = kv.partition("=")
        rules[k.strip()] = _value(v.strip())
        spelling[k.strip()] = getattr(a, "rule_flags", {}).get(k.strip(), "--rule")
    if a.players is not None:
        rules["num_players"] = a.players
        spelling["num_players"] = "--num-players"
    cfg = Config(game=a.game, rules=rules, out=a.out or f"runs/{a.game}", seed=a.seed,
                 num_envs=a.envs, rollout=a.rollout, gamma=a.gamma,
                 hidden=tuple(a.hidden) if a.hidden else tuple(preset.get("hidden", Config.hidden)),
                 pool_size=a.pool_size, snapshot_every=a.snapshot_every, seat=a.seat,
                 eval_every=a.eval_every, eval_first=a.eval_first, eval_games=a.eval_games, final_eval_games=a.final_eval_games,
                 checkpoint_every=a.checkpoint_every, threads=a.threads, progress=not a.no_progress,
                 anneal_lr=not a.no_anneal_lr, init=a.init or "")
    for key, dest in _PRESET_FLAGS.items():
        value = getattr(a, dest)
        if value is None:
            value = preset.get(key, getattr(cfg, key))
        setattr(cfg, key, int(value) if key in _INT_FIELDS else value)
    _check(parser, cfg, spelling)
    return cfg, a.resume


def _check(parser, cfg, spelling):
    """What needs the game: its rule options, the seat, the opponents' and the teacher's names (one
    argparse error naming the flag, before anything runs)."""
    import cardgym

    from cardgym.app.options import check_rules, check_seat

    game = cardgym.get_game(cfg.game)
    rules = check_rules(parser, game, {"num_players": 2, **cfg.rules}, spelling)
    if cfg.seat != "random":
        check_seat(parser, int(cfg.seat), int(rules.num_players))
    names = [n for n, _ in parse_spec(cfg.opponents) if n != "self"]
    for n in names:
        if n not in game.bots:
            parser.error(f"argument --opponents: {n!r} is not a bot of {game.name} ({', '.join(game.bots)}) or self")
    if cfg.imitate:
        if cfg.imitate not in (*game.bots, "agent") and not Path(cfg.imitate).exists():
            parser.error(f"argument --imitate/--teacher: must be a bot of {game.name} ({', '.join(game.bots)}), "
                         f"agent (the shipped model), a saved model (model.pt or a checkpoint folder) or '', "
                         f"got {cfg.imitate!r}")
    elif cfg.pretrain_steps > 0:
        parser.error("argument --pretrain-steps: behaviour cloning needs a teacher: pass --imitate BOT "
                     "(e.g. expert) or --pretrain-steps 0")


def main(argv=None) -> int:
    """``cardgym train GAME [options]`` (see ``--help``)."""
    cfg, resume = config_from_args(sys.argv[1:] if argv is None else list(argv))
    import cardgym

    if cfg.game not in cardgym.GAMES:
        raise SystemExit(f"unknown game {cfg.game!r}; games: {sorted(cardgym.GAMES)}")
    from .checkpoints import CheckpointError, OutputError
    from .ppo import Trainer

    from .progress import status

    try:
        with status("setting up the games and opponents…", cfg.progress):
            tr = Trainer(cfg)
    except ValueError as exc:  # a model (--init, --teacher) that does not fit this run, an unusable file: one line
        raise SystemExit(f"cardgym train: error: {exc}") from None
    print(f"training {cfg.game} ({tr.np} players) for {cfg.total_steps:,} learner steps "
          f"on {cfg.num_envs} games, opponents {cfg.opponents}; output in {cfg.out}", file=sys.stderr)
    try:
        res = tr.train(resume=resume)
    except (CheckpointError, OutputError) as exc:
        raise SystemExit(f"cardgym train: error: {exc}") from None
    t = res["timing"]
    print(f"done in {t['total_s'] / 60:.1f} min: {res['steps']:,} PPO learner steps "
          f"({t['steps_per_s']:,} steps/s, {t['decisions_per_s']:,} decisions/s incl. opponents)"
          + (f" after {t['pretrain_s'] / 60:.1f} min of behaviour cloning" if t["pretrain_s"] else ""))
    for b, r in res["final_eval"].items():
        print(format_result(b, r))
    print(f"model: {Path(cfg.out) / 'model.pt'}  results: {Path(cfg.out) / 'results.json'}")
    return 0
