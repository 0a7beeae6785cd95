// The client's state: plain data, changed only by `reduce(state, message)`.
//
// Rule of this module: it is a pure function of (state, message) -> new state (no DOM, no
// socket, no clock): the table shown is rendered from a `snapshot` and the events after it.
// Server messages keep their protocol `type`; the client's own facts are "local:*" messages
// (the lobby list, the connection status, the cards it asked to discard). The previous
// state is never mutated (a structured clone is changed and returned).
//
// Chips on the table: `seat.bet` is the seat's bet in the current round; `table.collected`
// the chips already in the middle from earlier rounds (antes included); the pot shown is
// their sum. Bets are gathered into the middle when a new round starts (board, a later
// deal, the draw, the showdown). `table.pots` is the server's pot breakdown
// (`[{amount, eligible}]`, main pot first) from the snapshot and each `pots` event (sent when a
// betting round closes); a pot already awarded is marked `awarded`.
// The events of a table are applied by js/table-events.js.

import { chips } from "./format.js";
import { homeEvent, homeFrom, reduceHome } from "./home.js";
import { addLog, JACKPOT_HANDS, MAX_CHAT, MAX_HISTORY, MAX_LOG, pickTurn, potFrom, seatFrom, tableEvent }
  from "./table-events.js";

export { JACKPOT_HANDS, MAX_CHAT, MAX_HISTORY, MAX_LOG };

export function initialState() {
  return {
    status: "connecting", // connecting | online | reconnecting | offline
    me: null, // {player_id, name, token, balance, guest}
    tables: [], // lobby list
    jackpot: null, // {pool, minor?, major?}
    jackpotWin: null, // {table, name, amount, hand}
    table: null, // the open table (see tableFrom)
    background: {}, // table id -> the other tables this tab follows ("my tables"), kept live
    pendingDiscard: null, // {table, cards}: the cards this client asked to discard
    opening: null, // the table id whose snapshot is awaited
    gone: null, // {table}: the table asked for no longer exists
  };
}

function tableFrom(msg, previous) {
  const seats = (msg.seats || []).map(seatFrom);
  // the snapshot's pots hold the rounds before this one; this round's bets are the seats'
  const pots = (Array.isArray(msg.pots) ? msg.pots : []).map(potFrom);
  const pot = pots.reduce((a, p) => a + p.amount, 0);
  const keep = previous && previous.id === msg.table && !previous.pending ? previous : null;
  return {
    id: msg.table, seq: msg.seq, name: msg.name || msg.table, variant: msg.variant,
    structure: msg.structure, stakes: msg.stakes || {}, settings: msg.settings || {},
    seatCount: seats.length, seats, board: [...(msg.board || [])],
    collected: pot, pots, button: msg.button ?? null,
    turn: null, turns: snapshotTurns(msg, keep), hand: msg.hand ?? null,
    handNumber: msg.number ?? null, // issue 24: the current (or last) hand's number here
    you: msg.you ?? null, dealer: null, settled: null,
    announcements: keep ? keep.announcements : [], winners: [], oddChip: null,
    log: keep ? keep.log : [], history: keep ? keep.history : [],
    chat: keep ? keep.chat : [], bettingSinceCollect: false, ended: msg.hand == null,
    closed: false, lastResult: keep ? keep.lastResult : null,
    ...homeFrom(msg, keep), // a private table's host state (js/home.js)
  };
}

/** The turns of a snapshot, by seat (Caribbean Stud: one per seat at once). Wave 3: at a
 * Caribbean table every seat still to decide carries its phase's `deadline` in its seat entry
 * (only the viewer's own turn comes as `turn`, with options): each such seat gets a turn of
 * its own. A deadline the snapshot lacks (0) keeps the one this client saw for that seat in the
 * same hand. */
function snapshotTurns(msg, keep) {
  const list = Array.isArray(msg.turns) ? [...msg.turns] : msg.turn ? [msg.turn] : [];
  const seatDeadline = {};
  if (msg.hand != null) {
    for (const e of msg.seats || []) {
      if (e && typeof e.seat === "number" && Number(e.deadline) > 0) seatDeadline[e.seat] = Number(e.deadline);
    }
  }
  for (const seat of Object.keys(seatDeadline).map(Number)) {
    if (!list.some((x) => x && x.seat === seat)) list.push({ seat, deadline: seatDeadline[seat] });
  }
  const out = {};
  for (const turn of list) {
    if (!turn || typeof turn.seat !== "number") continue;
    const before = keep && keep.hand === msg.hand && keep.turns ? keep.turns[turn.seat] : null;
    const entry = { ...turn, options: turn.options || null, time_bank: turn.time_bank ?? null,
      in_bank: !!turn.in_bank };
    if (!(entry.deadline > 0) && seatDeadline[turn.seat]) entry.deadline = seatDeadline[turn.seat];
    if (!(entry.deadline > 0) && before) entry.deadline = before.deadline;
    if (entry.time_bank == null && before) entry.time_bank = before.time_bank;
    out[turn.seat] = entry;
  }
  return out;
}


function meterFrom(tables) {
  const meter = (tables || []).find((t) => t && t.jackpot && typeof t.jackpot.pool === "number");
  if (!meter) return null;
  return { pool: meter.jackpot.pool, minor: meter.jackpot.minor ?? null,
    major: meter.jackpot.minor != null ? meter.jackpot.major ?? null : null };
}

/** A `jackpot` push: the meter; a payout at the table of a pending jackpot win (the pool's
 * drop is what was paid). */
function jackpotEvent(next, msg) {
  const win = next.jackpotWin;
  if (win && win.amount == null && msg.table === win.table && win.poolBefore != null &&
      msg.pool < win.poolBefore) {
    win.amount = win.poolBefore - msg.pool;
    if (win.mine && next.me && !next.me.pushed) next.me.balance += win.amount;
    if (next.table && next.table.id === win.table) {
      const line = `JACKPOT! ${win.name} wins ${chips(win.amount)} from the pool`;
      next.table.announcements.push(line);
      addLog(next.table, line);
    }
  }
  next.jackpot = { pool: msg.pool, minor: msg.minor ?? null, major: msg.major ?? null };
}

/** Who I am, my balance, the lobby, the meter, the connection. `undefined`: not one of these. */
function reduceRoom(next, msg) {
  switch (msg.type) {
    case "welcome":
      next.me = { player_id: msg.player_id, name: msg.name, token: msg.token,
        balance: msg.balance, guest: msg.guest ?? true };
      return next;
    case "jackpot": jackpotEvent(next, msg); return next;
    case "local:status": next.status = msg.status; return next;
    case "local:tables":
      next.tables = Array.isArray(msg.tables) ? msg.tables : [];
      next.jackpot = meterFrom(next.tables) || next.jackpot;
      return next;
    case "local:meter":
      if (!next.jackpot) next.jackpot = meterFrom(msg.tables);
      return next;
    case "local:balance": // a guess until the server pushes balances (then it is the truth)
      if (next.me && !next.me.pushed) next.me.balance += msg.delta;
      return next;
    case "balance": // the server's push: the balance itself, and no more local guesses
      if (next.me && typeof msg.balance === "number") {
        next.me.balance = msg.balance;
        next.me.pushed = true;
      }
      return next;
    case "local:seen_jackpot_win": next.jackpotWin = null; return next;
    case "local:signed_out":
      next.me = null;
      if (next.table) next.table.you = null;
      return next;
    case "local:discard":
      next.pendingDiscard = { table: msg.table, cards: [...msg.cards] };
      return next;
    case "local:posts_bb": // GEN-05: this player posts a big blind to play the next hand
      if (next.table && next.table.id === msg.table && next.table.you != null) {
        const mine = next.table.seats[next.table.you];
        if (mine) mine.postsBigBlind = true;
      }
      return next;
    default: return undefined;
  }
}

/** `local:open_table`: `keep`: the table shown before stays followed, in the background. */
function openTable(next, msg) {
  next.gone = null;
  if (next.table && next.table.id !== msg.table) {
    if (msg.keep) next.background[next.table.id] = next.table;
    next.table = null;
  }
  const bg = next.background[msg.table];
  if (!next.table && bg) {
    next.table = bg.pending ? null : bg;
    delete next.background[msg.table];
  }
  next.opening = msg.table;
  return next;
}

function snapshot(state, next, msg) {
  const bg = next.background[msg.table];
  const shown = next.table ? next.table.id : next.opening;
  if (bg && shown !== msg.table) {
    next.background[msg.table] = tableFrom(msg, bg);
    next.background[msg.table].turn = pickTurn(next.background[msg.table]);
    return next;
  }
  if (shown !== msg.table) return state;
  next.table = tableFrom(msg, next.table);
  next.table.turn = pickTurn(next.table);
  next.gone = null;
  return next;
}

/** What this tab saw of the table before a reload (`local:restore`). */
function restore(state, next, r) {
  const t = next.table;
  if (!t || !r || r.table !== t.id) return state;
  if (!t.chat.length && Array.isArray(r.chat)) t.chat = r.chat.slice(-MAX_CHAT);
  if (!t.history.length && Array.isArray(r.history)) t.history = r.history.slice(0, MAX_HISTORY);
  if (r.hand != null && r.hand === t.hand && Array.isArray(r.log) && t.log.length <= 1) t.log = r.log;
  if (r.hand === t.hand && r.turns) {
    for (const [seat, turn] of Object.entries(t.turns || {})) {
      const before = r.turns[seat];
      if (!before) continue;
      if (!(turn.deadline > 0)) turn.deadline = before.deadline;
      if (turn.time_bank == null) turn.time_bank = before.time_bank ?? null;
    }
  }
  if (t.you != null && r.you === t.you && r.sittingOut && t.seats[t.you]) t.seats[t.you].sittingOut = true;
  return next;
}

/** Which tables are shown or followed. `undefined`: not one of these. */
function reduceTables(state, next, msg) {
  switch (msg.type) {
    case "local:open_table": return openTable(next, msg);
    case "local:close_table":
      if (msg.keep && next.table) next.background[next.table.id] = next.table;
      next.table = null;
      next.opening = null;
      return next;
    case "local:follow": // a table followed in the background (its snapshot is on the way)
      if ((!next.table || next.table.id !== msg.table) && !next.background[msg.table]) {
        next.background[msg.table] = { id: msg.table, name: msg.name || msg.table, pending: true,
          seats: [], turns: {}, you: null, ended: true };
      }
      return next;
    case "local:forget_table": delete next.background[msg.table]; return next;
    case "snapshot": return snapshot(state, next, msg);
    case "local:restore": return restore(state, next, msg.saved);
    case "local:gone": // the table asked for does not exist (any more)
      delete next.background[msg.table];
      if (next.table && next.table.id !== msg.table && next.opening !== msg.table) return next;
      next.gone = { table: msg.table };
      if (next.table && next.table.id === msg.table) next.table = null;
      next.opening = null;
      return next;
    default: return undefined;
  }
}

/** The next state after `msg` (a server message or a "local:*" message). */
export function reduce(state, msg) {
  if (!msg || typeof msg.type !== "string") return state;
  const next = structuredClone(state);
  const done = reduceRoom(next, msg) ?? reduceHome(next, msg) ?? reduceTables(state, next, msg);
  if (done !== undefined) return done;
  const t = next.table && next.table.id === msg.table ? next.table : next.background[msg.table];
  if (!t || t.pending || typeof msg.seq !== "number") return state;
  if (msg.seq <= t.seq) return state; // already applied (a resume may repeat)
  t.seq = msg.seq;
  homeEvent(t, msg);
  tableEvent(next, t, msg);
  return next;
}

/** The total in the middle (collected plus every seat's bet). */
export function potTotal(t) {
  if (!t) return 0;
  return t.collected + t.seats.reduce((a, s) => a + (s ? s.bet : 0), 0);
}

/** The pots to show in the middle, not yet awarded: `[{index, label, amount, eligible}]`
 * ("Main pot", "Side pot 1", ...; pot 0 is the main pot). */
export function shownPots(t) {
  if (!t || !Array.isArray(t.pots)) return [];
  const out = [];
  t.pots.forEach((p, index) => {
    if (p.awarded || p.amount <= 0) return;
    out.push({ index, label: index === 0 ? "Main pot" : `Side pot ${index}`, amount: p.amount,
      eligible: [...p.eligible] });
  });
  return out;
}

/** The highest bet of the round. */
export function maxBet(t) {
  return t ? t.seats.reduce((a, s) => Math.max(a, s ? s.bet : 0), 0) : 0;
}

/** Whether it is the viewer's own turn, with options to choose from, at table `t`. */
export function myTurn(t) {
  if (!t || t.pending || t.ended || t.you == null || !t.turns) return false;
  const turn = t.turns[t.you];
  return !!(turn && turn.options);
}

/** "My tables": the open table and those followed in the background, in a stable order
 * (by id): `[{id, name, open, seated, turn}]`. */
export function myTables(state) {
  const all = Object.values(state.background || {});
  if (state.table) all.push(state.table);
  return all.map((t) => ({ id: t.id, name: t.name || t.id, open: t === state.table,
    seated: t.you != null, turn: myTurn(t) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
