"""The Skip-Bo Junior ceiling study (studies/skipbo_junior_ceiling.py): its search player only uses
what its seat sees, its rollouts matter, and the script runs end to end."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardgym.games.skipbo_junior.kernels import reset
from cardgym.games.skipbo_junior import search
from cardgym.games.skipbo_junior.rules import STATE_DTYPE, JuniorRules

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("junior_ceiling", ROOT / "studies" / "skipbo_junior_ceiling.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _hidden(rec):
    n = int(rec["num_players"])
    cards = list(rec["draw"][: rec["draw_len"]])
    for j in range(n):
        cards += list(rec["stock"][j, : rec["stock_len"][j] - 1])
    return cards


def test_resample_shuffles_only_what_nobody_sees():
    p = JuniorRules().params()
    recs = np.zeros(2, STATE_DTYPE)
    reset(recs[0], p, 5, np.zeros(1, np.int8), 0)
    recs[1]["rng"] = 12345
    before = recs[0].copy()
    search._resample(recs[0], recs[1], np.zeros(128, np.int8))
    after = recs[0]
    assert Counter(_hidden(after)) == Counter(_hidden(before))  # the same cards...
    assert _hidden(after) != _hidden(before)  # ...in a new order
    for j in range(2):  # stock tops, stack contents, piles and counts stay as they were
        top = before["stock_len"][j] - 1
        assert after["stock"][j, top] == before["stock"][j, top]
    for name in ("stock_len", "stacks", "stack_len", "draw_len", "heights", "hidden", "current"):
        assert np.array_equal(after[name], before[name]), name


@pytest.mark.slow
def test_rollouts_make_the_oracle_stronger_than_its_rollout_bot():
    """On the same 150 deals (both seats), the search that knows the deck must beat greedy, its own
    rollout policy, by a wide margin; a search that ignored its rollouts would not."""
    rules = JuniorRules()
    seeds = np.arange(1, 151, dtype=np.int64)

    def rate(player, fair, rollouts):
        outs = [search.games_vs_random(rules, seeds, seat, player, rollouts, fair)[0] for seat in (0, 1)]
        return float(np.mean(np.concatenate(outs) == 1))

    greedy = rate(search.GREEDY, False, 0)
    oracle = rate(search.MC, False, 64)
    assert oracle >= greedy + 0.05, (oracle, greedy)


def test_bad_search_arguments_are_refused():
    with pytest.raises(ValueError, match="rollout_bot"):
        search.games_vs_random(JuniorRules(), [1], 0, search.MC, 4, rollout_bot="smart")
    with pytest.raises(ValueError, match="rollouts >= 1"):
        search.games_vs_random(JuniorRules(), [1], 0, search.MC, 0)


def test_script_runs_and_replays(study, tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    args = ["--games", "6", "--rollouts", "8", "--mode", "fair", "--json", str(out)]
    a = study.main(args)
    b = study.main(args)
    assert "fair rollouts=8 (greedy) vs random" in capsys.readouterr().out
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and rows[0]["games"] == 12
    assert {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items() if k != "seconds"}


def test_skyjo_search_finetune_study_runs(tmp_path):
    """The search fine-tuning study of docs/results.md (experiment 7) end to end at a tiny budget: it
    writes a model that loads and its evaluation."""
    pytest.importorskip("torch")
    import json

    from cardgym.agents import load_policy

    spec = importlib.util.spec_from_file_location("search_ft", ROOT / "studies" / "skyjo_search_finetune.py")
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    study.main(["--steps", "1500", "--epochs", "1", "--games", "4", "--out", str(tmp_path)])
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["pretrain"][0]["epoch"] == 1 and res["pretrain"][0]["samples"] >= 1500
    assert set(res["final_eval"]) == {"expert", "greedy"}
    assert load_policy(tmp_path / "model.pt").meta["game"] == "skyjo"
