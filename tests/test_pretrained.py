"""The trained agents shipped as package data, reachable as the opponent / bot name ``"agent"``."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import cardgym  # noqa: E402
from cardgym.agents import TorchPolicy, read_model_file  # noqa: E402
from cardgym.agents.pretrained import FOLDER, agent_path, load_agent, shipped  # noqa: E402
from cardgym.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("skyjo", "skipbo", "skipbo_junior")


def test_every_game_ships_a_two_player_agent_that_loads_with_weights_only():
    have = shipped()
    for game in GAMES:
        assert (game, 2) in have, have
    for (game, n), name in have.items():
        ref = agent_path(game, n)
        with resources.as_file(ref) as path:
            assert path.stat().st_size < 5_000_000  # a few MB at most
            raw = torch.load(path, map_location="cpu", weights_only=True)  # plain tensors and strings
            assert raw["format"] == "cardgym-policy-v1"
            meta, state = read_model_file(path)  # every check of a model file
        assert meta["game"] == game and meta["observation"] == "vector"
        assert meta["rules"]["num_players"] == n
        # default rules: nothing recorded but the player count (the reward option is not a rule of play)
        assert set(meta["rules"]) == {"num_players"}
        assert name == f"{game}-{n}p.pt"


def _gym_run(opponent, steps=40):
    import gymnasium

    env = gymnasium.make("cardgym/Skyjo-v0", opponent=opponent)
    obs, info = env.reset(seed=3)
    seen = [obs]
    for _ in range(steps):
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, r, term, trunc, info = env.step(a)
        seen.append(obs)
        if term or trunc:
            obs, info = env.reset()
    env.close()
    return np.array(seen)


def test_the_agent_plays_in_the_gymnasium_env_as_the_shipped_file():
    with resources.as_file(agent_path("skyjo", 2)) as path:
        by_path = _gym_run(str(path))
    assert np.array_equal(_gym_run("agent"), by_path)


def test_the_agent_plays_in_the_vector_env():
    venv = cardgym.make_vec("skipbo", 8, opponent="agent")
    obs, info = venv.reset(seed=1)
    for _ in range(20):
        acts = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
        obs, r, term, trunc, info = venv.step(acts)
    venv.close()
    pol = load_agent("skipbo")
    assert isinstance(pol, TorchPolicy) and pol.meta["game"] == "skipbo"


def test_eval_agent_against_expert(capsys):
    main(["eval", "skipbo", "--bots", "agent,expert", "--games", "8", "--seed", "2", "--json"])
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert pair["a"] == "agent" and pair["b"] == "expert" and pair["games"] == 8


def test_skipbo_ships_a_four_player_agent_too(capsys):
    assert ("skipbo", 4) in shipped()
    assert load_agent("skipbo", {"num_players": 4}).meta["rules"] == {"num_players": 4}
    main(["eval", "skipbo", "--bots", "agent,greedy", "--games", "4", "--num-players", "4", "--json"])
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert pair["a"] == "agent" and pair["games"] == 4


def test_the_four_player_skyjo_agent_plays_every_opposing_seat_and_in_eval(capsys):
    assert ("skyjo", 4) in shipped()
    venv = cardgym.make_vec("skyjo", 4, opponent="agent", num_players=4)
    obs, info = venv.reset(seed=2)
    for _ in range(30):
        acts = np.array([np.argmax(m) for m in info["action_mask"]])  # a finished game's mask is empty
        obs, r, term, trunc, info = venv.step(acts)
    venv.close()
    pol = load_agent("skyjo", {"num_players": 4})
    assert pol.meta["rules"] == {"num_players": 4}
    main(["eval", "skyjo", "--bots", "agent,expert", "--games", "8", "--num-players", "4", "--json"])
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert pair["a"] == "agent" and pair["games"] == 8  # 2 deals x 4 rotations: one agent seat, three experts
    with pytest.raises(ValueError, match="no shipped 'agent' for skyjo with 5 players"):
        load_agent("skyjo", {"num_players": 5})
    # the ratings of line-ups check a model against their rules too (a 2-player file at 4 players is refused)
    from cardgym.eval import free_for_all

    with resources.as_file(agent_path("skyjo", 2)) as two:
        with pytest.raises(ValueError, match="other rules"):
            free_for_all("skyjo", [str(two), "expert"], num_players=4, games=4)


def test_eval_of_the_agent_in_junior_is_reproducible(capsys):
    args = ["eval", "skipbo_junior", "--bots", "agent,greedy", "--games", "10", "--seed", "4", "--json"]
    main(args)
    first = json.loads(capsys.readouterr().out)["pairs"][0]
    main(args)
    second = json.loads(capsys.readouterr().out)["pairs"][0]
    assert first["a_win_rate"] == second["a_win_rate"]


def test_play_against_the_agent(monkeypatch, capsys):
    # the agent moves first (you sit in seat 1) and then answers each of your moves
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 5 + "q\n"))
    main(["play", "skyjo", "--vs", "agent", "--seat", "1", "--seed", "5"])
    out = capsys.readouterr().out
    assert "against agent" in out and "you left the game" in out
    assert out.count("player_0: ") >= 2  # the agent's moves


@pytest.mark.parametrize("make, match", [
    (lambda: cardgym.make_vec("skyjo", 2, opponent="agent", num_players=3),
     r"no shipped 'agent' for skyjo with 3 players; shipped agents: .*skyjo with 2"),
    (lambda: cardgym.make_vec("skipbo", 2, opponent="agent", stock_size=10),
     r"other rules .*stock_size: model 30, env 10.*shipped agents: "),
    (lambda: cardgym.make_vec("skipbo_junior", 2, opponent="agent", observation="dict"),
     r"observation.*shipped agents: "),
])
def test_the_agent_under_other_rules_is_a_clear_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_eval_and_play_refuse_the_agent_under_other_rules(capsys):
    with pytest.raises(SystemExit, match="no shipped 'agent' for skipbo with 3 players"):
        main(["eval", "skipbo", "--bots", "agent,expert", "--games", "4", "--num-players", "3"])
    with pytest.raises(SystemExit, match="other rules"):  # the 4-player file, but not with teams
        main(["eval", "skipbo", "--bots", "agent,expert", "--games", "4", "--num-players", "4", "--teams", "true"])
    with pytest.raises(SystemExit, match="other rules"):
        main(["play", "skyjo", "--vs", "agent", "--episode", "round"])


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_agent_is_package_data_of_the_wheel(tmp_path):
    """A non-editable install ships the model files: build the wheel of a clean copy of the source."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tmp_path / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(tmp_path)], check=True, capture_output=True, timeout=600)
    (wheel,) = (tmp_path / "dist").glob("cardgym-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for game, n in shipped():
        assert f"cardgym/agents/{FOLDER}/{game}-{n}p.pt" in names
    assert "cardgym/agents/pretrained.py" in names
