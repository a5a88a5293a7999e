// The replay page: rebuilds every position from the embedded record (arena/viewer/frames.py)
// and draws one at a time.  Everything a bot wrote is set as text, never as HTML.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const names = data.players.map((p) => p.name);

  function applyPatch(value, patch) {
    let result = value === null ? null : structuredClone(value);
    for (const edit of patch) {
      const path = edit[0];
      if (path.length === 0) { result = structuredClone(edit[1]); continue; }
      let target = result;
      for (const key of path.slice(0, -1)) target = target[key];
      const last = path[path.length - 1];
      if (edit.length === 1) delete target[last]; else target[last] = structuredClone(edit[1]);
    }
    return result;
  }

  const views = [];
  let view = null;
  for (const frame of data.frames) { view = applyPatch(view, frame.patch); views.push(view); }
  const last = views.length - 1;

  // ---------------------------------------------------------------- small DOM helpers
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value; else node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const words = (name) => String(name).replace(/_/g, " ");
  const who = (seat) => `${names[seat] ?? "seat " + seat} (seat ${seat})`;

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

  // ---------------------------------------------------------------- Ra
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

  // ---------------------------------------------------------------- Ra: The Dice Game
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

  function drawOther(v) {
    return el("pre", { class: "raw" }, JSON.stringify(v, null, 1));
  }

  // ---------------------------------------------------------------- the frame
  const failureAt = (decision) => data.failures.filter((f) =>
    (f.decision ?? 0) === decision || (decision === 1 && f.decision === null));
  const forfeitedBefore = (seat, decision) => data.failures.some((f) => f.seat === seat &&
    (f.decision === null || f.decision < decision));

  function seatClass(seat, v, frame) {
    const classes = ["seat"];
    if (frame.seat === seat) classes.push("acting");
    if (forfeitedBefore(seat, frame.decision + 1)) classes.push("forfeited");
    return classes.join(" ");
  }

  function epochTable(upTo) {
    const table = el("table", { id: "epoch-scores" }, el("tr", {}, el("th", {}, "after epoch"),
      names.map((n) => el("th", {}, n))));
    for (const epoch of data.epochs) {
      if (epoch.epoch > upTo) continue;
      table.append(el("tr", {}, el("td", {}, String(epoch.epoch)),
        epoch.scores.map((s) => el("td", { class: "num" }, String(s)))));
    }
    return table;
  }

  let current = 0;
  let timer = null;
  const $ = (id) => document.getElementById(id);

  function show(index) {
    current = Math.max(0, Math.min(last, index));
    const frame = data.frames[current];
    const v = views[current];
    const draw = data.game === "ra" ? drawRa : data.game === "ra_dice" ? drawDice : drawOther;
    $("board").replaceChildren(draw(v, frame));
    $("board").dataset.decision = String(frame.decision);
    $("position").textContent = current === last
      ? `End of the game (${last} decisions)`
      : `Decision ${frame.decision} of ${last} · epoch ${v.epoch}`;
    $("slider").value = String(current);
    $("epoch").value = String(v.epoch);
    const move = $("move");
    move.replaceChildren();
    if (frame.seat !== null) {
      const fallback = forfeitedBefore(frame.seat, frame.decision + 1);
      move.append(el("p", { id: "move-text" }, el("b", {}, who(frame.seat)),
        fallback ? " (forfeited; the fallback policy plays) " : " ",
        "chooses: ", el("span", { class: "action" }, frame.move)));
      for (const c of data.comments.filter((c) => c.decision === frame.decision)) {
        move.append(el("p", { class: "comment" }, `${names[c.seat]} says: “${c.comment}”`));
      }
    } else {
      const order = data.placements.map((p, s) => [p, s]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      move.append(el("ol", { id: "result" }, order.map(([place, s]) =>
        el("li", { value: place }, `${who(s)}: ${data.scores[s]} points`,
          data.failures.some((f) => f.seat === s) ? " (forfeit)" : ""))));
    }
    for (const f of failureAt(frame.decision)) {
      move.append(el("div", { class: "failure" },
        el("b", {}, `${who(f.seat)} failed (${f.reason}, ${f.phase}): `), f.detail,
        f.stderr_tail ? el("pre", {}, f.stderr_tail) : ""));
    }
    const epochDone = current === last ? Infinity : v.epoch - 1;
    $("epochs").replaceChildren(epochTable(epochDone));
    $("play").textContent = timer ? "⏸ pause" : "▶ play";
  }

  function stopPlaying() { if (timer) { clearInterval(timer); timer = null; } }
  function togglePlay() {
    if (timer) { stopPlaying(); } else {
      if (current === last) current = 0;
      timer = setInterval(() => { if (current >= last) stopPlaying(); show(current + 1); }, 400);
    }
    show(current);
  }
  function jumpToEpoch(epoch) {
    const index = views.findIndex((v) => v.epoch >= epoch);
    show(index < 0 ? last : index);
  }
  const step = (delta) => { stopPlaying(); show(current + delta); };

  // ---------------------------------------------------------------- controls
  $("slider").max = String(last);
  const epochs = [...new Set(views.map((v) => v.epoch))];
  $("epoch").replaceChildren(...epochs.map((e) => el("option", { value: e }, `epoch ${e}`)));
  $("first").addEventListener("click", () => step(-Infinity));
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => step(Infinity));
  $("play").addEventListener("click", togglePlay);
  $("slider").addEventListener("input", (e) => { stopPlaying(); show(Number(e.target.value)); });
  $("epoch").addEventListener("change", (e) => { stopPlaying(); jumpToEpoch(Number(e.target.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowRight: () => step(1), ArrowLeft: () => step(-1), Home: () => step(-Infinity),
      End: () => step(Infinity), " ": togglePlay,
      PageDown: () => { stopPlaying(); jumpToEpoch(views[current].epoch + 1); },
      PageUp: () => { stopPlaying(); jumpToEpoch(views[current].epoch - 1); },
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  const start = /^#decision=(\d+)$/.exec(location.hash);
  show(start ? Number(start[1]) - 1 : 0);
})();
