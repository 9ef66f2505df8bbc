"""`cardgym.testing.check_game`, the generic suite shipped in the package, on every registered game (one
test per game and check, so a failure names both), and the suite's own machinery."""

from __future__ import annotations

import pytest

import cardgym
import reference
from cardgym.testing import CHECKS, GameCheckError, Skip, check_game, register
from conftest import GAME_NAMES

#: checks that test_view.py and test_worlds.py already run on every game and configuration (the same
#: functions, with more states): here they run once through check_game (`test_seat_view_and_world_checks`)
ELSEWHERE = ("seat_views", "sample_world")
CASES = [(name, check) for name in GAME_NAMES for check in CHECKS if check not in ELSEWHERE]


@pytest.mark.slow
@pytest.mark.parametrize("check", ELSEWHERE)
def test_seat_view_and_world_checks_run_through_check_game(check):
    name = GAME_NAMES[-1]
    report = check_game(name, configs=cardgym.get_game(name).test_configs[:1], checks=[check])
    assert report and all(v == "passed" for v in report.values()), report


@pytest.mark.parametrize("name,check", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_check_game(name, check):
    report = check_game(name, checks=[check], reference=reference.legal_of(name))
    assert report and all(v.startswith(("passed", "skipped")) for v in report.values()), report
    if check == "reference_legality" and reference.legal_of(name) is not None:
        assert all(v == "passed" for v in report.values())


def test_failures_of_every_check_and_config_are_collected():
    name = GAME_NAMES[0]
    calls = []

    def broken(ctx):
        calls.append(ctx.options)
        if ctx.num_players == ctx.game.make_rules(**ctx.game.test_configs[0]).num_players:
            raise AssertionError("broken on purpose")

    def skipped(ctx):
        raise Skip("does not apply")

    register("probe_broken", broken)
    register("probe_skipped", skipped)
    try:
        with pytest.raises(ValueError, match="already registered"):
            register("probe_broken", broken)
        configs = [{}, {"num_players": cardgym.get_game(name).max_players}]
        with pytest.raises(GameCheckError, match=r"probe_broken \[defaults\]: AssertionError: broken on purpose") as err:
            check_game(name, configs, checks=["probe_broken", "probe_skipped"])
        assert [f[:2] for f in err.value.failures] == [("probe_broken", "defaults")]
        assert len(calls) == 2  # every configuration ran although the first failed
        report = check_game(name, [configs[1]], checks=["probe_skipped"])
        assert report == {("probe_skipped", f"num_players={configs[1]['num_players']}"): "skipped: does not apply"}
    finally:
        del CHECKS["probe_broken"], CHECKS["probe_skipped"]
    with pytest.raises(ValueError, match="unknown check"):
        check_game(name, checks=["no_such_check"])
    with pytest.raises(ValueError, match="identifier"):
        register("not a name", broken)


def test_golden_files_are_written_then_held(tmp_path):
    name = GAME_NAMES[0]
    first = check_game(name, [{}], checks=["golden"], golden_dir=tmp_path)
    (path,) = tmp_path.glob("*.txt")
    assert "written" in first[("golden", "defaults")]
    assert check_game(name, [{}], checks=["golden"], golden_dir=tmp_path) == {("golden", "defaults"): "passed"}
    lines = path.read_text().splitlines()
    lines[3] = lines[3] + " changed"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(GameCheckError, match="differs at line 4"):
        check_game(name, [{}], checks=["golden"], golden_dir=tmp_path)


def test_run_check_is_a_pytest_skip_when_the_check_skips_everywhere():
    """A game's own tests (``cardgym new-game``'s) call `run_check`: a check of an ability the game does not
    offer is reported as a pytest skip with the reason, one that skips on some configurations only passes."""
    from cardgym.testing import run_check

    name = GAME_NAMES[0]
    configs = [{}, {"num_players": cardgym.get_game(name).max_players}]

    def never(ctx):
        raise Skip("probe ability (the game has no probe)")

    def sometimes(ctx):
        if ctx.options:
            raise Skip("only the defaults")

    register("probe_never", never)
    register("probe_sometimes", sometimes)
    try:
        with pytest.raises(pytest.skip.Exception, match=r"probe_never: probe ability \(the game has no probe\)"):
            run_check(name, "probe_never", configs=configs)
        report = run_check(name, "probe_sometimes", configs=configs)
        assert sorted(report.values()) == ["passed", "skipped: only the defaults"]
    finally:
        del CHECKS["probe_never"], CHECKS["probe_sometimes"]
