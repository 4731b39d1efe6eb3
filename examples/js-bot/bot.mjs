// A small Rummy Hall bot in JavaScript, written from docs/protocol.md alone.
//
//   npm install && node bot.mjs [--host 127.0.0.1] [--port 7654] [--target 100]
//
// It creates a Gin table, sits in seat 0, puts a house bot in seat 1, starts, and plays
// until the game is over: it passes the upcard, draws from the stock, knocks whenever
// the server lists a knock, and otherwise discards its highest card. It exits 0 when
// the game ends and 1 on any error.

import net from "node:net";
import { encode, decode } from "@msgpack/msgpack";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) =>
    arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs, []));
const host = args.host ?? "127.0.0.1";
const port = Number(args.port ?? 7654);
const target = Number(args.target ?? 100);

// ---- framing: a 4-byte big-endian length, then one msgpack map (section 1)
const socket = net.connect({ host, port });
let buffer = Buffer.alloc(0);
const waiting = [];   // resolvers waiting for the next message
const inbox = [];     // messages nobody waited for yet

function send(message) {
  const body = encode(message);
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length);
  socket.write(Buffer.concat([header, Buffer.from(body)]));
}

socket.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32BE(0)) {
    const size = buffer.readUInt32BE(0);
    const message = decode(buffer.subarray(4, 4 + size));
    buffer = buffer.subarray(4 + size);
    const resolve = waiting.shift();
    if (resolve) resolve(message); else inbox.push(message);
  }
});
socket.on("error", (error) => fail(`connection error: ${error.message}`));
socket.on("close", () => fail("the server closed the connection"));

function next() {
  return inbox.length ? Promise.resolve(inbox.shift())
    : new Promise((resolve) => waiting.push(resolve));
}

function fail(why) {
  console.error(`js-bot: ${why}`);
  process.exit(1);
}

// ---- requests carry an id that the reply echoes (section 5)
let lastId = 0;
async function request(message) {
  const id = ++lastId;
  send({ ...message, id });
  for (;;) {
    const reply = await next();
    if (reply.id === id && (reply.type === "ok" || reply.type === "error")) {
      if (reply.type === "error") fail(`${message.type} refused: ${reply.code}: ${reply.message}`);
      return reply;
    }
    pushed.push(reply); // a push that came before the reply: handle it later
  }
}
const pushed = [];
async function nextPush() {
  return pushed.length ? pushed.shift() : next();
}

// ---- card points: rank first ("Td", "9c#1"); J Q K count 10, A 1 (Gin; docs/rules.md, "What cards are worth")
function points(card) {
  const rank = card[0];
  if (rank === "A") return 1;
  if ("TJQK".includes(rank)) return 10;
  return Number(rank);
}

function choose(legal) {
  const knock = legal.find((a) => a.kind === "knock");
  if (knock) return knock;
  const pass = legal.find((a) => a.kind === "pass");
  if (pass) return pass;
  const draw = legal.find((a) => a.kind === "draw_stock");
  if (draw) return draw;
  const discards = legal.filter((a) => a.kind === "discard");
  if (discards.length) {
    return discards.reduce((best, a) => (points(a.card) > points(best.card) ? a : best));
  }
  return legal[0];
}

async function main() {
  setTimeout(() => fail("the game did not end in time"), 120_000).unref();
  // the handshake (section 3)
  send({ type: "hello", protocol: "rummyhall", versions: [1], name: `js-bot-${process.pid}`,
         kind: "bot", client: "rummyhall js-bot 1.0" });
  const welcome = await next();
  if (welcome.type !== "welcome") fail(`no welcome: ${JSON.stringify(welcome)}`);
  // the lobby (section 6): this bot needs no other table's updates
  if (welcome.features.includes("lobby_updates")) {
    await request({ type: "lobby_updates", on: false });
  }
  const { table } = await request({ type: "create_table", game: "gin", players: 2,
                                    options: { target_score: target } });
  await request({ type: "join", table, seat: 0 });
  await request({ type: "add_bot", table, seat: 1 });
  await request({ type: "start", table });
  // the table (section 7)
  let moves = 0;
  for (;;) {
    const message = await nextPush();
    if (message.type === "your_turn" && message.table === table) {
      const action = choose(message.legal);
      const id = ++lastId;
      send({ type: "action", table, move: message.move, action, id });
      moves += 1;
    } else if (message.type === "error" && message.fatal) {
      fail(`fatal error: ${message.code}: ${message.message}`);
    } else if (message.type === "event" && message.table === table
               && message.event.kind === "game_over") {
      const { winners, totals } = message.event;
      console.log(`game over after ${moves} moves: winners ${JSON.stringify(winners)}, `
                  + `totals ${JSON.stringify(totals)}`);
      send({ type: "bye" });
      socket.end();
      process.exit(0);
    }
  }
}

main().catch((error) => fail(error.stack ?? String(error)));
