"""bot.toml's [parameters]: tunable parameters declared, read into the spec, and every
kind of mistake explained in one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.plugins.manifest import (
    DEFAULT_C_END_SHARE,
    DEFAULT_R_END,
    MAX_PARAMETERS,
    ManifestError,
    load_manifest,
)
from arena.runner.botspec import Parameter

from .conftest import GOOD_MANIFEST, TOY_GAMES, write_bot


def with_parameters(table: str) -> str:
    return GOOD_MANIFEST.format(name="tester") + "[parameters]\n" + table


def test_parameters_are_read_in_order_with_fishtest_step_sizes(tmp_path: Path) -> None:
    manifest = with_parameters(
        "denial = { default = 0.6, min = 0.0, max = 2.0, c_end = 0.1, r_end = 0.002 }\n"
        "depth = { default = 3, min = 1, max = 9, integer = true }\n"
        "[parameters.margin]\ndefault = -1\nmin = -5\nmax = 5\n")
    spec = load_manifest(write_bot(tmp_path / "tester", manifest=manifest), TOY_GAMES)
    assert spec.parameters == (
        Parameter("denial", 0.6, 0.0, 2.0, c_end=0.1, r_end=0.002),
        # left out: c_end a twentieth of the range, r_end fishtest's usual
        Parameter("depth", 3.0, 1.0, 9.0, c_end=DEFAULT_C_END_SHARE * 8, r_end=DEFAULT_R_END,
                  integer=True),
        Parameter("margin", -1.0, -5.0, 5.0, c_end=0.5, r_end=0.002),
    )
    assert spec.parameters_json() == {"denial": 0.6, "depth": 3, "margin": -1.0}
    assert isinstance(spec.parameters_json()["depth"], int)  # JSON 3, not 3.0
    plain = load_manifest(write_bot(tmp_path / "plain"), TOY_GAMES)
    assert plain.parameters == () and plain.parameters_json() is None


BROKEN = {
    "not a table": ("[parameters]\n", "parameters = 3\n", "key 'parameters': must be a table"),
    "entry not a table": ("", "denial = 0.6\n", "key 'parameters.denial': must be a table, e.g."),
    "bad name": ("", '"2nd" = { default = 1, min = 0, max = 2 }\n',
                 "key 'parameters.2nd': '2nd' is not a parameter name"),
    "unknown key": ("", "d = { default = 1, min = 0, max = 2, step = 1 }\n",
                    "key 'parameters.d.step': unknown key; allowed keys: default, min, max"),
    "missing default": ("", "d = { min = 0, max = 2 }\n",
                        "key 'parameters.d.default': missing; a parameter needs default, min"),
    "missing max": ("", "d = { default = 1, min = 0 }\n", "key 'parameters.d.max': missing"),
    "text": ("", 'd = { default = "1", min = 0, max = 2 }\n',
             "key 'parameters.d.default': must be a finite number"),
    "infinite": ("", "d = { default = 1, min = 0, max = inf }\n",
                 "key 'parameters.d.max': must be a finite number"),
    "not a number": ("", "d = { default = 1, min = nan, max = 2 }\n",
                     "key 'parameters.d.min': must be a finite number"),
    "a bool": ("", "d = { default = true, min = 0, max = 2 }\n",
               "key 'parameters.d.default': must be a finite number"),
    "integer not a bool": ("", "d = { default = 1, min = 0, max = 2, integer = 1 }\n",
                           "key 'parameters.d.integer': must be true or false"),
    "min above max": ("", "d = { default = 1, min = 2, max = 0 }\n",
                      "key 'parameters.d': min 2 must be below max 0"),
    "default outside": ("", "d = { default = 3, min = 0, max = 2 }\n",
                        "key 'parameters.d.default': 3 is outside min..max (0..2)"),
    "c_end zero": ("", "d = { default = 1, min = 0, max = 2, c_end = 0 }\n",
                   "key 'parameters.d.c_end': 0 must be above 0 and at most max - min (2)"),
    "c_end beyond the range": ("", "d = { default = 1, min = 0, max = 2, c_end = 3 }\n",
                               "key 'parameters.d.c_end': 3 must be above 0"),
    "r_end negative": ("", "d = { default = 1, min = 0, max = 2, r_end = -0.1 }\n",
                       "key 'parameters.d.r_end': -0.1 must be above 0"),
    "integer with a fraction": ("", "d = { default = 1.5, min = 0, max = 2, integer = true }\n",
                                "key 'parameters.d': an integer parameter needs whole numbers, "
                                "not default 1.5"),
    "top-level key after [parameters]": (
        "", 'entry_point = "a:b"\n',
        "key 'parameters.entry_point': 'entry_point' is a top-level key: move it above "
        "[parameters]"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_parameter_is_explained_in_one_line(tmp_path: Path, kind: str) -> None:
    header_swap, table, expected = BROKEN[kind]
    manifest = GOOD_MANIFEST.format(name="tester")
    manifest = manifest.replace("[games]", table + "[games]") if header_swap \
        else manifest + "[parameters]\n" + table
    with pytest.raises(ManifestError) as caught:
        load_manifest(write_bot(tmp_path / "tester", manifest=manifest), TOY_GAMES)
    problems = caught.value.problems
    assert any(expected in problem for problem in problems), problems
    assert all("\n" not in problem for problem in problems)
    # one mistake, one line: the checks after the shape do not repeat it
    assert len(problems) == 1, problems


def test_too_many_parameters(tmp_path: Path) -> None:
    table = "".join(f"p{i} = {{ default = 1, min = 0, max = 2 }}\n"
                    for i in range(MAX_PARAMETERS + 1))
    with pytest.raises(ManifestError, match=f"at most {MAX_PARAMETERS}"):
        load_manifest(write_bot(tmp_path / "tester", manifest=with_parameters(table)),
                      TOY_GAMES)


def test_values_chosen_for_a_player_are_checked_against_the_declaration(
        tmp_path: Path) -> None:
    manifest = with_parameters("d = { default = 1, min = 0, max = 2 }\n"
                               "e = { default = 5, min = 0, max = 9 }\n")
    spec = load_manifest(write_bot(tmp_path / "tester", manifest=manifest), TOY_GAMES)
    chosen = spec.with_parameters({"e": 7.5})
    assert chosen.parameter_values == (("e", 7.5),)
    assert chosen.parameters_json() == {"d": 1.0, "e": 7.5}
    assert chosen != spec  # another player
    with pytest.raises(ValueError, match="declares no parameter 'x'"):
        spec.with_parameters({"x": 1.0})
    with pytest.raises(ValueError, match="outside 0..2"):
        spec.with_parameters({"d": 2.5})


def test_the_bundled_greedy_declares_its_weights() -> None:
    from dataclasses import fields

    from arena.plugins import discover
    from arena.strategies.greedy import GreedyParameters
    from arena.strategies.valuation import Weights

    greedy = discover().bot("greedy")
    own = [f.name for f in fields(GreedyParameters) if f.name != "valuation"]
    assert [p.name for p in greedy.parameters] == own + [f.name for f in fields(Weights)]
    defaults = GreedyParameters()
    for parameter in greedy.parameters:
        made = getattr(defaults, parameter.name, None)
        made = getattr(defaults.valuation, parameter.name) if made is None else made
        assert parameter.default == made, parameter.name  # the manifest says what the code does
