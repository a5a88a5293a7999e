// Ra on the replay page: its Game.board_script (arena/games/ra/game.py).  The page calls
// window.arenaBoard once with its kit (docs/viewer.md) and draws every position with the
// function it returns.  Everything a bot wrote is set as text, never as HTML.
window.arenaBoard = function (kit) {
  "use strict";
  const { el, words, who, names, views, seatClass } = kit;

  const TILE_GROUPS = {
    god: "god", gold: "gold", pharaoh: "pharaoh", nile: "river", flood: "river",
    astronomy: "civ", agriculture: "civ", writing: "civ", religion: "civ", art: "civ",
    fortress: "monument", obelisk: "monument", palace: "monument", pyramid: "monument",
    sphinx: "monument", statue: "monument", step_pyramid: "monument", temple: "monument",
    funeral: "disaster", drought: "disaster", unrest: "disaster", earthquake: "disaster",
    ra: "ra",
  };
  // the engine's own order of tile kinds (its bag lists every kind): a patched dict
  // gains keys at its end, so tiles are sorted back into this order before drawing
  const tileOrder = Object.keys((views[0] && views[0].bag) || {});
  const inTileOrder = (tiles) => Object.entries(tiles).sort((a, b) =>
    (tileOrder.indexOf(a[0]) + 1 || 1e9) - (tileOrder.indexOf(b[0]) + 1 || 1e9));
  function tile(name, count) {
    const label = count && count > 1 ? `${words(name)} ×${count}` : words(name);
    return el("span", { class: `tile ${TILE_GROUPS[name] || "other"}`, "data-tile": name }, label);
  }
  function sun(value, used) {
    return el("span", { class: used ? "sun used" : "sun", title: used ? "used this epoch" : "" },
      String(value));
  }

  function drawRa(v, frame) {
    const board = el("div", { class: "ra" });
    const track = el("div", { class: "track", id: "ra-track" },
      el("span", { class: "label" }, "Ra track"));
    for (let i = 0; i < v.ra_track_length; i++) {
      track.append(el("span", { class: i < v.ra_track ? "slot filled" : "slot" },
        i < v.ra_track ? "Ra" : String(i + 1)));
    }
    track.append(el("span", { class: "count" }, `${v.ra_track} of ${v.ra_track_length}`));
    board.append(track);
    const auction = el("div", { class: "track", id: "auction-track" },
      el("span", { class: "label" }, "Auction track"), el("span", { class: "sun centre",
        title: "the sun in the middle" }, String(v.center_sun)));
    for (const name of v.auction_track) auction.append(tile(name));
    if (!v.auction_track.length) auction.append(el("span", { class: "muted" }, "empty"));
    board.append(auction);
    if (v.auction) {
      const bids = el("div", { class: "auction", id: "auction" },
        el("strong", {}, `Auction (${words(v.auction.kind)})`));
      for (const bid of v.auction.bids) {
        bids.append(el("span", { class: "bid" }, `${names[bid.seat]}: `,
          bid.sun === null ? (bid.could_bid === false ? "could not bid" : "passed")
            : el("span", { class: "sun" }, String(bid.sun))));
      }
      if (v.auction.to_bid && v.auction.to_bid.length) {
        bids.append(el("span", { class: "muted" },
          `still to bid: ${v.auction.to_bid.map((s) => names[s]).join(", ")}`));
      }
      board.append(bids);
    }
    if (v.disaster) {
      board.append(el("div", { class: "disaster", id: "disaster" },
        `Disaster: ${words(v.disaster.disaster)} - ${who(v.disaster.seat)} must discard ` +
        `${v.disaster.to_lose} more tile(s)`));
    }
    const seats = el("div", { class: "seats" });
    v.players.forEach((p) => {
      const tiles = el("div", { class: "tiles" });
      for (const [name, count] of inTileOrder(p.tiles)) tiles.append(tile(name, count));
      if (!Object.keys(p.tiles).length) tiles.append(el("span", { class: "muted" }, "no tiles"));
      seats.append(el("div", { class: seatClass(p.seat, v, frame), "data-seat": p.seat },
        el("h3", {}, names[p.seat] ?? `seat ${p.seat}`, el("span", { class: "muted" },
          ` seat ${p.seat}`), p.seat === v.ra_player ? el("span", { class: "badge" }, "Ra player") : ""),
        el("div", { class: "score" }, "Score ", el("b", {}, String(p.score))),
        el("div", { class: "suns" }, "Suns ", p.suns.map((s) => sun(s, false)),
          p.used_suns.map((s) => sun(s, true))),
        tiles));
    });
    board.append(seats);
    if (v.bag) {
      const bag = el("details", { class: "bag" }, el("summary", {}, `Bag: ${v.bag_size} tiles`));
      for (const [name, count] of Object.entries(v.bag)) if (count) bag.append(tile(name, count));
      board.append(bag);
    }
    return board;
  }

  return drawRa;
};
