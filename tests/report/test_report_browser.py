"""The report in a real browser: headless Chromium loads it, shows it, logs nothing.

The page has no script, so any console message at all (an error, a blocked resource, a
stray log) is a fault.  Chromium logs console messages to stderr as ``...:CONSOLE...``;
the control test below proves that this detection works.  The screenshot is kept in
results/test-artifacts/ for people to look at.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from arena.records import GameResult
from arena.report.html import render_report
from arena.report.leaderboard import build_leaderboard

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Under CI=true a missing browser fails (a skipped browser test proves nothing there).
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (CI installs it: see .ci/apt-packages)",
)
ARTIFACTS = Path(__file__).resolve().parents[2] / "results" / "test-artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]


def chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    profile.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


class VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hidden += tag in ("style", "title", "head")

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in ("style", "title", "head")

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.parts.append(data.strip())


def test_the_browser_shows_the_report_without_console_errors(
    league: list[GameResult], tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_report(league, title="Browser league", bootstrap=30), encoding="utf-8")
    shown = chromium(page, tmp_path / "profile-dom", "--dump-dom")
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert console_messages(shown.stderr) == []
    reader = VisibleText()
    reader.feed(shown.stdout)
    text = " ".join(reader.parts)
    assert "Browser league" in text
    for row in build_leaderboard(league, bootstrap=30).rows:
        assert f"{row.bot} {row.elo:.0f} {row.low:.0f} – {row.high:.0f}" in text
    for heading in ("Leaderboard", "Rating over games", "Head to head", "Scores", "Failures"):
        assert heading in text

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "report.png"
    screenshot.unlink(missing_ok=True)
    shot = chromium(
        page, tmp_path / "profile-shot", "--window-size=1280,4200", f"--screenshot={screenshot}"
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert console_messages(shot.stderr) == []
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 50_000  # a real rendering, not a blank page


def test_console_errors_would_be_caught(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text(
        "<!DOCTYPE html><p>x</p><script>console.error('boom'); missing();</script>",
        encoding="utf-8",
    )
    shown = chromium(broken, tmp_path / "profile", "--dump-dom")
    messages = console_messages(shown.stderr)
    assert any("boom" in m for m in messages)
    assert any("missing is not defined" in m for m in messages)


PHONE = 390


def test_the_report_reads_on_a_phone(league: list[GameResult], tmp_path: Path) -> None:
    """Issue 43: at 390 px the leaderboard was cut at the interval column, the charts'
    labels shrank to 2-3 px, the seat table and the games' results were off screen, and
    "hover a cell" did nothing.  Now no figure needs sideways scrolling, every label of a
    chart shown is drawn at least 8 px high, and each pair's details are a tap away."""
    import time

    from arena.viewer.index import games_section
    from tests.viewer.browser import Browser

    page = tmp_path / "report.html"
    page.write_text(render_report(league, title="Phone league", bootstrap=30,
                                  games=games_section(league[:40], "games", set())),
                    encoding="utf-8")
    browser = Browser(tmp_path / "profile-phone", width=1280, height=1000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        for width, shot in ((1280, "report-desktop.png"), (PHONE, "report-phone.png")):
            browser.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                         height=1000, deviceScaleFactor=1, mobile=width == PHONE)
            browser.call("Page.navigate", session=True, url=page.as_uri())
            for _ in range(100):
                if browser.evaluate("document.readyState") == "complete":
                    break
                time.sleep(0.05)
            assert browser.evaluate("document.documentElement.scrollWidth") <= width
            # every figure of every table, and every chart, inside the screen
            outside = browser.evaluate(f"""[...document.querySelectorAll(
                'td, .chart svg')].filter((e) => e.getClientRects().length
                && (e.getBoundingClientRect().right > {width} + 0.5
                    || e.getBoundingClientRect().left < 0)).map((e) => e.outerHTML.slice(0, 80))""")
            assert outside == [], outside
            # the charts' words and numbers as they are drawn, in pixels
            smallest = browser.evaluate("""Math.min(...[...document.querySelectorAll(
                '.chart svg text')].filter((t) => t.getClientRects().length)
                .map((t) => t.getBoundingClientRect().height))""")
            assert smallest >= 8, f"a chart label is {smallest:.1f} px high at {width} px"
            browser.screenshot(ARTIFACTS / shot)
        # at phone width: a card per leaderboard row, each figure under its label
        labels = browser.evaluate("""[...document.querySelector('table.leaderboard tr td'
            + '[data-label]').parentElement.querySelectorAll('td[data-label]')].map(
            (td) => getComputedStyle(td, '::before').content)""")
        assert '"95% interval"' in labels and '"avg place"' in labels
        browser.click("details.pairs summary")
        shown = browser.evaluate("[...document.querySelectorAll('details.pairs li')]"
                                 ".filter((li) => li.getClientRects().length).length")
        bots = len(build_leaderboard(league, bootstrap=0).rows)
        assert shown == bots * (bots - 1) // 2
        assert browser.problems == [], browser.problems
    finally:
        browser.close()
