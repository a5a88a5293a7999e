// The leaderboard page, live: the table is rendered by the server (it works without
// this script); on each event of this player count the page reads the leaderboard's
// JSON again and redraws the table and the lists.  Every bot name is set as text.
(function () {
  "use strict";
  const root = document.getElementById("leaderboard");
  if (!root || !window.EventSource) return;
  const players = Number(root.dataset.players);
  const $ = (id) => document.getElementById(id);
  const status = $("live-status");

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const round = (x, digits) => (x === null || x === undefined ? "" : Number(x).toFixed(digits));

  // the same markup as the server's template (index.html): a card per row on a phone
  function row(bot) {
    const failures = Object.entries(bot.failures || {}).map(([r, n]) => `${r} ${n}`).join(", ");
    return el("tr", bot.unsettled ? { class: "unsettled" } : {},
      el("td", { class: "num rank" }, String(bot.rank), bot.unsettled ? " " : null,
        bot.unsettled ? el("span", { class: "mark", title: $("unsettled-mark").title }, "≈")
          : null),
      el("td", { class: "bot title" },
        bot.page ? el("a", { href: bot.page }, bot.shown) : bot.shown),
      el("td", { class: "num elo" }, round(bot.elo, 0)),
      el("td", { class: "num muted", "data-label": "95% interval" },
        bot.low === null || bot.high === null ? ""
          : `${round(bot.low, 0)} – ${round(bot.high, 0)}`),
      el("td", { class: "num", "data-label": "games" }, String(bot.games)),
      el("td", { class: "num", "data-label": "first places" }, String(bot.first_places)),
      el("td", { class: "num", "data-label": "avg place" }, round(bot.average_place, 2)),
      el("td", { "data-label": "failures" }, failures || "—"));
  }

  function game(g) {
    return el("li", {}, el("a", { href: `/games/${encodeURIComponent(g.game_id)}` },
      g.game_id.slice(0, 8)), " ", g.order.map((seat) => {
      const failed = (g.failures || {})[String(seat)];
      return `${g.placements[seat]}. ${g.shown[seat]}${failed ? ` (${failed})` : ""}`;
    }).join(" · "));
  }

  function draw(board) {
    $("board-rows").replaceChildren(...board.bots.map(row));
    $("games-count").textContent = String(board.games);
    $("no-games").hidden = board.bots.length > 0;
    $("roster-count").textContent = String(board.roster.length);
    $("roster").textContent = board.roster_shown.join(", ") || "nobody yet";
    $("in-progress").replaceChildren(...(board.in_progress.length
      ? board.in_progress.map((g) => el("li", {}, g.shown.join(" · ")))
      : [el("li", { class: "muted" }, "no game")]));
    $("recent").replaceChildren(...(board.recent.length ? board.recent.map(game)
      : [el("li", { class: "muted" }, "none yet")]));
    root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
  }

  let pending = null;
  function refresh() {
    if (pending) return;
    pending = setTimeout(async () => {
      pending = null;
      try {
        const answer = await fetch(`/api/v1/leaderboard?players=${players}`);
        if (answer.ok) draw(await answer.json());
      } catch (problem) { status.textContent = "live updates interrupted"; }
    }, 500);
  }

  const events = new EventSource("/api/v1/events");
  events.onopen = () => { status.textContent = "live"; };
  events.onerror = () => { status.textContent = "reconnecting…"; };
  const mine = (e) => {
    const data = JSON.parse(e.data);
    if (data.num_players === undefined || data.num_players === players) refresh();
  };
  for (const kind of ["game_started", "game_stored", "rating_changed", "upload_validated"]) {
    events.addEventListener(kind, mine);
  }
})();
