"""Discovery: built-in games, entry-point plugins, bot folders; failures and clashes."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.plugins import discover, manager

from .conftest import GOOD_MANIFEST, write_bot

# A plugin module defining a tiny game; {name}, {low}, {high} are filled in.
GAME_PLUGIN = """
from arena.games.base import Game
from arena.plugins import hookimpl

class PluginGame(Game):
    name = "{name}"
    title = "{name}".title()
    min_players = {low}
    max_players = {high}
    def new_game(self, num_players, seed, options=None):
        raise NotImplementedError
    def state_from_json(self, data):
        raise NotImplementedError
    def replay(self, record):
        raise NotImplementedError

@hookimpl
def arena_register_games():
    return [PluginGame()]
"""


def game_plugin(name: str = "toy", low: int = 2, high: int = 4) -> str:
    return GAME_PLUGIN.format(name=name, low=low, high=high)


Installer = Callable[..., Path]


@pytest.fixture
def toy_plugin(fake_distribution: Installer) -> Installer:
    fake_distribution("toy-games", {"toy": "toy_games_plugin"}, {"toy_games_plugin": game_plugin()})
    return fake_distribution


def test_bundled_games_come_in_through_the_game_hook() -> None:
    registry = discover([], include_bundled=False, entry_points=False)
    assert sorted(registry.games) == ["ra", "ra_dice"] and registry.problems == []
    for name in ("ra", "ra_dice"):
        engine = importlib.import_module(f"arena.games.{name}")
        assert registry.game(name) is engine.GAME
        plugin = f"arena.games.{name}.plugin"
        assert registry.game_sources[name] == f"plugin {plugin} (bundled with Ra Arena)"
        # the module is an ordinary plugin: its hook is what registered the game
        assert importlib.import_module(plugin).arena_register_games() == [engine.GAME]


def test_a_broken_bundled_plugin_does_not_hide_the_others(
    monkeypatch: pytest.MonkeyPatch, toy_plugin: Installer
) -> None:
    broken = "arena.games.no_such_engine.plugin"
    monkeypatch.setattr(manager, "BUNDLED_PLUGINS", (*manager.BUNDLED_PLUGINS, broken))
    manager.loaded_plugins.cache_clear()  # built again, with the broken one
    registry = discover([], include_bundled=False)
    assert registry.game("toy").name == "toy" and registry.game("ra").name == "ra"
    (problem,) = registry.problems
    assert problem.source == f"plugin {broken} (bundled with Ra Arena)"
    assert "ModuleNotFoundError" in problem.message
    # asking for a game that is not there names the plugins that failed to load
    with pytest.raises(ArenaError, match=r"unknown game 'broken'.*failed to load: plugin "
                                         r"arena\.games\.no_such_engine\.plugin"):
        registry.game("broken")


def test_bot_folders_found_under_a_path(tmp_path: Path, toy_plugin: Installer) -> None:
    bots = tmp_path / "bots"
    write_bot(bots / "alpha", "alpha")
    write_bot(bots / "beta", "beta")
    (bots / "notes").mkdir()  # no bot.toml: not a bot
    write_bot(bots / ".beta.installing-x", "beta")  # hidden: a half-done install
    registry = discover([bots], include_bundled=False)
    assert sorted(registry.bots) == ["alpha", "beta"]
    alpha = registry.bot("alpha")
    assert alpha.folder == (bots / "alpha").resolve()
    assert alpha.source == f"folder {bots / 'alpha'}"
    assert registry.problems == []


def test_a_path_may_be_a_bot_folder_itself(tmp_path: Path, toy_plugin: Installer) -> None:
    folder = write_bot(tmp_path / "solo", "solo")
    registry = discover([folder], include_bundled=False)
    assert list(registry.bots) == ["solo"]


def test_default_path_is_bots_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toy_plugin: Installer
) -> None:
    write_bot(tmp_path / "bots" / "local", "local")
    monkeypatch.chdir(tmp_path)
    assert list(discover(include_bundled=False).bots) == ["local"]
    monkeypatch.chdir(tmp_path / "bots")  # no ./bots here: nothing, no error
    assert discover(include_bundled=False).bots == {}


def test_a_named_path_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="is not a directory"):
        discover([tmp_path / "nowhere"], include_bundled=False)


def test_broken_bot_is_listed_with_its_problem(tmp_path: Path, toy_plugin: Installer) -> None:
    write_bot(tmp_path / "bots" / "ok", "ok")
    write_bot(tmp_path / "bots" / "wrong", "wrong", manifest='name = "wrong"\n')
    registry = discover([tmp_path / "bots"], include_bundled=False)
    assert list(registry.bots) == ["ok"]
    entry = next(e for e in registry.entries if e.name == "wrong")
    assert not entry.ready and entry.spec is None
    assert "key 'version': missing" in entry.status
    with pytest.raises(ArenaError, match="bot 'wrong' cannot be used: .*key 'command': missing"):
        registry.bot("wrong")


def test_unknown_bot_lists_the_known_ones(tmp_path: Path, toy_plugin: Installer) -> None:
    write_bot(tmp_path / "bots" / "alpha", "alpha")
    registry = discover([tmp_path / "bots"], include_bundled=False)
    with pytest.raises(ArenaError, match="unknown bot 'gamma'; known bots: alpha"):
        registry.bot("gamma")


def test_same_bot_name_in_two_folders_is_a_clash(tmp_path: Path, toy_plugin: Installer) -> None:
    first = write_bot(tmp_path / "one" / "twin", "twin")
    second = write_bot(tmp_path / "two" / "other-folder", "twin")
    registry = discover([tmp_path / "one", tmp_path / "two"], include_bundled=False)
    assert registry.bots == {}
    with pytest.raises(ArenaError) as caught:
        registry.bot("twin")
    assert str(first) in str(caught.value) and str(second) in str(caught.value)
    assert any("'twin' is registered twice" in p.message for p in registry.problems)


def test_the_same_folder_reached_twice_is_not_a_clash(
    tmp_path: Path, toy_plugin: Installer
) -> None:
    write_bot(tmp_path / "bots" / "once", "once")
    registry = discover([tmp_path / "bots", tmp_path / "bots" / "once"], include_bundled=False)
    assert list(registry.bots) == ["once"]


def test_entry_point_plugin_registers_games_bots_and_folders(
    tmp_path: Path, fake_distribution: Installer
) -> None:
    manifest = GOOD_MANIFEST.format(name="packed").replace("toy = [2, 3, 4]", "dice = [2, 3]")
    shipped = write_bot(tmp_path / "shipped" / "packed", manifest=manifest)
    source = game_plugin("dice", 2, 3) + f"""
from pathlib import Path
from arena.runner.botspec import BotSpec

@hookimpl
def arena_register_bots():
    return [BotSpec(name="native", version="2.0", command=("{{python}}", "-c", "pass"),
                    folder=None, games={{"dice": (2, 3)}}, source="ignored")]

@hookimpl
def arena_bot_folders():
    return [Path({str(shipped.parent)!r})]
"""
    fake_distribution("dice-pack", {"dice": "dice_pack_plugin"}, {"dice_pack_plugin": source})
    registry = discover([], include_bundled=False)
    assert registry.game("dice").max_players == 3
    assert registry.game_sources["dice"] == "entry point dice (distribution dice-pack 1.0)"
    native = registry.bot("native")
    assert native.source == "entry point dice (distribution dice-pack 1.0)"
    assert native.plays("dice", 3)
    packed = registry.bot("packed")
    assert packed.source.endswith("of entry point dice (distribution dice-pack 1.0)")


def test_plugin_bot_spec_is_checked_like_a_manifest(fake_distribution: Installer) -> None:
    source = game_plugin() + """
from arena.runner.botspec import BotSpec

@hookimpl
def arena_register_bots():
    return [BotSpec(name="greedy", version="1", command=("no-such-binary-anywhere",),
                    folder=None, games={"toy": (2, 9)}, source="")]
"""
    fake_distribution("greedy-bot", {"greedy": "greedy_plugin"}, {"greedy_plugin": source})
    registry = discover([], include_bundled=False)
    entry = next(e for e in registry.entries if e.name == "greedy")
    assert "Toy is played by 2..4 players, not 9" in entry.status
    assert "executable 'no-such-binary-anywhere' not found on the bots' PATH" in entry.status


def test_failing_plugin_import_names_the_distribution_and_the_rest_loads(
    tmp_path: Path, toy_plugin: Installer
) -> None:
    toy_plugin("broken-plugin", {"bad": "broken_plugin_module"},
               {"broken_plugin_module": "import no_such_dependency_xyz\n"})
    toy_plugin("exiting-plugin", {"quits": "exiting_plugin_module"},
               {"exiting_plugin_module": "raise SystemExit(3)\n"})
    write_bot(tmp_path / "bots" / "alpha", "alpha")
    registry = discover([tmp_path / "bots"], include_bundled=False)
    assert "toy" in registry.games and list(registry.bots) == ["alpha"]
    by_source = {p.source: p.message for p in registry.problems}
    broken = by_source["entry point bad (distribution broken-plugin 1.0)"]
    assert "failed to import: ModuleNotFoundError" in broken and "no_such_dependency_xyz" in broken
    assert "SystemExit" in by_source["entry point quits (distribution exiting-plugin 1.0)"]


def test_plugin_hook_failures_are_isolated(toy_plugin: Installer) -> None:
    toy_plugin(
        "faulty",
        {"raises": "faulty_raises", "wrongtype": "faulty_wrongtype", "typo": "faulty_typo"},
        {
            "faulty_raises": "from arena.plugins import hookimpl\n"
            "@hookimpl\ndef arena_register_games():\n    raise RuntimeError('boom')\n",
            "faulty_wrongtype": "from arena.plugins import hookimpl\n"
            "@hookimpl\ndef arena_register_games():\n    return 'ra'\n",
            "faulty_typo": "from arena.plugins import hookimpl\n"
            "@hookimpl\ndef arena_register_gmaes():\n    return []\n",
        },
    )
    registry = discover([], include_bundled=False)
    assert "toy" in registry.games
    messages = {p.source.split()[2]: p.message for p in registry.problems if "faulty" in p.source}
    assert messages["raises"] == "arena_register_games failed: RuntimeError: boom"
    assert messages["wrongtype"] == "arena_register_games returned str, not a list"
    assert messages["typo"].startswith("unknown hook arena_register_gmaes; the hooks are:")


def test_same_game_from_two_plugins_is_a_clash(toy_plugin: Installer) -> None:
    toy_plugin("toy-copy", {"toy2": "toy_copy_plugin"}, {"toy_copy_plugin": game_plugin()})
    registry = discover([], include_bundled=False)
    assert "toy" not in registry.games
    with pytest.raises(ArenaError) as caught:
        registry.game("toy")
    message = str(caught.value)
    assert "registered twice" in message
    assert "distribution toy-games" in message and "distribution toy-copy" in message


def test_plugin_and_folder_bot_with_the_same_name_clash(
    tmp_path: Path, fake_distribution: Installer
) -> None:
    source = game_plugin() + """
from arena.runner.botspec import BotSpec

@hookimpl
def arena_register_bots():
    return [BotSpec(name="alpha", version="1", command=("{python}",), folder=None,
                    games={"toy": (2,)}, source="")]
"""
    fake_distribution("alpha-dist", {"alpha": "alpha_plugin"}, {"alpha_plugin": source})
    write_bot(tmp_path / "bots" / "alpha", "alpha")
    registry = discover([tmp_path / "bots"], include_bundled=False)
    with pytest.raises(ArenaError, match="distribution alpha-dist") as caught:
        registry.bot("alpha")
    assert f"folder {tmp_path / 'bots' / 'alpha'}" in str(caught.value)


def test_plugin_bot_spec_of_the_wrong_shape_is_a_problem(fake_distribution: Installer) -> None:
    source = game_plugin() + """
from arena.runner.botspec import BotSpec

@hookimpl
def arena_register_bots():
    return [BotSpec(name="odd", version="1", command=("{python}",), folder=None,
                    games={"toy": 2}, source=""),
            "not a spec"]
"""
    fake_distribution("odd-dist", {"odd": "odd_plugin"}, {"odd_plugin": source})
    registry = discover([], include_bundled=False)
    entry = next(e for e in registry.entries if e.name == "odd")
    assert entry.status.startswith("not a valid BotSpec: TypeError")
    assert any(p.message == "registered str, not an arena.runner.botspec.BotSpec"
               for p in registry.problems)


def test_a_near_miss_gets_a_suggestion(tmp_path: Path, toy_plugin: Installer) -> None:
    write_bot(tmp_path / "bots" / "alpha", "alpha")
    registry = discover([tmp_path / "bots"], include_bundled=False)
    with pytest.raises(ArenaError, match=r"unknown bot 'alhpa' \(did you mean 'alpha'\?\)"):
        registry.bot("alhpa")
    with pytest.raises(ArenaError, match=r"unknown game 'ty' \(did you mean 'toy'\?\)"):
        registry.game("ty")
