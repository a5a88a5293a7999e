// The replay page: rebuilds every position from the embedded record (arena/viewer/frames.py)
// and draws one at a time.  Everything a bot wrote is set as text, never as HTML.  The
// board itself is drawn by the game's own script (Game.board_script), which runs before
// this one and sets window.arenaBoard: called once with the kit below, it returns
// draw(view, frame) -> a DOM node (docs/viewer.md).
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

  // ---------------------------------------------------------------- the game's board
  if (typeof window.arenaBoard !== "function") {
    throw new Error("the game's board script did not set window.arenaBoard");
  }
  const draw = window.arenaBoard({ data, views, names, el, words, who, seatClass });

  let current = 0;
  let timer = null;
  const $ = (id) => document.getElementById(id);

  function show(index) {
    current = Math.max(0, Math.min(last, index));
    const frame = data.frames[current];
    const v = views[current];
    $("board").replaceChildren(draw(v, frame));
    $("board").dataset.decision = String(frame.decision);
    $("position").textContent = current === last
      ? `End of the game (${last} decisions)`
      : `Decision ${frame.decision} of ${last}` + (hasEpochs ? ` · epoch ${v.epoch}` : "");
    $("slider").value = String(current);
    if (hasEpochs) $("epoch").value = String(v.epoch);
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
    if (hasEpochs) {
      const epochDone = current === last ? Infinity : v.epoch - 1;
      $("epochs").replaceChildren(epochTable(epochDone));
    }
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
    if (!hasEpochs) return;
    const index = views.findIndex((v) => v.epoch >= epoch);
    show(index < 0 ? last : index);
  }
  const step = (delta) => { stopPlaying(); show(current + delta); };

  // ---------------------------------------------------------------- controls
  $("slider").max = String(last);
  // a game whose positions have no "epoch" number gets no epoch menu and no epoch table
  const hasEpochs = views.every((v) => typeof v.epoch === "number");
  if (!hasEpochs) {
    for (const node of [$("epoch"), $("epochs"), $("epochs").previousElementSibling]) {
      node.hidden = true;
    }
  }
  const epochs = hasEpochs ? [...new Set(views.map((v) => v.epoch))] : [];
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
