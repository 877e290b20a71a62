#!/usr/bin/env node
// A complete UNO agent for the uno-env stdio protocol (version 1), in plain Node.js.
//
// Run it in a tournament with the spec `cmd:node examples/agents/random_agent.js`, or check
// it with `uno-env check-agent "cmd:node examples/agents/random_agent.js"`.
//
// It reads one JSON message per line on stdin and answers every `act` with one line
// {"action": i} on stdout. Anything meant for a person goes to stderr. It plays a legal
// action at random, preferring to play a card over drawing one; its generator (SplitMix32)
// is seeded from `hello` so that a tournament replays exactly.
"use strict";
const readline = require("readline");

const PROTOCOL = 1;
let state = 0;
let meanings = [];

function next() { // SplitMix32: a small seeded generator, uniform 32-bit integers
  state = (state + 0x9e3779b9) | 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

function choice(items) {
  return items[next() % items.length];
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    if (msg.protocol !== PROTOCOL) {
      process.stderr.write(`this agent speaks protocol ${PROTOCOL}, not ${msg.protocol}\n`);
      process.exit(2);
    }
    state = msg.seed | 0;
    meanings = msg.action_meanings;
  } else if (msg.type === "act") {
    // The named pieces of the observation: msg.pieces.hand, msg.pieces.top, ...
    const plays = msg.legal.filter((a) => meanings[a].startsWith("play"));
    const action = choice(plays.length ? plays : msg.legal);
    process.stdout.write(JSON.stringify({ action }) + "\n");
  } else if (msg.type === "result") {
    const won = msg.winners.includes(msg.seat);
    process.stderr.write(`game over: ${won ? "won" : "lost"}\n`);
  }
});
