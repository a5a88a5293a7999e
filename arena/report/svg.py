"""Small inline-SVG charts for the HTML report: no JavaScript, no network.

Every function returns one ``<svg>`` element as a string.  Text that comes from bots
(their names) is always escaped: a bot is untrusted and picks its own name.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

# Tableau 10: distinct, colour-blind friendly enough, readable on white.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip
DASHES = ("", "6 3", "2 3", "8 3 2 3")  # beyond ten lines, colours repeat with a new dash
INK = "#1f2933"
MUTED = "#616e7c"
GRID = "#e4e7eb"


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def dash(i: int) -> str:
    return DASHES[(i // len(PALETTE)) % len(DASHES)]


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step + 1e-9) + 1)]


def padded_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Ticks that enclose [low, high]: one more step below and above when needed."""
    values = ticks(low, high, count)
    step = values[1] - values[0] if len(values) > 1 else 1.0
    if values[0] > low:
        values.insert(0, values[0] - step)
    if values[-1] < high:
        values.append(values[-1] + step)
    return values


def _fmt(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 else f"{value:.1f}"


# the width a phone's drawings are made for: a 390 px screen less the page's margins, so
# that their text is drawn at nearly the size it is written (11-12 px)
PHONE_WIDTH = 340


def wide_and_phone(wide: str, phone: str) -> str:
    """A chart drawn twice, each shown where it reads (report.css shows one or the other):
    scaled down to a phone, the wide one's labels would shrink to a few pixels."""
    return f'<div class="chart desk">{wide}</div><div class="chart phone">{phone}</div>'


def label_room(names: Sequence[str]) -> int:
    """The width bots' names take as labels (12 px, bold), so that a long one is not cut
    at the drawing's edge: 150 px at least, 320 at most."""
    return int(min(320, max(150, 7.4 * max((len(name) for name in names), default=0) + 18)))


def _open(width: float, height: float, label: str, wide: bool = False) -> str:
    css = ' class="wide"' if wide else ""
    return (
        f'<svg{css} xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label="{escape(label)}">'
    )


# --------------------------------------------------------------------------- intervals


def interval_bar(
    elo: float, low: float, high: float, scale: tuple[float, float], fill: str, width: int = 180
) -> str:
    """One leaderboard row's 95% interval (bar) and rating (dot) on a shared scale."""
    lo, hi = scale
    height = 18

    def x(v: float) -> float:
        return 6 + (width - 12) * (v - lo) / (hi - lo)

    label = f"Elo {elo:.0f}, 95% interval {low:.0f} to {high:.0f}"
    return (
        _open(width, height, label)
        + f'<line x1="6" x2="{width - 6}" y1="9" y2="9" stroke="{GRID}" stroke-width="1"/>'
        + f'<rect x="{x(low):.1f}" y="4" width="{max(2.0, x(high) - x(low)):.1f}" height="10" '
        f'rx="5" fill="{fill}" fill-opacity="0.45"/>'
        + f'<circle cx="{x(elo):.1f}" cy="9" r="4.5" fill="{fill}" stroke="#fff" '
        f'stroke-width="1.5"/><title>{escape(label)}</title></svg>'
    )


# --------------------------------------------------------------------------- lines


def line_chart(
    xs: Sequence[float],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    width: int = 1100,
    height: int = 380,
    x_label: str = "",
    y_label: str = "",
    y_range: tuple[float, float] | None = None,
) -> str:
    """One line per named series; None values leave a gap (e.g. before a bot's debut).
    ``y_range``: the values the y axis covers at least (a parameter's bounds)."""
    left, right, top, bottom = 56, 16, 14, 42
    values = [v for _, ys in series for v in ys if v is not None]
    if not xs or not values:
        return _open(width, 40, "no data") + "</svg>"
    y_ticks = padded_ticks(min(values), max(values)) if y_range is None else \
        padded_ticks(min(*values, y_range[0]), max(*values, y_range[1]))
    y_lo, y_hi = y_ticks[0], y_ticks[-1]
    x_ticks = ticks(0, max(xs))
    x_hi = max(max(xs), x_ticks[-1])

    def px(x: float) -> float:
        return left + (width - left - right) * x / x_hi

    def py(y: float) -> float:
        return top + (height - top - bottom) * (y_hi - y) / (y_hi - y_lo)

    parts = [_open(width, height, y_label or "line chart", wide=True)]
    for t in y_ticks:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{py(t):.1f}" y2="{py(t):.1f}" '
            f'stroke="{GRID}"/><text x="{left - 8}" y="{py(t) + 4:.1f}" text-anchor="end" '
            f'class="tick">{_fmt(t)}</text>'
        )
    for t in x_ticks:
        parts.append(
            f'<text x="{px(t):.1f}" y="{height - bottom + 18}" text-anchor="middle" '
            f'class="tick">{_fmt(t)}</text>'
        )
    parts.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{height - 6}" text-anchor="middle" '
        f'class="axis">{escape(x_label)}</text>'
        f'<text transform="translate(14 {(top + height - bottom) / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle" class="axis">{escape(y_label)}</text>'
    )
    for i, (name, ys) in enumerate(series):
        segments: list[list[str]] = [[]]
        for x, y in zip(xs, ys, strict=True):
            if y is None:
                segments.append([])
            else:
                segments[-1].append(f"{px(x):.1f},{py(y):.1f}")
        last = next((y for y in reversed(ys) if y is not None), None)
        tip = escape(f"{name}: {last:.0f}" if last is not None else name)
        for points in (s for s in segments if s):
            parts.append(
                f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour(i)}" '
                f'stroke-width="2" stroke-linejoin="round" stroke-dasharray="{dash(i)}">'
                f"<title>{tip}</title></polyline>"
            )
    parts.append("</svg>")
    return "".join(parts)


# --------------------------------------------------------------------------- boxes


def quartiles(values: Sequence[float]) -> tuple[float, float, float, float, float]:
    ordered = sorted(values)

    def at(q: float) -> float:
        position = q * (len(ordered) - 1)
        below = math.floor(position)
        above = min(below + 1, len(ordered) - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (position - below)

    return ordered[0], at(0.25), at(0.5), at(0.75), ordered[-1]


def box_plot(rows: Sequence[tuple[str, Sequence[float]]], *, width: int = 1100,
             stacked: bool = False) -> str:
    """Horizontal box plots: whiskers min–max, box quartiles, line median, dot mean.
    ``stacked``: each bot's name above its box rather than beside it (a narrow drawing,
    for a phone: the boxes keep the whole width, and a long name is never cut)."""
    label_width, right, row_height, top = (12, 12, 44, 8) if stacked else (
        label_room([name for name, _ in rows]), 20, 28, 8)
    axis_height = 30
    height = top + row_height * len(rows) + axis_height
    everything = [v for _, values in rows for v in values]
    if not everything:
        return _open(width, 40, "no scores") + "</svg>"
    scale = padded_ticks(min(everything), max(everything))
    lo, hi = scale[0], scale[-1]

    def px(v: float) -> float:
        return label_width + (width - label_width - right) * (v - lo) / (hi - lo)

    parts = [_open(width, height, "score distribution per bot", wide=True)]
    bottom = top + row_height * len(rows)
    for t in scale:
        parts.append(
            f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top}" y2="{bottom}" stroke="{GRID}"/>'
            f'<text x="{px(t):.1f}" y="{bottom + 18}" text-anchor="middle" class="tick">'
            f"{_fmt(t)}</text>"
        )
    for i, (name, values) in enumerate(rows):
        if not values:
            continue
        y = top + row_height * i + row_height / 2 + (8 if stacked else 0)
        low, q1, median, q3, high = quartiles(values)
        mean = sum(values) / len(values)
        tip = escape(
            f"{name}: {len(values)} games, min {low:g}, quartiles {q1:g} / {median:g} / "
            f"{q3:g}, max {high:g}, mean {mean:.1f}"
        )
        fill = colour(i)
        label = (f'<text x="0" y="{y - 13:.1f}" class="label">{escape(name)}</text>'
                 if stacked else f'<text x="{label_width - 10}" y="{y + 4:.1f}" '
                 f'text-anchor="end" class="label">{escape(name)}</text>')
        parts.append(
            f'<g><title>{tip}</title>{label}'
            f'<line x1="{px(low):.1f}" x2="{px(high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{MUTED}" stroke-width="1.2"/>'
            f'<rect x="{px(q1):.1f}" y="{y - 8:.1f}" width="{max(1.5, px(q3) - px(q1)):.1f}" '
            f'height="16" rx="3" fill="{fill}" fill-opacity="0.3" stroke="{fill}" '
            f'stroke-width="1.5"/>'
            f'<line x1="{px(median):.1f}" x2="{px(median):.1f}" y1="{y - 8:.1f}" '
            f'y2="{y + 8:.1f}" stroke="{INK}" stroke-width="2"/>'
            f'<circle cx="{px(mean):.1f}" cy="{y:.1f}" r="3" fill="#fff" stroke="{INK}" '
            f'stroke-width="1.3"/></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


# --------------------------------------------------------------------------- heat map


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


# The ends are as dark as they can be while dark text on them keeps WCAG AA contrast
# (4.5:1), so every cell can use the same ink.
LOSS, EVEN, WIN = (222, 110, 90), (247, 247, 247), (86, 150, 203)


def relative_luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    channels = [int(hex_colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio between two colours (1 to 21)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def rate_colour(rate: float) -> tuple[str, str]:
    """(background, text colour) for a win rate: red below one half, blue above."""
    rgb = _mix(EVEN, LOSS, (0.5 - rate) * 2) if rate < 0.5 else _mix(EVEN, WIN, (rate - 0.5) * 2)
    return "#{:02x}{:02x}{:02x}".format(*rgb), INK


def heat_map(
    names: Sequence[str],
    rates: Sequence[Sequence[float]],
    tips: Sequence[Sequence[str]],
    numbered_width: int | None = None,
) -> str:
    """Row-against-column win rates; NaN (never met) is a hatched grey cell.

    ``numbered_width``: drawn that wide with the bots numbered 1, 2, ... in rank order
    instead of named (for a phone, beside a numbered list of the names): the cells share
    the width, and a cell too small for its percentage shows its colour alone."""
    n = len(names)
    if numbered_width is not None:
        label_width, top = 28, 22
        cell = max(8, (numbered_width - label_width - 4) // max(n, 1))
        width, height = label_width + cell * n + 4, top + cell * n + 4
        labels = [str(k) for k in range(1, n + 1)]
    else:
        cell = 52 if n <= 8 else 44 if n <= 12 else 32 if n <= 20 else 24
        # rotated column labels reach up and to the right by about 0.7 of their length
        reach = 0.7 * 7.5 * max((len(name) for name in names), default=0)
        label_width, top = label_room(names), int(min(160, 24 + reach))
        width = int(label_width + cell * n + max(10, reach - cell / 2))
        height = top + cell * n + 10
        labels = list(names)
    parts = [
        _open(width, height, "pairwise win rates"),
        '<defs><pattern id="never" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f0f2f5"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#d3d8de" stroke-width="2"/></pattern></defs>',
    ]
    for j, name in enumerate(labels):
        x = label_width + cell * j + cell / 2
        parts.append(
            f'<text x="{x:.1f}" y="{top - 8}" text-anchor="middle" class="label">{name}</text>'
            if numbered_width is not None else
            f'<text transform="translate({x:.1f} {top - 8}) rotate(-45)" class="label">'
            f"{escape(name)}</text>"
        )
    for i, name in enumerate(labels):
        y = top + cell * i
        parts.append(
            f'<text x="{label_width - 8}" y="{y + cell / 2 + 4:.1f}" text-anchor="end" '
            f'class="label">{escape(name)}</text>'
        )
        for j in range(n):
            x = label_width + cell * j
            rate = rates[i][j]
            if i == j:
                parts.append(
                    f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="#ffffff" '
                    f'stroke="{GRID}"/>'
                )
                continue
            if math.isnan(rate):
                fill, ink, text = "url(#never)", MUTED, "—"
            else:
                (fill, ink), text = rate_colour(rate), f"{100 * rate:.0f}"
            size = 12 if cell >= 40 else 10 if cell >= 30 else 8
            shown = (f'<text x="{x + cell / 2:.1f}" y="{y + cell / 2 + size / 3:.1f}" '
                     f'text-anchor="middle" style="fill:{ink}" font-size="{size}">{text}</text>'
                     if numbered_width is None or cell >= 26 else "")
            parts.append(
                f'<g><title>{escape(tips[i][j])}</title><rect x="{x}" y="{y}" width="{cell}" '
                f'height="{cell}" fill="{fill}" stroke="#ffffff"/>{shown}</g>'
            )
    parts.append("</svg>")
    return "".join(parts)


# --------------------------------------------------------------------------- bars


def centred_bar(value: float, limit: float, *, width: int = 200) -> str:
    """A bar growing right (positive) or left (negative) from a centre line."""
    height, middle = 16, width / 2
    limit = max(limit, abs(value), 1e-9)
    length = (width / 2 - 4) * abs(value) / limit
    x = middle if value >= 0 else middle - length
    fill = "#2166ac" if value >= 0 else "#ca4b3c"
    label = f"{round(value):+d} Elo" if round(value) else "0 Elo"
    return (
        _open(width, height, label)
        + f'<rect x="{x:.1f}" y="3" width="{length:.1f}" height="10" rx="2" fill="{fill}" '
        f'fill-opacity="0.75"/><line x1="{middle}" x2="{middle}" y1="0" y2="{height}" '
        f'stroke="{MUTED}"/><title>{escape(label)}</title></svg>'
    )


# --------------------------------------------------------------------------- bracket


def bracket(rounds: Sequence[tuple[str, Sequence[str], Sequence[Sequence[tuple[str, str, bool]]]]]
            ) -> str:
    """A knockout drawn left to right: a column per round (its label, its byes, its
    tables), a box per table with one row per bot (name, points, whether it went
    through: bold, on the accent), and a line from each bot that went on to its row in
    the next round's table (or its bye)."""
    column, gap, row_height, box_gap, top = 200, 44, 20, 14, 34
    heights = [len(byes) * row_height + (box_gap if byes else 0)
               + sum(len(table) * row_height + box_gap for table in tables)
               for _, byes, tables in rounds]
    height = top + max(heights, default=0) + 8
    width = len(rounds) * (column + gap) - gap + 8
    where: list[dict[str, float]] = []  # per round: bot -> y of its row
    parts = [_open(width, height, "knockout bracket", wide=True)]
    for number, (label, byes, tables) in enumerate(rounds):
        x = 4 + number * (column + gap)
        spare = (height - 8 - top - heights[number]) / 2  # centre the column
        y = top + spare
        rows: dict[str, float] = {}
        parts.append(f'<text x="{x + column / 2:.1f}" y="18" text-anchor="middle" '
                     f'class="axis">{escape(label)}</text>')
        boxes = ([[(bot, "bye", True) for bot in byes]] if byes else []) + [
            list(table) for table in tables]
        for box in boxes:
            is_bye = bool(byes) and box is boxes[0]
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{column}" '
                         f'height="{len(box) * row_height:.1f}" rx="5" fill="#ffffff" '
                         f'stroke="{GRID if is_bye else MUTED}" stroke-dasharray='
                         f'"{"4 3" if is_bye else ""}"/>')
            for bot, points, went in box:
                middle = y + row_height / 2
                rows[bot] = middle
                weight = ' font-weight="700"' if went and not is_bye else ""
                ink = INK if went else MUTED
                parts.append(
                    f'<g><title>{escape(f"{bot}: {points}")}</title>'
                    f'<text x="{x + 8}" y="{middle + 4:.1f}" class="label" style="fill:{ink}"'
                    f'{weight}>{escape(_clip(bot, 20))}</text>'
                    f'<text x="{x + column - 8}" y="{middle + 4:.1f}" text-anchor="end" '
                    f'class="tick" style="fill:{ink}">{escape(points)}</text></g>')
                y += row_height
            y += box_gap
        where.append(rows)
    for number in range(1, len(rounds)):
        x_from = 4 + number * (column + gap) - gap
        x_to = x_from + gap
        for bot, y_to in where[number].items():
            y_from = where[number - 1].get(bot)
            if y_from is None:
                continue
            bend = (x_from + x_to) / 2
            parts.append(f'<path d="M{x_from} {y_from:.1f} C{bend:.1f} {y_from:.1f} '
                         f'{bend:.1f} {y_to:.1f} {x_to} {y_to:.1f}" fill="none" '
                         f'stroke="{PALETTE[0]}" stroke-width="1.5" stroke-opacity="0.7"/>')
    parts.append("</svg>")
    return "".join(parts)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
