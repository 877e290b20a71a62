/* uno-env serve: the page a person plays on. It knows only what the server sends. */
"use strict";

(() => {
  const el = UNO.el;
  const tables = {};
  let G = null;  // the game as the server last sent it
  let busy = false;
  const $ = (id) => document.getElementById(id);
  const PROMPTS = {
    "play": "Your turn: play a card or draw.",
    "drawn": "You drew a card: play it or keep it.",
    "color": "Choose the colour.",
    "challenge": "A Wild Draw is on you: challenge it or accept.",
    "stack": "A draw card is on you: stack one or accept.",
    "catch": "An opponent forgot to call UNO: catch them?",
    "jump-in": "JUMP-IN: you hold the twin of the top card. Jump in out of turn?",
    "reverse-back": "Send it back with your Reverse, or accept.",
    "target": "Choose who draws.",
  };

  async function api(method, path, body) {
    const r = await fetch(path, {method: method, headers: {"Content-Type": "application/json"},
                                 body: body === undefined ? undefined : JSON.stringify(body)});
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
    return data;
  }

  async function table(variant) {
    if (!tables[variant]) {
      tables[variant] = await api("GET", `/api/tables/${encodeURIComponent(variant)}`);
      UNO.prepare(tables[variant]);
    }
    return tables[variant];
  }

  async function setup() {
    const cfg = await api("GET", "/api/config");
    for (const v of cfg.variants) $("variant").appendChild(new Option(v, v));
    const fill = () => {
      const k = +$("count").value;
      const box = $("opponents");
      const before = [...box.querySelectorAll("select")].map((s) => s.value);
      box.replaceChildren();
      for (let i = 0; i < k; i++) {
        const lab = el("label", "", `opponent ${i + 1} `);
        const sel = el("select", "opponent");
        for (const a of cfg.agents) sel.appendChild(new Option(a, a));
        if (before[i]) sel.value = before[i];
        lab.appendChild(sel);
        box.appendChild(lab);
      }
      const seat = $("seat");
      seat.replaceChildren();
      for (let s = 0; s <= k; s++) seat.appendChild(new Option(String(s), String(s)));
    };
    $("count").addEventListener("change", fill);
    fill();
    $("new-game").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      $("form-error").textContent = "";
      const body = {variant: $("variant").value, seat: +$("seat").value,
                    opponents: [...document.querySelectorAll("select.opponent")].map((s) => s.value)};
      if ($("seed").value !== "") body.seed = parseInt($("seed").value, 10);
      body.options = {};
      for (const item of $("options").value.split(/[\s,]+/).filter(Boolean)) {
        const at = item.indexOf("=");
        if (at <= 0) { $("form-error").textContent = `option must look like name=value, got "${item}"`; return; }
        body.options[item.slice(0, at)] = item.slice(at + 1);
      }
      try {
        const g = await api("POST", "/api/games", body);
        await show(g);
      } catch (err) {
        $("form-error").textContent = err.message;
      }
    });
  }

  async function send(action) {
    if (busy || !G) return;
    busy = true;
    try {
      await show(await api("POST", `/api/games/${G.id}/action`, {seat: G.seat, action: action}));
    } catch (err) {
      const e = $("play-error");
      if (e) e.textContent = err.message;
    } finally {
      busy = false;
    }
  }

  async function show(g) {
    const T = await table(g.variant);
    G = g;
    const root = $("game");
    root.replaceChildren();
    const layout = el("div", "layout");
    const main = el("div", "main");
    main.appendChild(actionBar(T, g));
    const tbox = el("div", "table-box");
    tbox.id = "table";
    const plays = new Map();
    for (const a of g.legal) if (a.kind === "play") plays.set(a.face, a.action);
    UNO.renderTable(tbox, T, g.view, {
      names: g.labels, agents: null, current: g.over ? null : g.seat, phase: g.phase,
      label: {[g.seat]: "you"}, playable: new Set(plays.keys()),
      onPlay: (face) => send(plays.get(face)),
      status: g.over ? "game over" : null,
    });
    main.appendChild(tbox);
    if (g.over) main.appendChild(endPanel(g));
    layout.appendChild(main);
    layout.appendChild(logPanel(g));
    root.appendChild(layout);
  }

  function actionBar(T, g) {
    const bar = el("div", "actions");
    bar.id = "actions";
    if (g.over) {
      bar.appendChild(el("span", "prompt", "The game is over."));
    } else {
      bar.appendChild(el("span", "prompt", PROMPTS[g.phase] || "Your decision."));
      for (const a of g.legal) bar.appendChild(actionButton(T, g, a));
      const leave = el("button", "leave", "leave game");
      leave.id = "leave";
      leave.addEventListener("click", async () => {
        try { await show(await api("POST", `/api/games/${G.id}/leave`)); } catch (err) { $("play-error").textContent = err.message; }
      });
      bar.appendChild(leave);
    }
    const err = el("span", "error");
    err.id = "play-error";
    bar.appendChild(err);
    return bar;
  }

  function actionButton(T, g, a) {
    const b = el("button", "act");
    b.dataset.action = a.action;
    b.dataset.kind = a.kind;
    if (a.kind === "color") {
      b.classList.add("color", "c-" + a.color);
      b.textContent = a.color;
    } else if (a.face) {
      b.classList.add("act-card");
      const words = {"play": g.phase === "jump-in" ? "jump in with" : "play",
                     "play-flex": "play by its flex face", "play-two": "play two"}[a.kind];
      if (g.phase === "jump-in") b.classList.add("jump");
      b.appendChild(UNO.card(T, a.face, {small: true}));
      b.appendChild(el("span", "", words));
    } else {
      b.textContent = a.meaning;
    }
    b.title = a.meaning;
    b.addEventListener("click", () => send(a.action));
    return b;
  }

  function logPanel(g) {
    const side = el("aside", "log");
    side.appendChild(el("h2", "", "what the table saw"));
    const list = el("ol", "moves");
    list.id = "log";
    g.log.forEach((e) => {
      const li = el("li", "move");
      if (e.text !== null) {
        li.appendChild(el("span", "who", e.seat === g.seat ? "you" : g.names[e.seat]));
        li.appendChild(el("span", "what", e.text));
        if (e.phase) li.appendChild(UNO.badge(e.phase, e.phase === "jump-in" ? "jump" : "rb"));
      }
      if (e.effects.length) li.appendChild(el("div", "fx", e.effects.join("; ")));
      list.appendChild(li);
    });
    side.appendChild(list);
    setTimeout(() => { list.scrollTop = list.scrollHeight; side.scrollTop = side.scrollHeight; }, 0);
    return side;
  }

  function endPanel(g) {
    const box = el("div", "end");
    box.id = "end";
    const R = g.result;
    let text;
    if (R.quit) text = "You left the game.";
    else if (R.forfeit) text = `${g.labels[R.forfeit.seat]} forfeits: ${R.forfeit.reason}.`;
    else if (R.winners.includes(g.seat)) text = "You won!";
    else text = (R.winners.map((s) => g.labels[s]).join(", ") || "Nobody") + " won.";
    box.appendChild(el("h2", "", text));
    const t = el("table", "scores");
    const hr = el("tr");
    for (const h of ["seat", "player", "points"]) hr.appendChild(el("th", "", h));
    t.appendChild(hr);
    g.labels.forEach((name, s) => {
      const tr = el("tr", R.winners.includes(s) ? "winner" : "");
      tr.appendChild(el("td", "", String(s)));
      tr.appendChild(el("td", "", name));
      tr.appendChild(el("td", "", String(R.points[s])));
      t.appendChild(tr);
    });
    box.appendChild(t);
    const links = el("p", "links");
    const rec = el("a", "", "download the game log (replay with uno-env replay FILE)");
    rec.id = "download";
    rec.href = `/api/games/${g.id}/record`;
    links.appendChild(rec);
    links.appendChild(document.createTextNode(" \u00b7 "));
    const rp = el("a", "", "watch the replay");
    rp.id = "replay-link";
    rp.href = `/api/games/${g.id}/replay.html`;
    rp.target = "_blank";
    links.appendChild(rp);
    box.appendChild(links);
    return box;
  }

  window.PLAY = {send: send, state: () => G};
  setup().catch((err) => { $("form-error").textContent = err.message; });
})();
