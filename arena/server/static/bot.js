// The bot page: while a version is pending, its validation verdict appears when the
// server announces it (the upload_validated event); everything is set as text.
(function () {
  "use strict";
  const table = document.getElementById("versions");
  if (!table || !window.EventSource) return;
  const pending = () => [...table.querySelectorAll("tr[data-state=pending]")];
  if (pending().length === 0) return;
  const base = table.dataset.bot;  // /bots/OWNER/NAME

  function detailsOf(summary, text, kind) {
    const details = document.createElement("details");
    const title = document.createElement("summary");
    title.textContent = summary;
    const pre = document.createElement("pre");
    pre.className = kind;
    pre.textContent = text;
    details.append(title, pre);
    return details;
  }

  async function update(row) {
    const answer = await fetch(`${base}/versions/${row.dataset.number}.json`);
    if (!answer.ok) return;
    const version = await answer.json();
    if (version.state === "pending") return;
    row.dataset.state = version.state;
    const state = row.querySelector(".state");
    state.textContent = version.state;
    state.className = `state ${version.state}`;
    const verdict = row.querySelector(".verdict");
    const message = document.createElement("span");
    message.className = "message";
    message.textContent = version.message;
    verdict.replaceChildren(message);
    if (version.report) {
      verdict.append(detailsOf("validation report", JSON.stringify(version.report, null, 1), "report"));
    }
    if (version.stderr_tail) verdict.append(detailsOf("stderr", version.stderr_tail, "stderr"));
    if (version.build_log) verdict.append(detailsOf("build log (its end)", version.build_log, "stderr"));
  }

  const events = new EventSource("/api/v1/events");
  events.addEventListener("upload_validated", (e) => {
    const data = JSON.parse(e.data);
    if (`/bots/${data.bot}` !== base) return;
    for (const row of pending()) {
      if (Number(row.dataset.number) === data.number) update(row);
    }
    if (pending().length === 0) events.close();
  });
  // a verdict given between the page's rendering and the stream's start
  events.onopen = () => { for (const row of pending()) update(row); };
})();
