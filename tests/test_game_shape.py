"""Every game folder follows the game contract of docs/api.md ("The game contract"): the required
exports, the optional abilities and their defaults, the contract version; `GameSpec.from_package` says
clearly what a folder lacks, and what a game does not offer fails clearly at the call."""

from __future__ import annotations

import importlib
import inspect
import itertools
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import cardgym
from cardgym.core.contract import worlds
from cardgym.core.contract.game import (
    CONTRACT_VERSION,
    CONTRACT_VERSIONS,
    EXPORTS,
    OPTIONAL_DEFAULTS,
    OPTIONAL_EXPORTS,
    UTILITIES,
    DictEncoder,
    FlatEncoder,
    GameSpec,
    Standing,
    bot_random,
)
from cardgym.core.state.rules import Rules
from cardgym.render.scene import Palette

#: module -> every name it may export (docs/api.md, "The game contract"): the two tables of cardgym.core.contract.game
SHAPE = {m: EXPORTS.get(m, ()) + OPTIONAL_EXPORTS.get(m, ()) for m in {**EXPORTS, **OPTIONAL_EXPORTS}}
FILES = {f"{m}.py" for m in SHAPE} | {"__init__.py"}
#: the one extra file a game outside ``cardgym.games`` (a test game) may have: its plain-Python legality,
#: read by the property tests (docs/api.md, "Adding a game")
TEST_GAME_EXTRA = {"reference.py"}


def _package(game: GameSpec) -> str:
    """The game folder's package: the one holding its rules module."""
    return game.rules_cls.__module__.rpartition(".")[0]


@pytest.mark.parametrize("name", list(cardgym.GAMES))
def test_game_folder_has_the_fixed_shape(name):
    game = cardgym.get_game(name)
    package = _package(game)
    folder = Path(importlib.import_module(package).__file__).parent
    files = {p.name for p in folder.glob("*.py") if not p.name.startswith("_") or p.name == "__init__.py"}
    need = {f"{m}.py" for m in EXPORTS} | {"__init__.py"}
    allowed = FILES if package.startswith("cardgym.games.") else FILES | TEST_GAME_EXTRA
    assert need <= files <= allowed, f"{folder}: extra {sorted(files - allowed)}, missing {sorted(need - files)}"

    mods = {m: importlib.import_module(f"{package}.{m}") for m in SHAPE if f"{m}.py" in files}
    for m, names in EXPORTS.items():
        for n in names:
            assert hasattr(mods[m], n), f"{package}.{m} must export {n}"

    # what the names are
    assert issubclass(mods["rules"].RULES, Rules)
    enc = mods["observe"].ENCODERS
    assert list(enc)[0] == "vector" and all(isinstance(e, (FlatEncoder, DictEncoder)) for e in enc.values())
    assert list(mods["bots"].BOTS)[:1] == ["greedy"] or game.contract == 1  # after the core's random
    for m in ("expert", "search"):
        assert m not in mods or list(mods[m].BOTS) == [m]
    assert isinstance(mods["scene"].PALETTE, Palette) and mods["scene"].PALETTE.name == name

    # __init__.py holds the GameSpec only (a docstring, its imports, GAME)
    init = importlib.import_module(package)
    public = {
        k for k, v in vars(init).items()
        if not k.startswith("_") and not isinstance(v, types.ModuleType) and k != "annotations"
    }
    assert public <= {"GAME", "GameSpec", "Standing"}, f"{package}/__init__.py defines more than GAME: {sorted(public)}"
    assert init.GAME is game

    # and the spec is built from exactly those modules, bots in the documented order
    assert game.rules_cls is mods["rules"].RULES and game.state_dtype == mods["rules"].STATE_DTYPE
    assert game.reset is mods["kernels"].reset and game.state_vector is mods["kernels"].state_vector
    assert game.encoders == dict(enc) and game.state_size is mods["observe"].state_size
    assert game.world is mods["observe"].WORLD
    assert game.contract == 1 or not hasattr(mods["observe"], "resample_hidden")  # gone in contract 2
    assert game.describe_action is getattr(mods["text"], "describe_action", None) and game.result is mods["text"].result
    assert game.scene is mods["scene"].scene and game.palette is mods["scene"].PALETTE
    assert game.action_refs is getattr(mods["scene"], "action_refs", None)
    assert game.check_state is mods["invariants"].check_state and game.cards_of is mods["invariants"].cards_of
    bots = {k: v for m in ("bots", "expert", "search") if m in mods for k, v in mods[m].BOTS.items()}
    bots = bots if "random" in bots else {"random": bot_random, **bots}  # a game's own random stays first
    assert list(game.bots) == list(bots) and all(game.bots[k] is bots[k] for k in bots)
    assert list(game.bots)[:2] == ["random", "greedy"] and game.default_bot == "greedy"
    assert game.utility in UTILITIES and (game.standing is None or isinstance(game.standing, Standing))
    assert len(inspect.signature(game.describe_action).parameters) == 3  # (record, rules, action)


@pytest.mark.subprocess
@pytest.mark.parametrize("name", list(cardgym.GAMES))
def test_each_game_imports_first_in_a_fresh_interpreter(name):
    """No import cycle between a game folder and the render layer, whichever game is loaded first."""
    code = (f"import cardgym; g = cardgym.get_game({name!r}); "
            "assert g.scene is not None and g.palette.name == g.name; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


# ------------------------------------------------------------------ from_package on a broken folder

_counter = itertools.count()


def _folder(tmp_path, monkeypatch, drop=None, missing_module=None):
    """A throwaway game folder on sys.path whose modules re-export Skyjo's; ``drop=(module, name)``
    deletes one exported name, ``missing_module`` leaves one module file out. Returns its package."""
    pkg = f"shape_probe_{next(_counter)}"
    root = tmp_path / pkg
    root.mkdir()
    (root / "__init__.py").write_text("")
    for m in SHAPE:
        if m == missing_module:
            continue
        body = f"from cardgym.games.skyjo.{m} import *  # noqa: F403\n"
        body += "from cardgym.games.skyjo.%s import %s  # noqa: F401\n" % (m, ", ".join(SHAPE[m]))
        if drop is not None and drop[0] == m:
            body += f"del {drop[1]}\n"
        (root / f"{m}.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    return pkg


@pytest.fixture
def clean_modules():
    before = set(sys.modules)
    yield
    for k in set(sys.modules) - before:
        if k.startswith("shape_probe_"):
            del sys.modules[k]


def test_from_package_builds_a_copied_folder(tmp_path, monkeypatch, clean_modules):
    pkg = _folder(tmp_path, monkeypatch)
    spec = GameSpec.from_package(pkg, title="Probe", gym_name="Probe", version=3)
    sky = cardgym.get_game("skyjo")
    assert (spec.name, spec.env_name, spec.gym_id, spec.gym_class) == (pkg, f"{pkg}_v3", "cardgym/Probe-v3",
                                                                       "ProbeEnv")
    assert list(spec.bots) == list(sky.bots) and spec.palette is sky.palette and spec.scene is sky.scene


def test_from_package_passes_meta_to_the_typed_fields(tmp_path, monkeypatch, clean_modules):
    pkg = _folder(tmp_path, monkeypatch)
    spec = GameSpec.from_package(pkg, title="Probe", gym_name="Probe", test_configs=({}, {"num_players": 3}),
                                 train_preset={"lr": 1e-3})
    assert spec.test_configs == ({}, {"num_players": 3}) and spec.train_preset == {"lr": 1e-3}


MISSING = [(m, n) for m, names in EXPORTS.items() for n in names]


@pytest.mark.parametrize("module,name", MISSING, ids=[f"{m}.{n}" for m, n in MISSING])
def test_from_package_names_the_missing_name(tmp_path, monkeypatch, clean_modules, module, name):
    pkg = _folder(tmp_path, monkeypatch, drop=(module, name))
    with pytest.raises(TypeError, match=rf"game folder {pkg}: {module}\.py must define {name}\b"):
        GameSpec.from_package(pkg, title="Probe", gym_name="Probe")


@pytest.mark.parametrize("module", list(EXPORTS))
def test_from_package_names_a_missing_module(tmp_path, monkeypatch, clean_modules, module):
    pkg = _folder(tmp_path, monkeypatch, missing_module=module)
    with pytest.raises(TypeError, match=rf"game folder {pkg}: has no {module}\.py \(it must define "
                                        rf"{SHAPE[module][0]}"):
        GameSpec.from_package(pkg, title="Probe", gym_name="Probe")


@pytest.mark.parametrize("module", ["expert", "search"])
def test_expert_and_search_are_optional(tmp_path, monkeypatch, clean_modules, module):
    pkg = _folder(tmp_path, monkeypatch, missing_module=module)
    spec = GameSpec.from_package(pkg, title="Probe", gym_name="Probe")
    assert module not in spec.bots and {"random", "greedy"} <= set(spec.bots)


OPTIONAL = [(m, n) for m, names in OPTIONAL_EXPORTS.items() for n in names if n != "BOTS" and n != "PALETTE"]
FIELD = {"WORLD": "world", "PALETTE": "palette"}


def test_every_optional_export_has_a_documented_default():
    assert set(OPTIONAL_DEFAULTS) == {f"{m}.{n}" for m, names in OPTIONAL_EXPORTS.items() for n in names}
    assert sorted(CONTRACT_VERSIONS) == list(range(1, CONTRACT_VERSION + 1))


@pytest.mark.parametrize("module,name", OPTIONAL, ids=[f"{m}.{n}" for m, n in OPTIONAL])
def test_an_optional_name_left_out_takes_its_default(tmp_path, monkeypatch, clean_modules, module, name):
    pkg = _folder(tmp_path, monkeypatch, drop=(module, name))
    spec = GameSpec.from_package(pkg, title="Probe", gym_name="Probe", contract=2)
    assert getattr(spec, FIELD.get(name, name)) is None


@pytest.mark.parametrize("module", sorted(set(OPTIONAL_EXPORTS) - set(EXPORTS)))
def test_an_optional_module_left_out_takes_its_defaults(tmp_path, monkeypatch, clean_modules, module):
    pkg = _folder(tmp_path, monkeypatch, missing_module=module)
    spec = GameSpec.from_package(pkg, title="Probe", gym_name="Probe")
    for name in OPTIONAL_EXPORTS[module]:
        if name != "BOTS":
            assert getattr(spec, FIELD.get(name, name)) is None, name
    assert list(spec.bots)[0] == "random"


def test_a_game_without_world_or_bots_loads_and_says_what_it_lacks(tmp_path, monkeypatch, clean_modules):
    """Only the required names: no WORLD, no scene, no invariants, no greedy/expert/search bot. The game
    loads with the core's random bot; what needs the missing abilities fails clearly at the call."""
    pkg = _folder(tmp_path, monkeypatch, drop=("observe", "WORLD"))
    for module in ("bots", "expert", "search", "scene", "invariants"):
        (tmp_path / pkg / f"{module}.py").unlink()
    spec = GameSpec.from_package(pkg, title="Probe", gym_name="Probe", contract=2)
    assert list(spec.bots) == ["random"] and spec.bots["random"] is bot_random
    assert spec.default_bot == "random" and spec.world is None and spec.scene is None
    rules = spec.make_rules()
    rec = spec.new_states(1)
    with pytest.raises(NotImplementedError, match=rf"sampling worlds is not available for {pkg}: .*no WORLD"):
        worlds.sample_world(spec, rules, rec[0], 0, 1)
    with pytest.raises(NotImplementedError, match=rf"sampling worlds is not available for {pkg}"):
        worlds.sample_worlds(spec, rules, rec[0], 0, 1, 3)
    with pytest.raises(ValueError, match=r"unknown bot 'search' .*not available for this game: it declares no WORLD"):
        spec.bot("search")
    with pytest.raises(ValueError, match=r"unknown bot 'greedy' .*offers no 'greedy' bot"):
        spec.bot("greedy")
    with pytest.raises(NotImplementedError, match=rf"loading or checking a state is not available for {pkg}"):
        spec.validate_record(rec[0], rules)


@pytest.mark.parametrize("contract", [0, CONTRACT_VERSION + 1, "2", True])
def test_a_contract_version_out_of_range_is_refused(tmp_path, monkeypatch, clean_modules, contract):
    pkg = _folder(tmp_path, monkeypatch)
    with pytest.raises(TypeError, match=rf"game folder {pkg}: __init__\.py declares contract={contract!r}, but "
                                        rf"this cardgym implements contract versions 1 to {CONTRACT_VERSION}"):
        GameSpec.from_package(pkg, title="Probe", gym_name="Probe", contract=contract)


def test_a_game_stating_no_contract_was_written_for_version_1(tmp_path, monkeypatch, clean_modules):
    pkg = _folder(tmp_path, monkeypatch)
    assert GameSpec.from_package(pkg, title="Probe", gym_name="Probe").contract == 1


# ------------------------------------------------------------------------------- the declared contract
def _contract_folder(tmp_path, monkeypatch, edits: dict):
    """A folder re-exporting Skyjo's modules, with ``edits[module]`` appended to a module's body."""
    pkg = _folder(tmp_path, monkeypatch)
    for module, text in edits.items():
        path = tmp_path / pkg / f"{module}.py"
        path.write_text(path.read_text() + text)
    return pkg


CONTRACT_BREAKS = [
    ({"rules": "MIN_PLAYERS = 0\n"}, {}, r"rules\.py MIN_PLAYERS must be an integer >= 1"),
    ({"rules": "MIN_PLAYERS = 9\nMAX_PLAYERS = 8\n"}, {}, r"rules\.py MIN_PLAYERS=9 is above MAX_PLAYERS=8"),
    ({"rules": "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass RULES(RULES):\n    pass\n"
               "RULES = dataclasses.make_dataclass('NoCap', [('num_players', int, 2)], bases=(RULES.__mro__[2],),"
               " frozen=True)\n"}, {}, r"rules\.py RULES \(NoCap\) must have the rule option 'max_turns'"),
    ({"rules": "import numpy as np\nSTATE_DTYPE = np.dtype([('x', np.int8)])\n"}, {},
     r"rules\.py STATE_DTYPE must be built by cardgym\.core\.contract\.game\.state_dtype"),
    ({"observe": "ENCODERS = dict(reversed(list(ENCODERS.items())))\n"}, {}, r"observe\.py ENCODERS must be a dict"),
    ({"bots": "from cardgym.core.contract.game import bot_random\nBOTS = {'greedy': BOTS['greedy'], 'random': bot_random}\n"},
     {}, r"bots\.py BOTS may start with the game's own random bot, but random must come first"),
    ({"bots": "BOTS = dict(BOTS, extra=BOTS['greedy'])\n"}, {}, r"bots\.py the game has 5 bots .*at most 4"),
    ({"bots": "BOTS = None\n"}, {}, r"bots\.py must define BOTS"),
    ({"observe": "WORLD = 3\n"}, {}, r"observe\.py WORLD must be a cardgym\.kit\.Hidden"),
    ({"scene": "PALETTE = None\n"}, {}, r"scene\.py must define PALETTE"),
    ({"text": "result = 3\n"}, {}, r"text\.py result must be a function"),
    ({}, {"utility": "solo"}, r"__init__\.py utility='solo' is not one of"),
    ({}, {"standing": "totals"}, r"__init__\.py standing= must be None or a Standing"),
    ({}, {"test_configs": {"num_players": 2}}, r"__init__\.py test_configs= must be a non-empty list"),
    ({}, {"version": -1}, r"__init__\.py version= must be an integer >= 0"),
]


@pytest.mark.parametrize("edits,meta,message", CONTRACT_BREAKS, ids=[m.split(" ", 1)[0].replace("\\", "")
                                                                     + str(k) for k, (_, _, m) in
                                                                     enumerate(CONTRACT_BREAKS)])
def test_from_package_checks_the_contract_once(tmp_path, monkeypatch, clean_modules, edits, meta, message):
    pkg = _contract_folder(tmp_path, monkeypatch, edits)
    with pytest.raises(TypeError, match=rf"game folder {pkg}: {message}"):
        GameSpec.from_package(pkg, title="Probe", gym_name="Probe", **meta)


def test_outcome_reads_the_utility():
    sky = cardgym.get_game("skyjo")
    house = GameSpec.__new__(GameSpec)
    object.__setattr__(house, "utility", "house")
    assert sky.outcome({"winners": [1]}, 0) == "loss" and sky.outcome({"winners": []}, 0) == "draw"
    assert sky.outcome({"winners": [0, 1]}, 1) == "win"
    # against the house, nobody winning is no draw: every seat lost, unless it pushed
    assert GameSpec.outcome(house, {"winners": [], "pushes": []}, 0) == "loss"
    assert GameSpec.outcome(house, {"winners": [], "pushes": [0]}, 0) == "draw"
    assert GameSpec.outcome(house, {"winners": [0], "pushes": []}, 0) == "win"


def test_the_docs_table_is_the_export_table():
    """docs/api.md's contract table: per module, its required names, then its optional ones."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()

    def names(cell):
        return [n.strip(" `") for n in cell.split(",") if n.strip(" `-—")]

    for module in SHAPE:
        row = next((line for line in text.splitlines() if line.startswith(f"| `{module}.py` |")), None)
        assert row is not None, f"docs/api.md's table has no row for {module}.py"
        cells = row.split("|")
        assert names(cells[2]) == list(EXPORTS.get(module, ())), (module, cells[2])
        assert names(cells[3]) == list(OPTIONAL_EXPORTS.get(module, ())), (module, cells[3])
    assert f"version {CONTRACT_VERSION}" in text.lower()


GAME_WORDS = re.compile(r"skyjo|skip-?bo|junior|crazy|blackjack", re.I)


def test_no_game_name_in_the_generic_layers():
    """eval, play, the CLI and core read a game's spec, never its name."""
    src = Path(cardgym.__file__).resolve().parent
    files = [*sorted((src / "eval").rglob("*.py")), src / "cli" / "play.py", src / "cli" / "__init__.py", *sorted((src / "core").rglob("*.py"))]
    found = []
    for path in files:
        rel = str(path.relative_to(src))
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if GAME_WORDS.search(line):
                found.append(f"{rel}:{k}: {line.strip()}")
    assert not found, "game names in generic code:\n" + "\n".join(found)
