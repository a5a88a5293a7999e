"""arena.notebook (issue 43, item 6): a match or a small league from Python in a few
lines, the leaderboard as rows, no trio in the user's code.  docs/notebook.md is run as
it is: its code blocks in a plain Python process, and as a notebook in a Jupyter kernel
(where an event loop already runs); the same calls work inside asyncio and trio."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.cli import main
from arena.errors import ArenaError
from arena.notebook import league, match, run_sync

PAGE = Path(__file__).resolve().parents[1] / "docs" / "notebook.md"
FAST = {"time": {"per_decision": 0.5}}


def page_code() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)


def check_page_output(out: str) -> None:
    """What the page's blocks print: the match's table (and its notes), the best bot's
    line and the column, the league's three rows, a game's first line."""
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["rank", "bot", "elo", "low"]
    assert {lines[2].split()[1], lines[3].split()[1]} == {"greedy", "random"}
    best = lines[-6].split()  # e.g. "greedy 1724 4 4"
    assert best[0] in ("greedy", "random") and int(best[2]) == 4
    assert re.fullmatch(r"\['(greedy|random)', '(greedy|random)'\]", lines[-5])
    ranks = [line.split() for line in lines[-4:-1]]
    assert [r[0] for r in ranks] == ["1", "2", "3"]
    assert sorted(r[1] for r in ranks) == ["first", "greedy", "random"]
    assert lines[-1].startswith("Game ") and "(ra, " in lines[-1]


def test_the_page_runs_in_a_plain_python_process(tmp_path: Path) -> None:
    script = tmp_path / "page.py"
    script.write_text("\n".join(page_code()) + "\nprint('done')\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[-1] == "done"
    check_page_output("\n".join(out[:-1]) + "\n")
    assert "4/4 games" in done.stderr  # the progress, on stderr
    assert not (tmp_path / "results").exists()  # a temporary store, removed


def test_the_page_runs_as_a_notebook_in_a_jupyter_kernel(tmp_path: Path) -> None:
    try:
        import nbclient
        import nbformat
    except ImportError:
        message = "nbclient is not installed (pip install -e '.[test]' installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in page_code()]
    notebook.cells.append(nbformat.v4.new_code_cell("board"))  # shown as a table
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [output for cell in notebook.cells for output in cell.outputs]
    errors = [output for output in outputs if output.output_type == "error"]
    assert not errors, errors
    printed = "".join(output.text for output in outputs
                      if output.output_type == "stream" and output.name == "stdout")
    check_page_output(printed)
    table = notebook.cells[-1].outputs[0].data["text/html"]
    assert table.startswith("<table>") and "<td>greedy</td>" in table


def test_it_plays_where_an_event_loop_already_runs() -> None:
    async def under_asyncio() -> list[str]:
        return match("first", "random", **FAST).column("bot")

    async def under_trio() -> list[str]:
        return match("first", "random", **FAST).column("bot")

    assert sorted(asyncio.run(under_asyncio())) == ["first", "random"]
    assert sorted(trio.run(under_trio)) == ["first", "random"]


def test_a_kept_store_is_read_by_the_commands_and_resumed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = tmp_path / "kept"
    first = league(["first", "random"], players=2, rounds=2, results_dir=kept,
                   progress=False, **FAST)
    assert len(first.games) == 4 and first.results_dir == kept
    assert sum(row["games"] for row in first.rows) == 8  # two seats a game
    again = league(["first", "random"], players=2, rounds=2, results_dir=kept,
                   progress=False, **FAST)
    assert [g.game_id for g in again.games] == [g.game_id for g in first.games]
    assert main(["leaderboard", str(kept), "--json"]) == 0
    assert '"bot": "first"' in capsys.readouterr().out


def test_a_wrong_argument_is_one_clear_error() -> None:
    with pytest.raises(ArenaError, match=r"league\(\): key 'rounds': must be between 1"):
        league(["first", "random"], rounds=0)
    with pytest.raises(ArenaError, match="unknown bot 'nobody'"):
        league(["first", "nobody"])
    with pytest.raises(ArenaError, match="give a list of bot names"):
        league("first")  # type: ignore[arg-type]


def test_an_interrupt_stops_the_league_and_goes_on() -> None:
    """Ctrl-C (Jupyter's stop button) reaches the waiting thread: the league's run is
    cancelled, has ended when the interrupt goes on, and nothing is left running."""
    ended: list[str] = []

    async def forever() -> None:
        try:
            await trio.sleep_forever()
        finally:
            ended.append("cancelled")

    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sync(forever, interrupt)
    assert ended == ["cancelled"]
    assert not [t for t in __import__("threading").enumerate() if t.name == "arena-league"]
