// The generic board of the replay page (Game.board_script's default, arena/games/base.py):
// a position as a table of its JSON, one row per key.  A game with a board of its own
// supplies its own script instead (e.g. arena/games/ra/replay.js; docs/viewer.md).
window.arenaBoard = function (kit) {
  "use strict";
  const { el, words } = kit;
  const shown = (value) => typeof value === "object" && value !== null
    ? el("pre", { class: "raw" }, JSON.stringify(value, null, 1)) : String(value);
  return function drawJson(v) {
    return el("table", { class: "json-board" }, Object.entries(v).map(([key, value]) =>
      el("tr", { "data-key": key }, el("th", {}, words(key)), el("td", {}, shown(value)))));
  };
};
