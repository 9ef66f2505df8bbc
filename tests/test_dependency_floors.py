"""The floors of stable-baselines3 and sb3-contrib in pyproject.toml, and the installed versions.

Older releases resolve to broken combinations: every stable-baselines3 before 2.9 caps gymnasium below
1.1, 1.2 or 1.3 (Ray's RLlib pins gymnasium 1.2.2), and sb3-contrib before 2.8 has MaskablePPO crash
with a "Simplex" error on torch 2.9 and later. The floors are read from pyproject.toml, so the file and
this check cannot drift apart.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, requires, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
#: the lowest floors that avoid the broken combinations above
MINIMUM = {"stable-baselines3": Version("2.9"), "sb3-contrib": Version("2.8")}


def _extras() -> dict:
    data = tomllib.loads(PYPROJECT.read_text())
    return {name: [Requirement(r) for r in reqs] for name, reqs in data["project"]["optional-dependencies"].items()}


def _floor(req: Requirement) -> Version:
    lows = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=")]
    assert lows, f"{req} has no floor"
    return max(lows)


def _named(package: str) -> dict:
    return {extra: r for extra, reqs in _extras().items() for r in reqs if r.name == package}


@pytest.mark.parametrize("package", sorted(MINIMUM))
def test_every_extra_naming_the_package_has_the_floor(package):
    named = _named(package)
    assert {"train", "dev"} <= set(named), f"{package} should be in the train and dev extras, is in {sorted(named)}"
    floors = {extra: _floor(r) for extra, r in named.items()}
    assert len(set(floors.values())) == 1, f"{package}: the extras disagree on the floor: {floors}"
    assert min(floors.values()) >= MINIMUM[package], f"{package}: floor {floors} below {MINIMUM[package]}"


@pytest.mark.parametrize("package", sorted(MINIMUM))
def test_installed_version_meets_the_floor(package):
    try:
        have = version(package)
    except PackageNotFoundError:
        pytest.skip(f"{package} is not installed")
    for extra, req in _named(package).items():
        assert req.specifier.contains(have, prereleases=True), f"installed {package} {have} is outside [{extra}] {req}"


def test_installed_stable_baselines3_allows_the_gymnasium_installed():
    """stable-baselines3's own gymnasium range admits the installed gymnasium (Ray pins 1.2.2)."""
    try:
        reqs = [Requirement(r) for r in requires("stable-baselines3") or []]
    except PackageNotFoundError:
        pytest.skip("stable-baselines3 is not installed")
    gym = [r for r in reqs if r.name == "gymnasium" and (r.marker is None or r.marker.evaluate())]
    assert gym, "stable-baselines3 names no gymnasium requirement"
    assert all(r.specifier.contains(version("gymnasium")) for r in gym), (gym, version("gymnasium"))
