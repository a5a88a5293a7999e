"""The replay page: one HTML file with the game's positions, the scripts that draw them
and the style inline, so it opens anywhere with no network (no fonts, no external files).

The page is the same for every game; the board in it is the game's own: its
``Game.board_script`` and ``Game.board_style`` are inlined beside the page's
(docs/viewer.md)."""

from __future__ import annotations

import json
from html import escape
from importlib import resources

from arena import __version__
from arena.errors import ArenaError
from arena.games.base import Game
from arena.records import GameRecord
from arena.viewer.frames import page_data


def _asset(name: str) -> str:
    return resources.files("arena.viewer").joinpath(name).read_text(encoding="utf-8")


def _script_json(data: object) -> str:
    """JSON that cannot end its <script> element early (bot names and comments are
    untrusted): every "<" is written as its escape, which JSON.parse reads back."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def _inline(text: str, element: str, what: str) -> str:
    """A game's script or style, which must not end its own element early."""
    if f"</{element}" in text.lower():
        raise ArenaError(f"{what} contains '</{element}': it cannot be inlined in the page")
    return text


def render_replay(record: GameRecord) -> str:
    """The self-contained replay page of ``record``."""
    from arena.plugins import load_game

    game: Game = load_game(record.game)  # once: discovery is not free, and a report
    data = page_data(record, game)  # writes a page per game
    name = f"the {record.game} game's"
    script = _inline(game.board_script(), "script", f"{name} board_script")
    style = _inline(game.board_style(), "style", f"{name} board_style")
    seats = ", ".join(f"{player['name']} (seat {player['seat']})" for player in record.players)
    title = f"{record.game} game {record.game_id or '(unnamed)'}"
    status = "" if not record.failures else (
        f' · <span class="failure-note">{len(record.failures)} seat(s) forfeited</span>')
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # the page may run only its own inline script and load nothing at all
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
        f"<title>{escape(title)} · Ra Arena replay</title>\n"
        f"<style>\n{_asset('viewer.css')}{style}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{escape(title)}</h1>\n"
        f'<p class="muted">{escape(seats)} · seed {record.seed} · round {record.round + 1}'
        f"{status}</p>\n"
        '<div class="controls">'
        '<button id="first" title="first position (Home)">« first</button>'
        '<button id="prev" title="back one decision (←)">◀ back</button>'
        '<button id="play" title="play or pause (space)">▶ play</button>'
        '<button id="next" title="forward one decision (→)">next ▶</button>'
        '<button id="last" title="the end (End)">last »</button>'
        '<input id="slider" type="range" min="0" value="0" aria-label="decision">'
        '<select id="epoch" aria-label="jump to epoch" title="jump to an epoch (PgUp/PgDn)">'
        "</select>"
        '<span id="position"></span></div>\n'
        '<p class="keys">Keys: ← → one decision · Home / End · space plays · '
        "PgUp / PgDn one epoch</p>\n"
        '<div id="move"></div>\n<div id="board"></div>\n'
        '<h2>Scores per epoch</h2>\n<div id="epochs"></div>\n'
        f"<footer>Ra Arena {escape(__version__)} · arena replay --html</footer>\n"
        "</main>\n"
        f'<script type="application/json" id="game-data">{_script_json(data)}</script>\n'
        # the game's board script first: it sets window.arenaBoard, which the page calls
        f"<script>\n{script}{_asset('viewer.js')}</script>\n</body>\n</html>\n"
    )
