"""Unusable model files: every one is refused with ``ValueError("not a cardgym model: PATH: REASON")``
before a network is built, and a model is refused where its game, rules or observation do not fit."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import pytest

import cardgym

torch = pytest.importorskip("torch")

from cardgym.agents import FORMAT, PolicyNet, load_policy, read_model_file, save_policy  # noqa: E402

OBS, ACTIONS = 10, 4


class NotAllowed:
    """A class torch's weights_only unpickler refuses to import."""


def _good(path: Path, hidden=(8,), meta=None) -> dict:
    torch.manual_seed(0)
    save_policy(path, PolicyNet(OBS, ACTIONS, hidden), {"game": "skyjo", **(meta or {})})
    return torch.load(path, weights_only=True)


def _with_meta(data: dict, **changes) -> dict:
    meta = json.loads(data["meta_json"])
    meta.update(changes)
    return {**data, "meta_json": json.dumps(meta)}


def _hostile_files(d: Path) -> dict:
    """name -> (path, the reason the error must give)."""
    base = _good(d / "good.pt")
    raw = (d / "good.pt").read_bytes()
    files = {}

    def put(name, reason, data=None, raw_bytes=None):
        p = d / f"{name}.pt"
        if raw_bytes is not None:
            p.write_bytes(raw_bytes)
        else:
            torch.save(data, p)
        files[name] = (p, reason)

    put("text", "not a torch.save archive", raw_bytes=b"hello, I am a text file\n" * 10)
    put("empty", "the file is empty", raw_bytes=b"")
    put("truncated", "not a torch.save archive", raw_bytes=raw[: len(raw) // 2])
    put("truncated_tail", "not a torch.save archive", raw_bytes=raw[:-30])
    put("plain_pickle", "not a torch.save archive", raw_bytes=__import__("pickle").dumps({"format": FORMAT}))
    put("random_checkpoint", "format marker is None", {"model": {"w": torch.zeros(3)}, "epoch": 3})
    put("a_list", "holds a list", [torch.zeros(2)])
    put("foreign_object", "torch.load(weights_only=True) refused it", {"format": FORMAT, "x": NotAllowed})
    put("no_state", "missing ['state_dict']", {"format": FORMAT, "meta_json": base["meta_json"]})
    put("meta_not_json", "meta_json is not JSON", {**base, "meta_json": "{obs_size: 10"})
    put("meta_not_object", "not a JSON object", {**base, "meta_json": "[1, 2]"})
    put("meta_bad_type", "obs_size must be a positive integer", _with_meta(base, obs_size="10"))
    put("meta_bool", "num_actions must be a positive integer", _with_meta(base, num_actions=True))
    put("meta_bad_hidden", "hidden must be a list of positive integers", _with_meta(base, hidden=[8, -1]))
    put("meta_bad_game", "metadata game must be a str", _with_meta(base, game=3))
    put("meta_obs_mismatch", "trunk.0.weight has shape (8, 10)", _with_meta(base, obs_size=11))
    put("meta_actions_mismatch", "pi.weight has shape (4, 8)", _with_meta(base, num_actions=26))
    # the case of the issue: a small file whose metadata asks for two 200,000-wide layers (160 GB)
    put("huge_hidden", "missing ['trunk.2.bias', 'trunk.2.weight']", _with_meta(base, hidden=[200000, 200000]))
    put("huge_hidden_one_layer", "trunk.0.weight has shape (8, 10)", _with_meta(base, hidden=[200000]))
    # ... and with weights of those shapes, made of one stored number repeated (stride 0)
    one = torch.zeros(1, 1)
    wide = {"trunk.0.weight": one.expand(200000, OBS), "trunk.0.bias": one[0].expand(200000),
            "trunk.2.weight": one.expand(200000, 200000), "trunk.2.bias": one[0].expand(200000),
            "pi.weight": one.expand(ACTIONS, 200000), "pi.bias": one[0].expand(ACTIONS),
            "v.weight": one.expand(1, 200000), "v.bias": one[0].expand(1)}
    put("huge_hidden_repeated_storage", "but the file holds",
        {**_with_meta(base, hidden=[200000, 200000]), "state_dict": wide})
    put("int_weights", "dtype torch.int64, not a float dtype",
        {**base, "state_dict": {**base["state_dict"], "pi.bias": torch.zeros(ACTIONS, dtype=torch.int64)}})
    put("nan_weights", "NaN or infinite",
        {**base, "state_dict": {**base["state_dict"], "v.bias": torch.tensor([float("nan")])}})
    put("extra_weight", "unexpected ['extra']", {**base, "state_dict": {**base["state_dict"], "extra": torch.zeros(1)}})
    put("not_tensors", "not a dict of named tensors", {**base, "state_dict": {"pi.bias": [0.0] * ACTIONS}})
    # an archive re-packed with compression (torch.save never compresses)
    packed = d / "compressed.pt"
    with zipfile.ZipFile(d / "good.pt") as src, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    files["compressed"] = (packed, "is compressed")
    # one flipped bit inside a weight's bytes: torch.load would read it as another network
    with zipfile.ZipFile(d / "good.pt") as z:
        info = max((i for i in z.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26: info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    flipped = bytearray(raw)
    flipped[start + info.file_size // 2] ^= 0x10
    put("flipped_bit", f"archive member {info.filename!r} fails its CRC-32 check", raw_bytes=bytes(flipped))
    # metadata nested deeper than Python's recursion limit (json.loads raised RecursionError)
    put("deep_meta", "nested too deeply", {**base, "meta_json": '{"a": ' * 100_000 + "1" + "}" * 100_000})
    put("deep_meta_list", "nested too deeply", {**base, "meta_json": "[" * 100_000 + "]" * 100_000})
    return files


_LOADER = r"""
import json, resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import torch
from cardgym.agents import PolicyNet, load_policy
# the limit is real: building the network the huge metadata asks for fails here
try:
    PolicyNet(10, 4, (200000, 200000))
    control = "built"
except (MemoryError, RuntimeError) as exc:
    control = type(exc).__name__
out = {"control": control}
for path in sys.argv[2:]:
    try:
        load_policy(path)
        out[path] = ["loaded", ""]
    except BaseException as exc:
        out[path] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.subprocess
def test_every_unusable_file_fails_fast_with_one_clear_error(tmp_path):
    """Run in a subprocess with a 3 GB address-space limit: a file that made the loader allocate what its
    metadata asks for would fail there with a MemoryError instead of the ValueError."""
    files = _hostile_files(tmp_path)
    src = str(Path(cardgym.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _LOADER, str(3 * 2**30), *(str(p) for p, _ in files.values())],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out.pop("control") in ("MemoryError", "RuntimeError")
    for name, (path, reason) in files.items():
        kind, msg = out[str(path)]
        assert kind == "ValueError", (name, kind, msg)
        assert msg.startswith(f"not a cardgym model: {path}: "), (name, msg)
        assert reason in msg, (name, msg)


def test_good_files_and_checkpoints_still_load(tmp_path):
    _good(tmp_path / "m.pt", hidden=(8, 6))
    pol = load_policy(tmp_path / "m.pt")
    assert pol.obs_size == OBS and pol.num_actions == ACTIONS and pol.net.hidden == (8, 6)
    meta, state = read_model_file(tmp_path / "m.pt")
    assert meta["hidden"] == [8, 6] and set(state) >= {"pi.weight", "v.bias"}
    # a model without hidden layers is a valid (linear) model
    _good(tmp_path / "linear.pt", hidden=())
    assert load_policy(tmp_path / "linear.pt").net.hidden == ()
    # a trainer checkpoint's state file and folder load as policies (their policy part)
    data = torch.load(tmp_path / "m.pt", weights_only=True)
    (tmp_path / "ck").mkdir()
    torch.save({"policy": data, "counters": [1, 2, 3]}, tmp_path / "ck" / "state.pt")
    for p in (tmp_path / "ck", tmp_path / "ck" / "state.pt"):
        assert load_policy(p).net.hidden == (8, 6)
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "nothing.pt")


def _skyjo_model(path, **meta):
    game = cardgym.get_game("skyjo")
    size = game.encoder("vector").size(game.make_rules(num_players=2))
    save_policy(path, PolicyNet(size, game.num_actions, (8,)), {"game": "skyjo", **meta})
    return path


def test_a_model_is_refused_where_its_game_rules_or_observation_differ(tmp_path):
    from cardgym.eval import match

    ok = _skyjo_model(tmp_path / "ok.pt", rules={"num_players": 2}, observation="vector")
    env = gym.make("cardgym/Skyjo-v0", opponent=str(ok))
    env.reset(seed=0)
    assert match("skyjo", str(ok), "random", games=2)["games"] == 2
    # a trainer checkpoint folder is a model too
    (tmp_path / "ck").mkdir()
    torch.save({"policy": torch.load(ok, weights_only=True)}, tmp_path / "ck" / "state.pt")
    gym.make("cardgym/Skyjo-v0", opponent=str(tmp_path / "ck")).reset(seed=0)
    # another game
    with pytest.raises(ValueError, match="trained on 'skyjo', not 'skipbo'"):
        gym.make("cardgym/SkipBo-v0", opponent=str(ok))
    # another rule option (one that keeps the observation size)
    other = _skyjo_model(tmp_path / "other.pt", rules={"num_players": 2, "setup_reveal": "random"})
    with pytest.raises(ValueError, match="other rules.*setup_reveal"):
        gym.make("cardgym/Skyjo-v0", opponent=str(other))
    with pytest.raises(ValueError, match="other rules.*setup_reveal"):
        cardgym.make_vec("skyjo", 2, opponent=str(other))
    with pytest.raises(ValueError, match="other rules.*setup_reveal"):
        match("skyjo", str(other), "random", games=2)
    # the reward option does not change how the game is played: not compared
    scored = _skyjo_model(tmp_path / "scored.pt", rules={"num_players": 2, "reward": "score"})
    gym.make("cardgym/Skyjo-v0", opponent=str(scored)).reset(seed=0)
    # another observation encoder
    with pytest.raises(ValueError, match="'vector' observation.*'dict'"):
        gym.make("cardgym/Skyjo-v0", opponent=str(ok), observation="dict")
    # unusable rules in the metadata
    bad = _skyjo_model(tmp_path / "bad.pt", rules={"num_players": 2, "wizards": 3})
    with pytest.raises(ValueError, match="does not accept"):
        gym.make("cardgym/Skyjo-v0", opponent=str(bad))
    # an unusable file given as an opponent gives the loader's error
    (tmp_path / "text.pt").write_text("not a model")
    with pytest.raises(ValueError, match="not a cardgym model"):
        gym.make("cardgym/Skyjo-v0", opponent=str(tmp_path / "text.pt"))
