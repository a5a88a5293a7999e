"""The report's section on a tune (``arena report`` of a tune's results folder): one chart
per parameter, its value over the SPSA iterations rebuilt from the stored pairs, and the
verification match."""

from __future__ import annotations

from html import escape

from arena.league.store import LeagueStore
from arena.report import svg
from arena.tune.spsa import Gains
from arena.tune.tuner import START, TUNED, Tuner, player_name, verify

POINTS = 300  # points per chart at most: a long tune is drawn from an even sample


def tuning_section(store: LeagueStore) -> str:
    """The section, or "" for a store that holds no tune."""
    from arena.report.html import _section

    tuner = Tuner.of_store(store)
    if tuner is None:
        return ""
    design = tuner.design
    spsa = tuner.spsa
    applied = spsa.applied
    steps = sorted({round(i * applied / (POINTS - 1)) for i in range(POINTS)}) \
        if applied >= POINTS else list(range(applied + 1))
    charts = []
    for i, parameter in enumerate(design.parameters):
        values = [spsa.trajectory[j][i] for j in steps]
        chart = svg.line_chart(
            # the default first: the value's line is drawn over it where they meet
            steps, [("default", [parameter.default] * len(steps)), ("value", values)],
            width=560, height=230, x_label="SPSA iteration (pairs of games)",
            y_label=parameter.name, y_range=(parameter.minimum, parameter.maximum))
        charts.append(f'<figure class="chart" data-parameter="{escape(parameter.name)}">'
                      f"<figcaption><strong>{escape(parameter.name)}</strong> "
                      f"{design.start[i]:.4g} → {spsa.theta[i]:.4g} "
                      f'<span class="muted">(default {parameter.default:.4g}, '
                      f"{parameter.minimum:g}..{parameter.maximum:g})</span></figcaption>"
                      f"{chart}</figure>")
    legend = (f'<ul class="legend"><li>{_swatch(1)}the value after each iteration</li>'
              f"<li>{_swatch(0)}the default in bot.toml</li></ul>")
    gains = Gains(design.iterations)
    rows = "".join(
        f"<tr><td>{escape(p.name)}</td><td class='num'>{design.start[i]:.4g}</td>"
        f"<td class='num'>{spsa.theta[i]:.4g}</td><td class='num'>{p.c_end:g}</td>"
        f"<td class='num'>{p.r_end:g}</td>"
        f"<td class='num'>{gains.c(p, max(1, applied)):.3g}</td></tr>"
        for i, p in enumerate(design.parameters))
    table = ('<div class="table-wrap"><table><thead><tr><th>parameter</th>'
             '<th class="num">start</th><th class="num">now</th><th class="num">c_end</th>'
             '<th class="num">r_end</th><th class="num">c_k now</th></tr></thead>'
             f"<tbody>{rows}</tbody></table></div>")
    intro = (f"SPSA on {len(design.parameters)} parameters of {escape(design.bot)}: "
             f"{applied} of {design.iterations} pairs played ({2 * applied} games at "
             f"{design.players} players against {escape(', '.join(design.opponents))}), "
             f"A = {gains.stability}, α = {gains.alpha}, γ = {gains.gamma}; the formulas are "
             "in docs/tuning.md.")
    return _section("tuning", "Tuning", intro,
                    f"{table}{legend}<div class=\"tuning-charts\">{''.join(charts)}</div>"
                    f"{_verification(tuner)}")


def _swatch(i: int) -> str:
    return f'<span class="swatch" style="background:{svg.colour(i)}"></span>'


def _verification(tuner: Tuner) -> str:
    design = tuner.design
    ratings = verify(tuner.verification, design).ratings
    start = player_name(design.bot, START)
    if ratings is None:
        return "<h3>Verification match</h3><p class=\"muted\">not played yet</p>"
    base = float(ratings.elo[ratings.index(start)])
    rows = "".join(
        f"<tr><td class='bot'>{escape(name)}</td>"
        f"<td class='num'>{float(ratings.elo[ratings.index(name)]) - base:+.0f}</td>"
        f"<td class='num'>{float(ratings.low[ratings.index(name)]) - base:+.0f} to "
        f"{float(ratings.high[ratings.index(name)]) - base:+.0f}</td></tr>"
        for name in ratings.ranked() if name != start)
    tuned = player_name(design.bot, TUNED)
    return (f"<h3>Verification match</h3><p class=\"lead\">{ratings.num_games} games of "
            f"{escape(tuned)} (the values at the end) and {escape(start)} (the values at "
            "the start) at every table; Elo over the starting values, with 95% "
            "intervals.</p><div class=\"table-wrap\"><table><thead><tr><th>player</th>"
            "<th class='num'>Elo over start</th><th class='num'>95% interval</th></tr>"
            f"</thead><tbody>{rows}</tbody></table></div>")
