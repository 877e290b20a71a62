/* uno-env: draws cards and tables from a view (see tournament/web/view.py). No network. */
"use strict";

const UNO = (() => {
  const CAPTIONS = {
    "skip": "skip", "reverse": "reverse", "draw": "draw", "wild": "wild",
    "wild-draw": "draw", "skip-everyone": "skip all", "flip": "flip",
    "wild-draw-color": "draw colour", "reverse-skip": "rev. skip", "all-draw": "all draw",
    "target-draw": "target", "all-flip": "all flip",
  };

  function glyph(f) {
    switch (f.effect) {
      case "number": return f.symbol;
      case "skip": return "\u2298";
      case "reverse": return "\u21c4";
      case "draw": case "wild-draw": return "+" + f.draw;
      case "wild": return "W";
      case "skip-everyone": return "\u2298\u2298";
      case "flip": return "\u21bb";
      case "wild-draw-color": return "+?";
      case "reverse-skip": return "\u21c4\u2298";
      case "all-draw": return "+" + f.draw;
      case "target-draw": return "\u25ce" + f.draw;
      case "all-flip": return "\u2605";
      default: return f.symbol;
    }
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function colorName(table, color, side) {
    return color < 4 ? table.palettes[side][color] : "wild";
  }

  /* One face as a card. opts: {other: true} for the other side of a Flip card,
     {small: true} for lists. */
  function card(table, name, opts) {
    opts = opts || {};
    const f = table.faces[name];
    const e = el("div", "card");
    e.dataset.face = name;
    e.title = opts.other ? `other side: ${name}` : name;
    e.classList.add("c-" + colorName(table, f.color, f.side));
    if (f.side) e.classList.add("dark");
    if (opts.other) e.classList.add("other");
    if (opts.small) e.classList.add("small");
    const g = glyph(f);
    e.appendChild(el("span", "corner", g));
    const oval = el("span", "oval");
    oval.appendChild(el("span", "glyph" + (g.length > 2 ? " long" : ""), g));
    e.appendChild(oval);
    const cap = CAPTIONS[f.effect];
    if (cap) e.appendChild(el("span", "cap", cap));
    if (f.flex) {  // Flex: the flex face, played with a green Power Card
      const x = el("span", "flex c-" + colorName(table, f.flex.color, 0));
      x.textContent = glyph(f.flex) + (CAPTIONS[f.flex.effect] ? " " + CAPTIONS[f.flex.effect] : "");
      x.title = "flex face: " + f.flex.name;
      e.appendChild(x);
      e.classList.add("has-flex");
    }
    if (f.power_flip) {
      const s = el("span", "pflip", "\u2605");
      s.title = "flip symbol: playing it flips its player's Power Card";
      e.appendChild(s);
    }
    return e;
  }

  function back(label) {
    const e = el("div", "card back");
    e.appendChild(el("span", "oval", label || "UNO"));
    return e;
  }

  function badge(text, cls) { return el("span", "badge " + (cls || ""), text); }

  /* The table of a view. ctx: {names, agents, current, dealer, playable: Set of face names,
     onPlay(name), label: {seat: text}} */
  function renderTable(root, table, view, ctx) {
    root.replaceChildren();
    const n = view.players.length;
    const reveal = view.seat === null || view.seat === undefined;
    const wrap = el("div", "table-wrap" + (view.side ? " dark-side" : ""));
    const order = [];
    const me = reveal ? 0 : view.seat;
    for (let k = 1; k < n; k++) order.push((me + k) % n);
    const others = el("div", "seats others");
    const mine = el("div", "seats mine");
    if (reveal) {
      for (let s = 0; s < n; s++) others.appendChild(seatPanel(table, view, s, ctx, true));
    } else {
      for (const s of order) others.appendChild(seatPanel(table, view, s, ctx, false));
      mine.appendChild(seatPanel(table, view, me, ctx, true));
    }
    wrap.appendChild(reveal ? center(table, view, ctx) : others);
    wrap.appendChild(reveal ? others : center(table, view, ctx));
    if (!reveal) wrap.appendChild(mine);
    root.appendChild(wrap);
  }

  function center(table, view, ctx) {
    const c = el("div", "center");
    const pile = el("div", "pile");
    if (view.pile > 0) {
      pile.appendChild(view.pile_back ? card(table, view.pile_back, {other: true}) : back());
    } else {
      pile.appendChild(el("div", "card empty", "empty"));
    }
    pile.appendChild(el("div", "count", `draw pile ${view.pile}`));
    c.appendChild(pile);
    const disc = el("div", "pile discard");
    disc.appendChild(card(table, view.top));
    disc.appendChild(el("div", "count", `discards ${view.discard}`));
    c.appendChild(disc);
    const info = el("div", "info");
    const col = view.color === null ? "to choose" : table.palettes[view.side][view.color];
    const sw = el("div", "active");
    sw.appendChild(el("span", "swatch c-" + (view.color === null ? "wild" : col)));
    sw.appendChild(el("span", "", `active colour: ${col}`));
    info.appendChild(sw);
    info.appendChild(el("div", "dir", view.direction > 0 ? "\u21bb clockwise" : "\u21ba counter-clockwise"));
    if (table.sides > 1) info.appendChild(el("div", "side", view.side ? "dark side up" : "light side up"));
    if (view.pending) info.appendChild(el("div", "pending", `pending draw: ${view.pending}`));
    if (ctx.status) info.appendChild(el("div", "status", ctx.status));
    c.appendChild(info);
    return c;
  }

  function seatPanel(table, view, s, ctx, open) {
    const p = view.players[s];
    const panel = el("section", "seat");
    panel.dataset.seat = s;
    if (ctx.current === s) panel.classList.add("to-act");
    const head = el("div", "seat-head");
    const who = ctx.label && ctx.label[s] ? ctx.label[s] : ctx.names[s];
    head.appendChild(el("span", "name", who));
    if (ctx.agents && ctx.agents[s]) head.appendChild(el("span", "agent", ctx.agents[s]));
    head.appendChild(el("span", "score", `score ${p.score}`));
    head.appendChild(el("span", "hand", `${p.hand} card${p.hand === 1 ? "" : "s"}`));
    if (ctx.dealer === s) head.appendChild(badge("dealer", "dealer"));
    if (p.uno) head.appendChild(badge("UNO!", "uno"));
    if (p.power !== undefined) {
      head.appendChild(badge(p.power ? "Power Card green" : "Power Card red",
                             p.power ? "power-green" : "power-red"));
    }
    if (ctx.current === s && ctx.phase) head.appendChild(badge(`to act: ${ctx.phase}`, "act"));
    if (view.catch_target === s) head.appendChild(badge("may be caught", "catch"));
    panel.appendChild(head);
    const hand = el("div", "hand-cards");
    if (p.cards) {
      p.cards.forEach((name, i) => {
        const holder = el("div", "slot");
        const c = card(table, name);
        if (ctx.playable && ctx.playable.has(name)) {
          c.classList.add("playable");
          c.tabIndex = 0;
          c.setAttribute("role", "button");
          c.addEventListener("click", () => ctx.onPlay(name));
          c.addEventListener("keydown", (ev) => { if (ev.key === "Enter") ctx.onPlay(name); });
        }
        holder.appendChild(c);
        if (p.backs && view.seat === null) holder.appendChild(card(table, p.backs[i], {other: true, small: true}));
        hand.appendChild(holder);
      });
    } else if (p.backs) {  // Flip: the other side of an opponent's cards is what one sees
      p.backs.forEach((name) => hand.appendChild(card(table, name, {other: true})));
      if (p.hand) hand.appendChild(el("span", "more", "(the side of their cards you see)"));
    } else {
      const k = Math.min(p.hand, 30);
      for (let i = 0; i < k; i++) hand.appendChild(back());
      if (p.hand > k) hand.appendChild(el("span", "more", `+${p.hand - k}`));
    }
    if (!p.hand) hand.appendChild(el("span", "more", "no cards"));
    panel.appendChild(hand);
    if (open && view.seen_backs && view.seen_backs.length) {
      const seen = el("div", "seen");
      seen.appendChild(el("span", "label", "other sides of your cards you have seen:"));
      for (const name of view.seen_backs) seen.appendChild(card(table, name, {other: true, small: true}));
      panel.appendChild(seen);
    }
    if (open && view.revealed) {
      const r = el("div", "seen revealed");
      r.appendChild(el("span", "label", `${ctx.names[view.revealed.from]} showed this hand after the challenge:`));
      for (const name of view.revealed.cards) r.appendChild(card(table, name, {small: true}));
      panel.appendChild(r);
    }
    return panel;
  }

  /* --- views from replay frames (the same as view.py's seat_view of the observation) --- */
  function prepare(table) {
    table.index = {};
    table.face_names.forEach((name, i) => { table.index[name] = i; });
  }

  function byFace(table, names) {
    return names.sort((a, b) => table.index[a] - table.index[b]);
  }

  function seatView(table, fr, seat) {
    const n = fr.h.length, side = fr.sd, other = side ^ 1, flip = table.sides > 1;
    const fname = (c, sd) => table.face_names[table.cards[c][sd]];
    const players = [];
    for (let s = 0; s < n; s++) {
      const p = {hand: fr.h[s].length, uno: !!fr.u[s], score: fr.s[s],
                 cards: s === seat ? byFace(table, fr.h[s].map((c) => fname(c, side))) : null,
                 backs: flip && s !== seat ? byFace(table, fr.h[s].map((c) => fname(c, other))) : null};
      if (table.power_cards) p.power = !!fr.pw[s];
      players.push(p);
    }
    let revealed = null;
    if (fr.rv && fr.rv[seat]) {
      const names = [];
      fr.rv[seat][1].forEach((k, f) => { for (let i = 0; i < k; i++) names.push(table.face_names[f]); });
      revealed = {from: fr.rv[seat][0], cards: names};
    }
    const acting = fr.cur === seat && fr.ph !== "over";
    return {
      seat: seat, side: side, top: fname(fr.t, side), color: fr.c < 4 ? fr.c : null,
      direction: fr.d, pile: fr.p,
      pile_back: flip && fr.p > 0 ? fname(fr.pt, other) : null,
      discard: fr.dl, pending: Math.min(fr.pe, 255), phase: acting ? fr.ph : null,
      players: players,
      seen_backs: flip ? byFace(table, fr.kn[seat].map((c) => fname(c, other))) : null,
      revealed: revealed,
      catch_target: acting && fr.ph === "catch" ? fr.ps : null,
    };
  }

  function revealView(table, fr) {
    const side = fr.sd, other = side ^ 1, flip = table.sides > 1;
    const fname = (c, sd) => table.face_names[table.cards[c][sd]];
    const players = fr.h.map((h, s) => {
      const p = {hand: h.length, uno: !!fr.u[s], score: fr.s[s],
                 cards: h.map((c) => fname(c, side)),
                 backs: flip ? h.map((c) => fname(c, other)) : null};
      if (table.power_cards) p.power = !!fr.pw[s];
      return p;
    });
    return {
      seat: null, side: side, top: fname(fr.t, side), color: fr.c < 4 ? fr.c : null,
      direction: fr.d, pile: fr.p, pile_back: flip && fr.p > 0 ? fname(fr.pt, other) : null,
      discard: fr.dl, pending: fr.pe, phase: null, players: players, seen_backs: null,
      revealed: null, catch_target: fr.ph === "catch" ? fr.ps : null,
    };
  }

  return {card, back, el, badge, renderTable, prepare, seatView, revealView, colorName, glyph};
})();
