/* uno-env replay: step through a recorded game (data in #replay-data). */
"use strict";

(() => {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const T = D.table;
  UNO.prepare(T);
  const N = D.moves.length;
  const el = UNO.el;
  const S = {pos: 0, view: D.start_view, playing: false, timer: null, delay: 700};
  const n = D.names.length;

  const app = document.getElementById("app");
  const header = el("header", "top");
  header.appendChild(el("h1", "", "UNO replay \u2014 " + D.title));
  header.appendChild(el("div", "sub", D.names.map((s, i) => `${s}: ${D.agents[i]}`).join(" \u00b7 ")
    + ` \u00b7 seed ${D.seed} \u00b7 dealer ${D.names[D.dealer]}`));
  app.appendChild(header);

  const bar = el("nav", "controls");
  const btn = (id, text, title, fn) => {
    const b = el("button", "", text);
    b.id = id; b.title = title; b.addEventListener("click", fn); bar.appendChild(b); return b;
  };
  btn("first", "\u21e4", "first (Home)", () => go(0));
  btn("prev", "\u25c0", "back one move (\u2190)", () => go(S.pos - 1));
  const playBtn = btn("play", "\u25b6 play", "play / pause (Space)", () => toggle());
  btn("next", "\u25b6", "forward one move (\u2192)", () => go(S.pos + 1));
  btn("last", "\u21e5", "last (End)", () => go(N));
  const jump = el("input");
  jump.id = "jump"; jump.type = "number"; jump.min = 0; jump.max = N; jump.title = "jump to move (g)";
  jump.addEventListener("change", () => go(parseInt(jump.value, 10) || 0));
  const jl = el("label", "jump", "move ");
  jl.appendChild(jump); jl.appendChild(document.createTextNode(` of ${N}`));
  bar.appendChild(jl);
  const speed = el("select");
  speed.id = "speed"; speed.title = "speed (+/-)";
  for (const [ms, txt] of [[1500, "slow"], [700, "normal"], [250, "fast"], [60, "very fast"]]) {
    const o = el("option", "", txt); o.value = ms; if (ms === S.delay) o.selected = true; speed.appendChild(o);
  }
  speed.addEventListener("change", () => { S.delay = +speed.value; if (S.playing) { stop(); toggle(); } });
  bar.appendChild(speed);
  const viewSel = el("select");
  viewSel.id = "view"; viewSel.title = "whose view (a: all hands, 0-9: a seat)";
  const all = el("option", "", "all hands revealed"); all.value = "all"; viewSel.appendChild(all);
  D.names.forEach((name, s) => { const o = el("option", "", `${name}'s seat`); o.value = s; viewSel.appendChild(o); });
  viewSel.value = String(S.view);
  viewSel.addEventListener("change", () => setView(viewSel.value));
  bar.appendChild(viewSel);
  const help = el("span", "keys", "keys: \u2190 \u2192 step \u00b7 Space play \u00b7 Home/End \u00b7 g jump \u00b7 a all hands \u00b7 0-9 seat \u00b7 +/- speed");
  bar.appendChild(help);
  app.appendChild(bar);

  const body = el("div", "layout");
  const left = el("div", "main");
  const moveBox = el("div", "move-now");
  moveBox.id = "move-now";
  const tableBox = el("div", "table-box");
  tableBox.id = "table";
  const endBox = el("div", "end");
  endBox.id = "end";
  left.appendChild(moveBox); left.appendChild(tableBox); left.appendChild(endBox);
  const list = el("ol", "moves");
  list.id = "moves";
  const side = el("aside", "log");
  side.appendChild(el("h2", "", "decisions"));
  const deal = el("li", "move deal", "the deal");
  deal.dataset.pos = 0;
  deal.addEventListener("click", () => go(0));
  list.appendChild(deal);
  D.moves.forEach((m, i) => list.appendChild(moveItem(m, i + 1)));
  side.appendChild(list);
  body.appendChild(left); body.appendChild(side);
  app.appendChild(body);

  function who(s) { return `${D.names[s]} (${D.agents[s]})`; }

  function moveItem(m, k) {
    const li = el("li", "move");
    li.dataset.pos = k;
    li.appendChild(el("span", "num", k + "."));
    li.appendChild(el("span", "who", D.names[m.seat]));
    li.appendChild(el("span", "what", D.meanings[m.action]));
    if (m.phase) li.appendChild(UNO.badge(m.phase, m.phase === "jump-in" ? "jump" : "rb"));
    if (m.effects.length) li.appendChild(el("div", "fx", m.effects.join("; ")));
    li.addEventListener("click", () => go(k));
    return li;
  }

  function setView(v) {
    S.view = v === "all" ? "all" : parseInt(v, 10);
    viewSel.value = String(S.view);
    render();
  }

  function go(k) {
    S.pos = Math.max(0, Math.min(N, k));
    if (S.pos === N && S.playing) stop();
    render();
  }

  function stop() {
    S.playing = false; clearInterval(S.timer); S.timer = null; playBtn.textContent = "\u25b6 play";
  }

  function toggle() {
    if (S.playing) { stop(); return; }
    if (S.pos >= N) S.pos = 0;
    S.playing = true; playBtn.textContent = "\u275a\u275a pause";
    S.timer = setInterval(() => go(S.pos + 1), S.delay);
  }

  function render() {
    const fr = D.frames[S.pos];
    const view = S.view === "all" ? UNO.revealView(T, fr) : UNO.seatView(T, fr, S.view);
    const over = fr.ph === "over";
    UNO.renderTable(tableBox, T, view, {
      names: D.names, agents: D.agents, dealer: D.dealer,
      current: over ? null : fr.cur, phase: over ? null : fr.ph,
      label: S.view === "all" ? null : {[S.view]: `${D.names[S.view]} (this view)`},
    });
    moveBox.replaceChildren();
    if (S.pos === 0) {
      moveBox.appendChild(el("div", "what", "The deal. " + (N ? `${who(fr.cur)} decides first.` : "")));
    } else {
      const m = D.moves[S.pos - 1];
      const line = el("div", "what");
      line.appendChild(el("span", "num", `move ${S.pos}: `));
      line.appendChild(el("span", "who", who(m.seat) + " \u2192 "));
      line.appendChild(el("strong", "meaning", D.meanings[m.action]));
      if (m.phase) line.appendChild(UNO.badge(m.phase === "jump-in" ? "jump-in (out of turn)" : m.phase,
                                              m.phase === "jump-in" ? "jump" : "rb"));
      moveBox.appendChild(line);
      if (m.effects.length) moveBox.appendChild(el("div", "fx", m.effects.join("; ")));
      if (m.legal.length) {
        moveBox.appendChild(el("div", "alts", "other choices: " + m.legal.map((a) => D.meanings[a]).join(", ")));
      }
    }
    if (!over && S.pos < N) moveBox.appendChild(el("div", "next", `next: ${who(fr.cur)} decides (${fr.ph})`));
    jump.value = S.pos;
    for (const li of list.children) li.classList.toggle("current", +li.dataset.pos === S.pos);
    const cur = list.querySelector(".current");
    if (cur && cur.scrollIntoView) cur.scrollIntoView({block: "nearest"});
    renderEnd(fr);
  }

  function renderEnd(fr) {
    endBox.replaceChildren();
    if (S.pos !== N) return;
    const R = D.result;
    endBox.appendChild(el("h2", "", "final scores"));
    const t = el("table", "scores");
    const hr = el("tr");
    for (const h of ["seat", "agent", "points", "cards left"]) hr.appendChild(el("th", "", h));
    t.appendChild(hr);
    for (let s = 0; s < n; s++) {
      const tr = el("tr", R.winners.includes(s) ? "winner" : "");
      tr.appendChild(el("td", "", D.names[s] + (R.winners.includes(s) ? " \u2605" : "")));
      tr.appendChild(el("td", "", D.agents[s]));
      tr.appendChild(el("td", "", String(R.points[s])));
      tr.appendChild(el("td", "", String(fr.h[s].length)));
      t.appendChild(tr);
    }
    endBox.appendChild(t);
    const won = R.winners.map((s) => D.names[s]).join(", ") || "nobody";
    let text = `winner: ${won}; ${R.steps} decisions, ${R.rounds} round${R.rounds === 1 ? "" : "s"}`;
    if (R.truncated) text += "; cut at the step limit";
    if (R.forfeit) text += `; ${D.names[R.forfeit.seat]} forfeits: ${R.forfeit.reason}`;
    if (R.quit) text += "; the game was left unfinished";
    endBox.appendChild(el("p", "summary", text));
    if (R.differences.length) {
      endBox.appendChild(el("p", "warn", "the replay differs from the record: " + R.differences.join("; ")));
    } else if (R.checked) {
      endBox.appendChild(el("p", "meta", "the replay matches the recorded result"));
    }
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT")) return;
    const k = ev.key;
    if (k === "ArrowRight" || k === "l") go(S.pos + 1);
    else if (k === "ArrowLeft" || k === "h") go(S.pos - 1);
    else if (k === "Home") go(0);
    else if (k === "End") go(N);
    else if (k === " " || k === "p") toggle();
    else if (k === "g") { jump.focus(); jump.select(); }
    else if (k === "a") setView("all");
    else if (/^[0-9]$/.test(k) && +k < n) setView(k);
    else if (k === "+" || k === "-") {
      const i = speed.selectedIndex + (k === "+" ? 1 : -1);
      if (i >= 0 && i < speed.options.length) { speed.selectedIndex = i; speed.dispatchEvent(new Event("change")); }
    } else return;
    ev.preventDefault();
  });

  window.REPLAY = {data: D, go: go, setView: setView, state: S};
  render();
})();
