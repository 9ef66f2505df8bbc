"""Game records (cardgym.app.game_records): written by play, eval and GameRecorder; replayed exactly; a
record that does not replay is refused with its line number and the reason."""

from __future__ import annotations

import hashlib
import io
import json
from importlib import resources

import numpy as np
import pytest

import cardgym
from cardgym.cli import main
from cardgym.app.game_records import (
    GameRecorder,
    RecordError,
    parse_record,
    play_recorded,
    read_record,
    replay_states,
)

from conftest import CONFIGS, config_id


def _same_game(a, b) -> bool:
    """Every field equal but the bots' generator and scratch space (bots used them while playing; a replay asks no bot)."""
    return all(np.array_equal(a[f], b[f]) for f in a.dtype.names if f != "bot_rng" and not f.startswith("_bot"))


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_every_game_and_variant_replays_exactly(cfg, tmp_path):
    name, options = cfg
    game = cardgym.get_game(name)
    n = options.get("num_players", 2)
    rules = {k: v for k, v in options.items() if k != "num_players"}
    rec = play_recorded(game, ["random"] * (n - 1) + ["greedy"], seed=11, rules=rules)
    path = rec.save(tmp_path / "g.jsonl")
    env, states = replay_states(read_record(path))
    assert len(states) == len(rec.actions) + 1
    assert _same_game(env.record, rec.raw.record)  # the very same final state
    assert env.result() == rec.raw.result()


def test_python_recorder_on_a_wrapped_env_and_a_stacked_deck(tmp_path):
    from cardgym import skyjo_v0

    env = skyjo_v0.env()  # PettingZoo's wrapper stack
    rec = GameRecorder(env, ["random", "greedy"])
    deck = np.random.default_rng(3).permutation(cardgym.get_game("skyjo").deck)
    rec.reset(deck=deck)
    for _ in range(30):
        rec.step(env.unwrapped.bot_action("random"))
    with pytest.raises(ValueError, match="illegal action"):
        rec.step(next(a for a in range(26) if a not in env.unwrapped.legal_actions()))
    lines = [json.loads(x) for x in rec.save(tmp_path / "d.jsonl").read_text().splitlines()]
    assert lines[0]["deck"] == [int(x) for x in deck] and lines[-1]["finished"] is False
    env2, _ = replay_states(read_record(tmp_path / "d.jsonl"))
    assert _same_game(env2.record, env.unwrapped.record)


def test_header_names_the_players_and_the_model_files(tmp_path):
    rec = play_recorded("skyjo", ["agent", "expert"], seed=2)
    h = rec.lines()[0]
    assert h["env"] == "skyjo_v0" and h["version"] == 1 and h["seed"] == 2 and h["rules"]["num_players"] == 2
    agent, expert = h["players"]
    ref = resources.files("cardgym.agents").joinpath("pretrained_models", "skyjo-2p.pt")
    assert agent["kind"] == "agent" and agent["sha256"] == hashlib.sha256(ref.read_bytes()).hexdigest()
    assert expert == {"kind": "bot", "name": "expert", "seat": 1}
    assert rec.lines()[-1]["finished"] is True and rec.lines()[-1]["result"]["winners"]


def _good(tmp_path):
    path = play_recorded("skipbo_junior", ["random", "greedy"], seed=4).save(tmp_path / "good.jsonl")
    return path.read_text().splitlines()


def _refused(lines, match):
    with pytest.raises(RecordError, match=match) as err:
        rec = parse_record("\n".join(lines) + "\n", "r.jsonl")
        replay_states(rec)
    return err.value


def test_damaged_records_are_refused_with_the_line(tmp_path):
    lines = _good(tmp_path)
    n = len(lines)
    # a damaged line
    bad = lines[:]
    bad[2] = bad[2][:-3]
    assert _refused(bad, "line 3: not JSON").line == 3
    # a cut-off file
    assert _refused(lines[:5], "line 5: the record stops without its end line").line == 5
    # an unknown version
    h = json.loads(lines[0])
    h["version"] = 99
    assert _refused([json.dumps(h)] + lines[1:], "line 1: unknown record version 99").line == 1
    # not a record at all
    _refused(['{"hello": 1}'], "line 1: not a cardgym game record")
    # an action illegal at its step
    a = json.loads(lines[3])
    a["action"] = 16 if a["action"] != 16 else 0
    legal_err = _refused(lines[:3] + [json.dumps(a)] + lines[4:], "line 4: step 2: action")
    assert "not legal" in legal_err.reason or "over" in legal_err.reason
    # the wrong seat
    a = json.loads(lines[3])
    a["seat"] = 1 - a["seat"]
    _refused(lines[:3] + [json.dumps(a)] + lines[4:], "line 4: step 2: the record says seat")
    # a result that differs
    end = json.loads(lines[-1])
    end["result"]["winners"] = [9]
    _refused(lines[:-1] + [json.dumps(end)], f"line {n}: the replayed result")
    # steps out of order, an unknown line type
    _refused(lines[:2] + lines[3:], "line 3: action step 2 out of order")
    _refused(lines[:2] + ['{"type": "chat"}'] + lines[2:], "line 3: unknown line type")


def _edit(lines, k, **fields):
    obj = json.loads(lines[k])
    for key, v in fields.items():
        if v is KeyError:
            obj.pop(key, None)
        else:
            obj[key] = v
    return lines[:k] + [json.dumps(obj)] + lines[k + 1:]


def _player(lines, i, **fields):
    h = json.loads(lines[0])
    for key, v in fields.items():
        if v is KeyError:
            h["players"][i].pop(key, None)
        else:
            h["players"][i][key] = v
    return [json.dumps(h)] + lines[1:]


def test_hostile_records_are_refused_with_the_line_and_the_reason(tmp_path):
    from cardgym.app.game_records import MAX_DEPTH, MAX_MOVES

    lines = _good(tmp_path)
    n = len(lines)
    h = json.loads(lines[0])
    cases = [
        (_edit(lines, 0, seed=-1), "line 1: 'seed' must be the seed of the deal"),
        (_edit(lines, 0, seed=2**63), "line 1: 'seed' must be the seed of the deal"),
        ([lines[0].replace('"seed":4', '"seed":' + "9" * 5000)] + lines[1:], "line 1: not a number this reader takes"),
        (_edit(lines, 0, rules={**h["rules"], "num_players": 10**40}), "line 1: rules not accepted"),
        (_edit(lines, 0, rules={**h["rules"], "stock_size": [[1]]}), "line 1: rule 'stock_size' must be a number"),
        (_edit(lines, 0, deck=[10**30]), "line 1: 'deck' must list the card codes"),
        (_edit(lines, 0, deck=[1, 2, 3]), "line 1: deck not accepted"),
        (_edit(lines, 0, players=h["players"] * 2), "line 1: the header names 4 players for a 2-player game"),
        (_player(lines, 1, seat=KeyError), "line 1: player 1 must have 'seat': 1"),
        (_player(lines, 0, seat=1), "line 1: player 0 must have 'seat': 0"),
        (_player(lines, 0, name=KeyError), "line 1: player 0 must have a 'name'"),
        (_player(lines, 0, name=["x"]), "line 1: player 0 must have a 'name'"),
        (_player(lines, 0, name="deep-blue"), "line 1: player 0 is a bot named 'deep-blue'"),
        (_player(lines, 0, kind="model", file="m.pt", sha256="beef"), "line 1: player 0 .model. must have the 'sha256'"),
        (_edit(lines, 0, game=["skyjo"]), "line 1: 'game' must be a str"),
        (_edit(lines, 0, version=True), "line 1: unknown record version True"),
        (_edit(lines, 2, text=7), "line 3: 'text' must be a str"),
        (_edit(lines, 2, text="x" * 5000), "line 3: 'text' is 5000 characters long"),
        (_edit(lines, 2, seat=-1), r"line 3: 'seat' must be a seat of the game \(0..1\)"),
        (_edit(lines, 2, action=10**30), "line 3: 'action' must be an action id"),
        (_edit(lines, 2, text=KeyError), "line 3: the action line has no 'text'"),
        (lines[:2] + ['{"type": "action", "step": 1, "x": ' + "[" * 40 + "]" * 40 + "}"] + lines[3:],
         f"line 3: lists or objects nested more than {MAX_DEPTH} deep"),
        (lines[:2] + ["[" * 100_000 + "]" * 100_000] + lines[3:], "line 3: the line is 200000 characters long"),
        (lines[:2] + ["[" * 20_000 + "]" * 20_000] + lines[3:], "line 3: lists or objects nested"),
        (_edit(lines, n - 1, status="won"), f"line {n}: 'status' must be one of"),
        (_edit(lines, n - 1, status="running"), f"line {n}: 'finished' True contradicts 'status' 'running'"),
        (_edit(lines, n - 1, status="truncated"), f"line {n}: the record ends with status 'truncated', the replay with 'terminated'"),
        (_edit(lines, n - 1, result=[]), f"line {n}: 'result' must be a dict"),
        ([lines[0]] + ["{}"] * (MAX_MOVES + 2), f"line {MAX_MOVES + 2}: the record holds more than {MAX_MOVES} moves"),
    ]
    for bad, match in cases:
        err = _refused(bad, match)
        assert err.line == int(match.split(":")[0].split()[1]), (match, err)


def test_a_swapped_legal_move_is_refused_with_its_line(tmp_path):
    lines = _good(tmp_path)
    from cardgym.app.game_records import replay

    rec = parse_record("\n".join(lines) + "\n")
    swapped = None
    for k, env in replay(rec):  # find a step with another legal move of another text, and swap it in
        if k < len(rec.actions):
            legal = [a for a in env.legal_actions() if a != rec.actions[k]["action"]]
            if legal:
                swapped = _edit(lines, k + 1, action=legal[0])
                break
    assert swapped is not None
    err = _refused(swapped, f"line {k + 2}: step {k}: the record's move")
    assert "a changed move" in err.reason


def test_play_record_and_replay_commands(tmp_path, monkeypatch, capsys):
    path = tmp_path / "p.jsonl"
    # move numbers are action ids: cycle through all of them, each decision takes the first legal one
    n = cardgym.get_game("skipbo_junior").num_actions
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{a}\n" for a in range(n)) * 3000))
    main(["play", "skipbo_junior", "--vs", "greedy", "--seed", "3", "--record", str(path)])
    out = capsys.readouterr().out
    assert "Game over." in out and f"record: {path}" in out
    rec = read_record(path)
    assert rec.end["finished"] and rec.header["players"][0]["kind"] == "person"
    main(["replay", str(path)])
    out = capsys.readouterr().out
    assert f"{len(rec.actions)} moves" in out and f"result: {rec.end['result']}" in out
    assert f"{len(rec.actions) - 1:>4} player_" in out
    gif = tmp_path / "r.gif"
    main(["replay", str(path), "--gif", str(gif), "--seat", "0"])
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames == len(rec.actions) + 1
    path.write_text(path.read_text().replace('"step":1,', '"step":7,', 1))
    with pytest.raises(SystemExit, match=r"refused: .*line 3: action step 7 out of order"):
        main(["replay", str(path)])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(tmp_path / "nothing.jsonl")])
    assert exc.value.code == 2 and "no such file" in capsys.readouterr().err


def test_eval_record_writes_games_per_pairing(tmp_path, capsys):
    out = tmp_path / "games"
    main(["eval", "skipbo_junior", "--bots", "random,greedy,expert", "--games", "4", "--json",
          "--record", str(out), "--record-games", "2"])
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(f"{a}-vs-{b}-{j}.jsonl" for a, b in
                           [("random", "greedy"), ("random", "expert"), ("greedy", "expert")] for j in (0, 1))
    for f in out.iterdir():
        rec = read_record(f)
        replay_states(rec)
        assert rec.end["finished"]
    seats = [p["name"] for p in read_record(out / "random-vs-greedy-1.jsonl").header["players"]]
    assert seats == ["greedy", "random"]  # game 1 seats the first bot second
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(["eval", "skipbo_junior", "--bots", "random,greedy", "--games", "2", "--json",
              "--record", str(out), "--record-games", "0"])
    assert exc.value.code == 2 and "--record-games" in capsys.readouterr().err
