"""`arena docs`: the user documentation ships with the package and the files a new user
starts from point to pages that exist."""

from __future__ import annotations

import re
from pathlib import Path

from arena.cli import main
from arena.package_data import package_folder
from arena.userdocs import topics

ROOT = Path(__file__).resolve().parents[1]


def test_every_page_of_docs_is_a_topic_and_prints_whole(capsys) -> None:
    pages = sorted(path.stem for path in (ROOT / "docs").glob("*.md"))
    assert sorted(topics()) == pages and "leagues" in pages
    assert main(["docs"]) == 0
    listing = capsys.readouterr().out
    assert all(page in listing for page in pages)
    assert "Writing a bot" in listing  # each page's title
    assert main(["docs", "writing-a-bot"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "writing-a-bot.md").read_text()
    assert main(["docs", "leagues.md", "--path"]) == 0
    assert Path(capsys.readouterr().out.strip()).read_text() == (
        ROOT / "docs" / "leagues.md").read_text()
    assert main(["docs", "nope"]) == 2
    assert "the pages: architecture" in capsys.readouterr().err


def test_the_package_carries_the_docs_through_a_link_not_a_copy() -> None:
    assert (ROOT / "arena" / "docs").is_symlink()
    assert package_folder("docs") == (ROOT / "docs").resolve()


def test_what_a_new_user_starts_from_points_to_pages_that_exist(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "ws")]) == 0
    texts = [path.read_text() for path in (tmp_path / "ws").rglob("*") if path.is_file()]
    texts += [path.read_text() for path in (ROOT / "configs").glob("*.toml")]
    named = {name for text in texts for name in re.findall(r"arena docs ([a-z-]+)", text)}
    assert named and named <= set(topics())
    cited = {name for text in texts for name in re.findall(r"docs/([a-z-]+)\.md", text)}
    assert cited <= set(topics())


def test_the_by_hand_test_of_writing_a_bot_works_in_an_init_workspace(tmp_path: Path) -> None:
    """Issue 43: it said PYTHONPATH=../.. (a checkout's root), which an `arena init`
    workspace is not.  Its shell lines, run there with the environment that has Ra Arena
    active (its bin first on PATH, as `source .venv/bin/activate` does), print a ready, a
    reply and a pong."""
    import json
    import os
    import subprocess
    import sys

    page = (ROOT / "docs" / "writing-a-bot.md").read_text()
    block = page.split("1. **By hand**", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    script = "\n".join(line.strip() for line in block.splitlines()).replace(
        "bots/lowbid", "bots/my-bot")
    assert main(["init", str(tmp_path / "ws")]) == 0
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    environment.pop("PYTHONPATH", None)
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path / "ws", env=environment,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert answers == ["ready", "reply", "pong"]
