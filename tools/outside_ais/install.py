"""Make arena bot folders around the outside Ra AIs (see README.md in this folder).

    python tools/outside_ais/install.py --outside /work/outside/albertszeng-ra \
        --to /work/outside/arena

``--to`` is a workspace: for each wrapped AI this writes ``TO/bots/<bot name>/``
(``bot.toml``, our adapter ``bot.py`` and ``ra_adapter.py``, and a copy of the checkout's
``game/`` package under ``outside/``), and it copies the league files of ``leagues/`` to
``TO/``, where their ``bot_paths = ["bots"]`` finds the bots and their results go to
``TO/results/``.  The
copy is needed because the arena's sandbox (bwrap, and Landlock at level ``none``) lets a
bot read only its own folder; it lives wherever ``--to`` says, never in this repository.
Run it again after changing the adapter: it replaces what it wrote.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent

# bot name -> (adapter folder, arguments, description)
BOTS = {
    "albertszeng-oracle": (
        "albertszeng_ra",
        ["--ai", "oracle"],
        "albertszeng/ra's HARD AI (oracle_search: max-n search to the end of the next"
        " auctions on one sampled bag order), wrapped; outside code, not ours.",
    ),
}

# our own reference bots for the leagues here (no outside code): name -> (manifest, script)
REFERENCE_BOTS = {
    "mcts-022s": (
        """\
name = "mcts-022s"
version = "1.2.1"
authors = ["Ra Arena team"]
description = "The bundled mcts capped at 0.22 s per decision: what it thinks at 0.5 s."
command = ["{python}", "bot.py", "--seconds", "0.22"]

[games]
ra = [2, 3, 4, 5]

[resources]
memory_mb = 512
""",
        '''"""The bundled mcts with --seconds (arena/bots/mcts/bot.py)."""

from arena.strategies.mcts import MctsStrategy, serve_search_bot

if __name__ == "__main__":
    serve_search_bot(MctsStrategy, __doc__)
''',
    ),
}

MANIFEST = """\
name = "{name}"
version = "1.0.1"
authors = ["albertszeng/ra authors (the AI)", "Ra Arena team (the wrapper)"]
description = "{description}"
command = {command}

[games]
ra = [2, 3, 4, 5]

[resources]
memory_mb = 1024
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--outside", required=True, help="a checkout of albertszeng/ra")
    parser.add_argument("--to", required=True, help="where to write the bot folders")
    args = parser.parse_args()
    outside = Path(args.outside).resolve()
    if not (outside / "game" / "ra.py").is_file():
        parser.error(f"{outside} does not hold albertszeng/ra's game/ra.py")
    target = Path(args.to).resolve()
    if HERE.parent.parent in (target, *target.parents):
        parser.error("keep the bot folders (they hold outside code) out of this repository")
    for league in sorted((HERE / "leagues").glob("*.toml")):
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(league, target / league.name)
        print(f"wrote {target / league.name}")
    for name, (folder, bot_args, description) in BOTS.items():
        bot = target / "bots" / name
        if bot.exists():
            shutil.rmtree(bot)
        bot.mkdir(parents=True)
        for source in ("bot.py", "ra_adapter.py"):
            shutil.copy2(HERE / folder / source, bot / source)
        shutil.copytree(outside / "game", bot / "outside" / "game",
                        ignore=shutil.ignore_patterns("__pycache__", "test_*.py", "*_tests.py"))
        command = ["{python}", "bot.py", *bot_args, "--outside", "outside"]
        (bot / "bot.toml").write_text(MANIFEST.format(
            name=name, description=description,
            command="[" + ", ".join(f'"{part}"' for part in command) + "]"))
        for path in [target, target / "bots", bot, *bot.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        print(f"wrote {bot}")
    for name, (manifest, script) in REFERENCE_BOTS.items():
        bot = target / "bots" / name
        bot.mkdir(parents=True, exist_ok=True)
        (bot / "bot.toml").write_text(manifest)
        (bot / "bot.py").write_text(script)
        for path in [bot, *bot.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        print(f"wrote {bot}")


if __name__ == "__main__":
    main()
