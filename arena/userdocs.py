"""``arena docs [TOPIC]``: the user documentation, shipped inside the package.

The Markdown files of the checkout's ``docs/`` folder are the one copy: ``arena/docs`` is
a link to it, and building the wheel copies the files (as for the bundled leagues), so
``pip install ra-arena`` users read the same pages as a checkout."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.errors import ArenaError, did_you_mean
from arena.package_data import package_folder


def topics() -> dict[str, Path]:
    """topic -> page: every Markdown page shipped, by file name without ``.md``."""
    return {path.stem: path for path in sorted(package_folder("docs").glob("*.md"))}


def _title(page: Path) -> str:
    """The page's first heading (outside code blocks, where "# " is a comment)."""
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif line.startswith(("# ", "## ")) and not in_code:
            return line.lstrip("#").strip()
    return ""


def find_page(topic: str, pages: dict[str, Path]) -> Path:
    """The page ``topic`` names: its name, a unique start of it (``writing``), or a
    unique word of it (``json`` for ra-json); an ArenaError listing the pages if none."""
    wanted = topic.removesuffix(".md").lower()
    if wanted in pages:
        return pages[wanted]
    for matches in ([name for name in pages if name.startswith(wanted)],
                    [name for name in pages if wanted in name.split("-")]):
        if len(matches) == 1:
            return pages[matches[0]]
        if matches:
            raise ArenaError(f"{topic[:60]!r} matches several pages: {', '.join(matches)}; "
                             "give more of the name")
    raise ArenaError(f"no page {topic[:60]!r}{did_you_mean(wanted, pages)}; the pages: "
                     f"{', '.join(pages)}")


def docs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("topic", nargs="?", metavar="TOPIC",
                        help="a page to print (without TOPIC: the list of pages)")
    parser.add_argument("--path", action="store_true",
                        help="print where the page is instead (to open it in an editor)")


def docs_command(args: argparse.Namespace) -> int:
    pages = topics()
    if args.topic is None:
        width = max(map(len, pages), default=0)
        for name, path in pages.items():
            print(f"{name.ljust(width)}  {_title(path)}")
        print("\n`arena docs TOPIC` prints one, e.g. `arena docs leagues`")
        return 0
    page = find_page(args.topic, pages)
    if args.path:
        print(page)
    else:
        print(page.read_text(encoding="utf-8"), end="")
    return 0
