"""Does the shipped Skyjo agent get stronger from the ``search`` bot's labels? (issue 14, experiment 7)

A trained 2-player Skyjo agent (``--init``: a model file; default ``agent``, the shipped
``cardgym/agents/pretrained_models/skyjo-2p.pt``; docs/results.md's experiment 7 started from the agent
shipped before it, sha256 ``d0cff3f2...``) is fine-tuned by behaviour cloning on the choices of the ``search`` bot: ``search`` plays
the learner's seat against the opponent mix (``--opponents``) for ``--steps`` decisions, the policy head
learns its choices and the value head the returns (the trainer's own ``Trainer.pretrain``), with the
learning rate falling linearly from ``--lr`` to 0 over ``--epochs`` epochs. The result then plays
2,000 duplicate games against ``expert`` and ``greedy`` (seed 11,000,000, the trainer's final evaluation
deals), to compare with the shipped agent on the same deals (docs/results.md).

    python studies/skyjo_search_finetune.py --steps 3e5 --epochs 4 --lr 1e-4 --out runs/skyjo-search-ft
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=float, default=3e5, help="search decisions to learn from")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--init", default="agent", help="the model to fine-tune ('agent': the shipped one)")
    p.add_argument("--opponents", default="expert:0.5,greedy:0.5")
    p.add_argument("--games", type=int, default=2000, help="duplicate games per bot at the end")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default="runs/skyjo-search-ft")
    a = p.parse_args(argv)

    from cardgym.agents import read_model_file, save_policy
    from cardgym.agents.pretrained import agent_path
    from cardgym.eval import match
    from cardgym.train.config import Config, game_preset
    from cardgym.train.ppo import Trainer

    preset = game_preset("skyjo")
    init = str(agent_path("skyjo", 2)) if a.init == "agent" else a.init
    hidden = tuple(read_model_file(init)[0]["hidden"])  # the network of the model fine-tuned
    cfg = Config(game="skyjo", rules=dict(preset["rules"]), reward=preset["reward"], reward_scale=preset["reward_scale"],
                 win_bonus=preset["win_bonus"], opponents=a.opponents, imitate="search", init=init, hidden=hidden,
                 pretrain_steps=int(a.steps), pretrain_epochs=a.epochs, pretrain_lr=a.lr, pretrain_anneal=True,
                 threads=a.threads, out=a.out)
    t0 = time.perf_counter()
    trainer = Trainer(cfg)
    trainer._assign()
    log = trainer.pretrain()
    out = Path(a.out)
    save_policy(out / "model.pt", trainer.net, trainer.meta())
    result = {"pretrain": log, "seconds": round(time.perf_counter() - t0, 1), "final_eval": {}}
    for bot in ("expert", "greedy"):
        r = match("skyjo", trainer.policy(), bot, games=a.games, seed=11_000_000)
        result["final_eval"][bot] = {k: r[k] for k in ("a_win_rate", "ci95", "wins", "draws", "losses")}
        print(f"vs {bot}: {100 * r['a_win_rate']:.1f}% {r['ci95']}", flush=True)
    (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
