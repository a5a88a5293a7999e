from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.league.config import LeagueConfig, load_league, parse_league


def test_a_full_file_reads_every_key(league_file) -> None:
    path = league_file(
        'roster = ["a", "b", "c"]',
        "rounds = 3",
        "seed = 42",
        "max_games = 600",
        "concurrency = 4",
        "workers = 2",
        'bot_paths = ["mybots"]',
        "[options]",
        "short = true",
        "[time]",
        "per_decision = 0.5",
        "overage = 2",
        "handshake = 3",
        "[limits]",
        "memory_mb = 256",
        "cpu_seconds = 60",
        'sandbox = "bwrap"',
        "[rating]",
        'anchor = "a"',
        "bootstrap = 50",
        players="[3, 4]",
    )
    config = load_league(path)
    assert config.name == "test" and config.game == "ra"
    assert config.players == (3, 4)
    assert config.roster == ("a", "b", "c")
    assert (config.rounds, config.seed, config.max_games, config.concurrency) == (3, 42, 600, 4)
    assert config.workers == 2 and config.worker_count() == 2 and config.worker_count(1) == 1
    assert config.results_dir == path.parent / "out"
    assert config.bot_paths == (path.parent / "mybots",)
    assert config.options == {"short": True}
    limits = config.limits  # [time] and [limits] make one Limits (arena/settings.py)
    assert limits.move_seconds == 0.5 and limits.bank_seconds == 2.0
    assert limits.handshake_seconds == 3.0 and limits.game_seconds is None
    assert limits.memory_mb == 256 and limits.sandbox == "bwrap"
    # the store keeps them under the league file's own names
    assert config.game_settings()["time"] == {"per_decision": 0.5, "per_game": None,
                                              "overage": 2.0, "handshake": 3.0}
    assert config.game_settings()["limits"]["memory_mb"] == 256
    assert config.rating.anchor == "a" and config.rating.bootstrap == 50


def test_defaults(league_file) -> None:
    config = load_league(league_file())
    assert config.roster is None  # all discovered bots
    assert config.format == "round-robin" and config.rounds == 1 and config.seed == 1
    assert config.concurrency == len(os.sched_getaffinity(0))  # the CPUs it may use
    assert config.limits.move_seconds == 1.0 and config.limits.bank_seconds is None
    assert config.limits.sandbox == "auto"  # the strongest level the machine has
    # what a store holds for a league with no [time]/[limits] (sandbox: "none" before
    # issue 13 made "auto" the default: such a league resumes with sandbox = "none")
    assert config.game_settings()["time"] == {"per_decision": 1.0, "per_game": None,
                                              "overage": 0.0, "handshake": 10.0}
    assert config.game_settings()["limits"] == {
        "memory_mb": 2048, "cpu_seconds": 3600, "max_processes": 64, "max_file_mb": 64,
        "max_open_files": 64, "max_message_kb": 1024, "sandbox": "auto"}
    assert config.players == (3,)


@pytest.mark.parametrize(
    ("lines", "key", "allowed"),
    [
        (["colour = 1"], "colour", "allowed here"),
        (["[time]", "per_decison = 1"], "time.per_decison", "per_decision"),
        (["rounds = 0"], "rounds", "between 1 and"),
        (["rounds = 1.5"], "rounds", "whole number"),
        (["seed = -1"], "seed", "between 0"),
        (["format = 3"], "format", "a format's name"),
        (["format = { games = 3 }"], "format", 'needs name = "FORMAT"'),
        (['format = "two words"'], "format", "must name a format"),
        (['format = "swiss"', "[stop]", "sprt = { elo0 = 0, elo1 = 10 }"], "stop.sprt",
         "schedule made in advance"),
        (['roster = "some"'], "roster", '"all" or a non-empty list'),
        (['roster = ["a", "a"]'], "roster", "more than once"),
        (['roster = ["bad name"]'], "roster", "letters, digits"),
        (["concurrency = 0"], "concurrency", "between 1"),
        (["max_games = 0"], "max_games", ">= 1"),
        (["[time]", "per_decision = 0"], "time.per_decision", "more than 0"),
        (["[time]", 'per_decision = "1s"'], "time.per_decision", "number of seconds"),
        (["[limits]", 'sandbox = "docker"'], "limits.sandbox", "'auto', 'bwrap', 'none'"),
        (["[limits]", "memory_mb = 1"], "limits.memory_mb", "between 16"),
        (["[rating]", "bootstrap = -1"], "rating.bootstrap", "between 0"),
        (["time = 3"], "time", "must be a table"),
        (['challenger = "x"'], "challenger", "only allowed with"),
        (['format = "gauntlet"'], "challenger", "is required"),
    ],
)
def test_bad_values_name_file_key_and_what_is_allowed(
    league_file, lines: list[str], key: str, allowed: str
) -> None:
    path = league_file(*lines)
    with pytest.raises(ArenaError) as caught:
        load_league(path)
    message = str(caught.value)
    assert str(path) in message
    assert f"'{key}'" in message
    assert allowed in message


@pytest.mark.parametrize("players", ["1", "[]", "[3, 3]", '"3"', "9"])
def test_bad_player_counts(league_file, players: str) -> None:
    with pytest.raises(ArenaError, match="'players'"):
        load_league(league_file(players=players))


def test_required_keys(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    for text, key in [('game = "ra"\nplayers = 3', "name"), ('name = "x"\nplayers = 3', "game"),
                      ('name = "x"\ngame = "ra"', "players")]:
        with pytest.raises(ArenaError, match=f"'{key}': is required"):
            parse_league(text, path)


def test_toml_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\ngame = "ra"\nplayers = [3,\nrounds = = 2\n')
    with pytest.raises(ArenaError) as caught:
        load_league(path)
    message = str(caught.value)
    assert str(path) in message and "not valid TOML" in message
    assert "line" in message and "column" in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="no such league file"):
        load_league(tmp_path / "nope.toml")


def test_game_settings_cover_what_changes_a_game(league_file) -> None:
    config: LeagueConfig = load_league(league_file("[time]", "per_decision = 2"))
    settings = config.game_settings()
    assert settings["time"]["per_decision"] == 2.0
    assert set(settings) == {"game", "options", "seed", "time", "limits"}
    assert config.snapshot()["name"] == "test"


def test_the_store_is_found_from_the_league_file_wherever_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One rule (issue 12): relative to the league file unless absolute, default too."""
    league = tmp_path / "configs" / "spring.toml"
    for cwd in (tmp_path, tmp_path / "elsewhere"):
        cwd.mkdir(exist_ok=True)
        monkeypatch.chdir(cwd)
        default = parse_league('name = "spring"\ngame = "ra"\nplayers = 3\n', league)
        assert default.results_dir == tmp_path / "configs" / "results" / "spring"
        relative = parse_league('name = "s"\ngame = "ra"\nplayers = 3\nresults_dir = "../r"\n',
                                league)
        assert relative.results_dir == tmp_path / "r"
        absolute = parse_league(f'name = "s"\ngame = "ra"\nplayers = 3\n'
                                f'results_dir = "{tmp_path / "abs"}"\n', league)
        assert absolute.results_dir == tmp_path / "abs"


def test_a_misspelt_required_key_is_named_as_unknown(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="key 'nmae': unknown key \\(did you mean 'name'\\?\\); "
                                         "allowed here: .*name"):
        parse_league('nmae = "x"\ngame = "ra"\nplayers = 3\n', tmp_path / "l.toml")


def test_concurrency_and_workers_default_to_the_cpus_the_arena_may_use(league_file) -> None:
    mask = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(mask)})  # as under `taskset -c N`
        config = load_league(league_file())
        assert config.concurrency == 1 and config.worker_count(4) == 1
    finally:
        os.sched_setaffinity(0, mask)
    assert load_league(league_file()).worker_count(64) == len(mask)
