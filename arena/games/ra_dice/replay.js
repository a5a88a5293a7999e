// Ra: The Dice Game on the replay page: its Game.board_script (arena/games/ra_dice/game.py).
// The page calls window.arenaBoard once with its kit (docs/viewer.md) and draws every
// position with the function it returns.  Everything a bot wrote is set as text.
window.arenaBoard = function (kit) {
  "use strict";
  const { el, words, who, names, seatClass } = kit;

  function drawDice(v, frame) {
    const board = el("div", { class: "dice-game" });
    const track = el("div", { class: "track", id: "ra-track" },
      el("span", { class: "label" }, "Ra track"));
    // the marker can move past the last space (that ends the epoch): draw it there too
    for (let i = v.ra.start; i <= Math.max(v.ra.last_space, v.ra.position); i++) {
      track.append(el("span", { class: i === v.ra.position ? "slot filled" : "slot" }, String(i)));
    }
    board.append(track);
    const dice = el("div", { class: "track", id: "dice" },
      el("span", { class: "label" }, `Dice (rerolls left ${v.rerolls_left})`));
    for (const die of v.dice) {
      dice.append(el("span", { class: `die ${die.colour}${die.used ? " used" : ""}`,
        "data-face": die.face }, words(die.face)));
    }
    board.append(dice);
    const victim = v.disaster_victim;  // who must give up markers, of what, how many
    if (victim) {
      board.append(el("div", { class: "disaster", id: "disaster" },
        `Disaster (${words(victim.what)}): ${who(victim.seat)} must give up ` +
        `${victim.markers_to_lose} marker(s)`));
    }
    const seats = el("div", { class: "seats" });
    for (let s = 0; s < v.num_players; s++) {
      const civs = Object.entries(v.civilization).filter(([, holders]) => holders.includes(s))
        .map(([colour]) => el("span", { class: `die ${colour}` }, colour));
      const monuments = [];
      v.monuments.forEach((column, c) => column.forEach((owner, r) => {
        if (owner === s) monuments.push(el("span", { class: `die ${v.board.monument_columns[c][r]}` },
          `${c}.${r}`));
      }));
      seats.append(el("div", { class: seatClass(s, v, frame), "data-seat": s },
        el("h3", {}, names[s] ?? `seat ${s}`, el("span", { class: "muted" }, ` seat ${s}`),
          s === v.turn_player ? el("span", { class: "badge" }, "turn") : ""),
        el("div", { class: "score" }, "Score ", el("b", {}, String(v.scores[s]))),
        el("div", {}, `Pharaoh ${v.pharaoh[s]} · Nile ${v.nile[s]} · Floods ${v.floods[s]}`),
        el("div", { class: "tiles" }, "Civilizations ", civs.length ? civs : "none"),
        el("div", { class: "tiles" }, "Monuments ", monuments.length ? monuments : "none")));
    }
    board.append(seats);
    const grid = el("table", { class: "monuments" });
    v.board.monument_columns[0].forEach((_, r) => {
      grid.append(el("tr", {}, v.monuments.map((column, c) => el("td",
        { class: v.board.monument_columns[c][r] },
        column[r] === null ? "" : (names[column[r]] ?? String(column[r])).slice(0, 6)))));
    });
    board.append(el("div", {}, el("span", { class: "label" }, "Monument board"), grid));
    return board;
  }

  return drawDice;
};
