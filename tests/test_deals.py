"""arena/deals.py: deal seeds from a secret key, the key kept in the league's store and
nowhere a bot (or a record) could show it."""

from __future__ import annotations

import io
import stat
import sys
from pathlib import Path

import pytest
import trio

from arena.deals import (
    PUBLIC,
    deal_key_file,
    deal_seed,
    derived_seed,
    new_deal_key,
    server_deal_key,
)
from arena.errors import ArenaError
from arena.league.config import load_league
from arena.league.play import GameSettings
from arena.league.run import run_league
from arena.league.store import create_store, open_store
from arena.runner.botspec import BotSpec
from arena.runner.pool import open_bot_pool

# a bot that writes every line the arena sends it to its stderr (its log), and plays the
# first legal choice
ECHO_BOT = """\
import json, sys
for line in sys.stdin:
    sys.stderr.write(line)
    sys.stderr.flush()
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        reply = {"type": "ready", "name": "echo", "version": "1", "protocol": "ra-arena/1"}
    elif kind == "request":
        reply = {"type": "reply", "id": message["id"], "index": 0}
    elif kind == "ping":
        reply = {"type": "pong", "id": message["id"]}
    elif kind == "quit":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def test_deal_seeds_come_from_the_key_and_public_deals_from_the_seed() -> None:
    key, other = new_deal_key(), new_deal_key()
    assert key != other and len(key) == 64
    assert deal_seed(7, PUBLIC) == 7  # public deals: every game as before deal keys
    assert deal_seed(7, key) != deal_seed(7, other) != 7
    assert deal_seed(7, key) == deal_seed(7, key) < 2**63
    assert len({deal_seed(seed, key) for seed in range(1000)}) == 1000
    # a bot's seed is the same HMAC as ever under public deals
    assert derived_seed(7, 0, "bot") == derived_seed(7, 0, "bot", PUBLIC)
    assert derived_seed(7, 0, "bot", key) != derived_seed(7, 0, "bot")
    assert server_deal_key("s") != server_deal_key("t") and len(server_deal_key("s")) == 64


def test_a_deal_key_file_is_made_private_once_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "league.key"
    key = deal_key_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert deal_key_file(path) == key
    path.write_text("0" * 63 + "\n")
    with pytest.raises(ArenaError, match="is not a deal key file"):
        deal_key_file(path)
    with pytest.raises(ArenaError, match="cannot create the deal key file"):
        deal_key_file(tmp_path / "no" / "such" / "folder.key")


def test_the_store_keeps_one_key_made_on_first_use(tmp_path: Path) -> None:
    store = create_store(tmp_path)
    try:
        assert store.stored_deal_key() is None
        key = store.deal_key()
        assert store.deal_key() == key == store.stored_deal_key()
        assert store.deal_key(key) == key
        with pytest.raises(ArenaError, match="another deal key"):
            store.deal_key(new_deal_key())
    finally:
        store.close()
    reader = open_store(tmp_path)
    assert reader.stored_deal_key() == key
    reader.close()
    given = create_store(tmp_path / "given")
    assert given.deal_key("a" * 64) == "a" * 64  # a shard's key, kept
    given.close()


def test_game_settings_never_show_their_key() -> None:
    settings = GameSettings("ra", deal_key="f" * 64)
    assert "f" * 64 not in repr(settings) and "f" * 64 not in str(settings)


def test_a_process_never_plays_a_deal_twice(tmp_path: Path) -> None:
    spec = BotSpec(name="echo", version="1", command=(sys.executable, "bot.py"),
                   folder=tmp_path, games={"ra": (2,)}, source="test")

    async def main() -> None:
        async with open_bot_pool(log_dir=tmp_path / "logs") as pool:
            async with pool.seated([spec, spec], deal=1) as first:
                assert first[0] is not first[1]
            async with pool.seated([spec], deal=1) as again:  # both played deal 1
                assert again[0] not in first
            async with pool.seated([spec, spec], deal=2) as other:  # warm ones serve
                assert set(other) <= set(first) | set(again)
            async with pool.seated([spec, spec, spec], deal=1) as third:
                assert len(set(third) & (set(first) | set(again))) == 0
            async with pool.seated([spec], deal=None) as anyone:  # no deal, no rule
                assert anyone[0] in set(first) | set(again) | set(third)

    trio.run(main)


def test_the_key_reaches_no_record_export_message_or_log(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    for name in ("echo-a", "echo-b"):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.py").write_text(ECHO_BOT)
        (bots / name / "bot.toml").write_text(
            f'name = "{name}"\nversion = "1"\ncommand = ["{{python}}", "bot.py"]\n'
            "[games]\nra = [2]\n")
    path = tmp_path / "league.toml"
    path.write_text('name = "secret"\ngame = "ra"\nplayers = 2\nroster = ["echo-a", '
                    '"echo-b"]\nrounds = 2\nresults_dir = "out"\nbot_paths = ["bots"]\n'
                    '[limits]\nsandbox = "none"\n')
    config = load_league(path)
    err = io.StringIO()
    assert run_league(config, out=io.StringIO(), err=err) == 0
    assert "deals: secret: from the league's seeds and a key kept in its store" \
        in err.getvalue()
    store = open_store(config.results_dir)
    try:
        key = store.stored_deal_key()
        assert key is not None
        exported = io.StringIO()
        assert store.export(exported) == 4
        records = list(store.games())
    finally:
        store.close()
    assert key not in exported.getvalue()
    for record in records:
        assert "seed" not in record.engine  # the deal seed: not kept, not needed
        assert str(record.seed) in exported.getvalue()  # the public game seed is
    logs = list((config.results_dir / "logs").iterdir())
    assert logs and all(key not in log.read_text() for log in logs)
    # the bots were told their seeds, and the deal seed is not among what they heard
    heard = "".join(log.read_text() for log in logs)
    assert '"seed":' in heard
    for record in records:
        assert str(deal_seed(record.seed, key)) not in heard


def test_a_run_says_when_its_deals_are_public(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text('name = "open"\ngame = "ra"\nplayers = 2\nroster = ["random", "first"]\n'
                    'results_dir = "out"\npublic_deals = true\n[limits]\nsandbox = "none"\n')
    err = io.StringIO()
    config = load_league(path)
    assert run_league(config, out=io.StringIO(), err=err) == 0
    assert "deals: public (public_deals = true)" in err.getvalue()
    store = open_store(config.results_dir)
    try:
        assert store.stored_deal_key() is None  # no key made for a league that needs none
        assert all(record.engine["seed"] == record.seed for record in store.games())
    finally:
        store.close()
