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

import { actedText, cardsText, chips, winText } from "./format.js";

export const MAX_CHAT = 100;
export const MAX_HISTORY = 20;
export const MAX_LOG = 200;
/** Caribbean Stud hands that the jackpot wager pays (CSP-07), as the server names them. */
export const JACKPOT_HANDS = ["royal flush", "straight flush", "four of a kind", "full house", "flush"];

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

function seatFrom(entry) {
  if (!entry) return null;
  return {
    seat: entry.seat, name: entry.name, stack: entry.stack ?? 0, bet: entry.bet ?? 0,
    state: entry.state || "waiting", cards: [...(entry.cards || [])], up: [...(entry.up || [])],
    shown: null, action: null, jackpot: 0, result: null, mucked: false,
    sittingOut: entry.state === "sitting_out" || entry.sitting_out === true, // wave 3 flag
    guest: entry.guest === true, tag: entry.tag ?? null, // a guest account (and its tag)
  };
}

/** One pot of the wire: `{amount, eligible}`. */
function potFrom(p) {
  return { amount: Number(p && p.amount) || 0,
    eligible: Array.isArray(p && p.eligible) ? p.eligible.map(Number) : [], awarded: false };
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
    you: msg.you ?? null, dealer: null, settled: null,
    announcements: keep ? keep.announcements : [], winners: [], oddChip: null,
    log: keep ? keep.log : [], history: keep ? keep.history : [],
    chat: keep ? keep.chat : [], bettingSinceCollect: false, ended: msg.hand == null,
    closed: false, lastResult: keep ? keep.lastResult : null,
  };
}

/** The turns of a snapshot, by seat (Caribbean Stud: one per seat at once). A deadline the
 * snapshot lacks (0) keeps the one this client saw for that seat in the same hand. */
function snapshotTurns(msg, keep) {
  const list = Array.isArray(msg.turns) ? msg.turns : msg.turn ? [msg.turn] : [];
  const out = {};
  for (const turn of list) {
    if (!turn || typeof turn.seat !== "number") continue;
    const before = keep && keep.hand === msg.hand && keep.turns ? keep.turns[turn.seat] : null;
    const entry = { ...turn, options: turn.options || null, time_bank: turn.time_bank ?? null,
      in_bank: !!turn.in_bank };
    if (!(entry.deadline > 0) && before) entry.deadline = before.deadline;
    if (entry.time_bank == null && before) entry.time_bank = before.time_bank;
    out[turn.seat] = entry;
  }
  return out;
}

/** `t.turn`: the viewer's own turn when there is one, else the latest. */
function pickTurn(t) {
  const turns = Object.values(t.turns || {});
  if (!turns.length) return null;
  if (t.you != null && t.turns[t.you]) return t.turns[t.you];
  return turns.reduce((a, b) => ((b.seq ?? 0) >= (a.seq ?? 0) ? b : a));
}

function clearTurns(t) {
  t.turns = {};
  t.turn = null;
}

function nameOf(t, seat) {
  const s = t.seats[seat];
  return s ? s.name : `Seat ${seat + 1}`;
}

function addLog(t, line) {
  t.log.push(line);
  if (t.log.length > MAX_LOG) t.log.splice(0, t.log.length - MAX_LOG);
}

/** Move every seat's bet into the middle (a new round starts). */
function collect(t) {
  if (t.variant === "caribbean") return;
  for (const s of t.seats) {
    if (s && s.bet) {
      t.collected += s.bet;
      s.bet = 0;
    }
    if (s && t.bettingSinceCollect) s.action = null; // a new street: last round's labels go
  }
  t.bettingSinceCollect = false;
}

function handStarted(t, msg) {
  t.hand = msg.hand;
  t.button = msg.button ?? null;
  t.board = [];
  t.collected = 0;
  t.pots = [];
  t.dealer = null;
  t.settled = null;
  if (t.ended && t.announcements.length) {
    t.lastResult = { hand: t.history[0] ? t.history[0].hand : null,
      announcements: [...t.announcements], winners: [...t.winners] };
  }
  clearTurns(t);
  t.winners = [];
  t.oddChip = null;
  t.announcements = [];
  t.ended = false;
  t.bettingSinceCollect = false;
  t.log = [`Hand ${msg.hand} starts`];
  for (const s of t.seats) {
    if (!s) continue;
    Object.assign(s, { bet: 0, cards: [], up: [], shown: null, action: null, jackpot: 0,
      result: null, mucked: false });
    s.state = "waiting";
  }
}

function posted(t, msg) {
  const s = t.seats[msg.seat];
  if (!s) return;
  s.state = "active";
  s.stack -= msg.amount;
  if (msg.kind === "ante" && t.variant !== "caribbean") {
    t.collected += msg.amount;
  } else {
    s.bet += msg.amount;
  }
  const kind = msg.kind.replace("_", "-");
  addLog(t, `${s.name} posts ${kind} ${chips(msg.amount)}`);
}

function dealt(t, msg) {
  const s = t.seats[msg.seat];
  if (!s) return;
  if (t.bettingSinceCollect) collect(t);
  if (s.state === "waiting") s.state = "active";
  s.cards.push(...(msg.cards || []));
  s.up.push(...(msg.up || []));
  if ((msg.up || []).length) addLog(t, `${s.name} shows ${cardsText(msg.up)}`);
}

function drew(state, t, msg) {
  const s = t.seats[msg.seat];
  if (!s) return;
  if (t.bettingSinceCollect) collect(t);
  if (Array.isArray(msg.cards)) {
    const pending = state.pendingDiscard && state.pendingDiscard.table === t.id
      ? state.pendingDiscard.cards : null;
    let kept;
    if (pending) {
      kept = s.cards.filter((c) => !pending.includes(c));
    } else {
      kept = s.cards.slice(0, Math.max(0, s.cards.length - msg.count));
    }
    s.cards = [...kept, ...msg.cards];
    state.pendingDiscard = null;
  }
  s.action = msg.count ? `draws ${msg.count}` : "stands pat";
  addLog(t, msg.count ? `${s.name} draws ${msg.count}` : `${s.name} stands pat`);
}

function acted(t, msg) {
  const s = t.seats[msg.seat];
  if (!s) return;
  if (t.turns && t.turns[msg.seat]) delete t.turns[msg.seat];
  t.turn = pickTurn(t);
  s.stack = msg.stack;
  const caribbean = t.variant === "caribbean";
  if (msg.action === "fold") {
    if (!caribbean) {
      t.collected += s.bet;
      s.bet = 0;
    }
    s.state = "folded";
  } else if (msg.action === "returned") {
    s.bet = Math.max(0, s.bet - msg.amount);
    addLog(t, `${s.name} takes back ${chips(msg.amount)} (uncalled)`);
    return;
  } else if (caribbean && msg.action === "ante" && msg.jackpot) {
    s.jackpot = msg.amount;
    addLog(t, `${s.name} adds the jackpot wager ${chips(msg.amount)}`);
    s.action = "jackpot";
    return;
  } else if (caribbean && msg.action === "play") {
    s.bet += msg.amount;
  } else if (msg.action !== "check") {
    s.bet = msg.amount;
  }
  if (s.stack === 0 && s.state === "active" && !caribbean) s.state = "all_in";
  // the seat's label: "Folded"/"All in" are its state already
  s.action = msg.action === "fold" ? null
    : s.state === "all_in" && msg.action !== "check" ? "all-in" : msg.action;
  t.bettingSinceCollect = true;
  addLog(t, actedText(s.name, msg.action, msg.amount) + (msg.timeout ? " (time)" : ""));
}

/** A betting round closed: its bets are in the middle, which the server breaks down. */
function potsEvent(t, msg) {
  collect(t);
  t.pots = (Array.isArray(msg.pots) ? msg.pots : []).map(potFrom);
  t.collected = t.pots.reduce((a, p) => a + p.amount, 0);
}

function potAwarded(t, msg) {
  collect(t);
  const won = t.pots && t.pots[msg.pot];
  if (won) won.awarded = true;
  t.collected = Math.max(0, t.collected - msg.amount);
  const winners = Object.entries(msg.winners || {});
  const odd = msg.odd_chip !== null && msg.odd_chip !== undefined ? Number(msg.odd_chip) : null;
  const parts = [];
  const hands = new Set();
  for (const [seat, amount] of winners) {
    const s = t.seats[Number(seat)];
    if (!s) continue;
    s.stack += amount;
    if (!t.winners.includes(Number(seat))) t.winners.push(Number(seat));
    const handName = s.shown ? s.shown.hand : null;
    if (handName) hands.add(handName);
    parts.push({ name: s.name, amount, handName, odd: odd === Number(seat) });
  }
  if (parts.length === 1) {
    const p = parts[0];
    const line = winText(p.name, p.amount, p.handName, msg.pot, 1);
    t.announcements.push(line);
    addLog(t, line);
  } else if (parts.length > 1) {
    // one line per pot, naming every winner (and who got the odd chip)
    const where = msg.pot > 0 ? `Side pot ${msg.pot}` : "The pot";
    const who = parts.map((p) => `${p.name} ${chips(p.amount)}${p.odd ? " (odd chip)" : ""}`);
    const how = hands.size === 1 ? ` with ${[...hands][0]}` : "";
    const line = `${where} is split: ${who.join(", ")}${how}`;
    t.announcements.push(line);
    addLog(t, line);
  }
  if (odd !== null) {
    t.oddChip = odd;
    if (parts.length <= 1) {
      const line = `The odd chip goes to ${nameOf(t, odd)}`;
      t.announcements.push(line);
      addLog(t, line);
    }
  }
}

function settled(state, t, msg) {
  t.settled = msg.results || {};
  for (const [seat, r] of Object.entries(t.settled)) {
    const s = t.seats[Number(seat)];
    if (!s) continue;
    s.result = r;
    if (typeof r.stack === "number") s.stack = r.stack;
    s.bet = 0;
    const sign = (n) => (n > 0 ? `+${chips(n)}` : n < 0 ? `\u2212${chips(-n)}` : "0");
    const parts = [`ante ${sign(r.ante)}`];
    if (r.play !== null && r.play !== undefined) parts.push(`play ${sign(r.play)}`);
    else parts.push("folded");
    const jackpotHand = typeof r.hand === "string" && JACKPOT_HANDS.some((h) => r.hand.startsWith(h));
    const wagered = r.jackpot !== null && r.jackpot !== undefined;
    // CSP-10: a jackpot hand is paid later, from the pool to the account (not in `settled`)
    if (wagered) {
      parts.push(r.jackpot > 0 ? `jackpot ${sign(r.jackpot)}`
        : jackpotHand ? "jackpot paid to the balance" : `jackpot ${sign(r.jackpot)}`);
    }
    const line = `${s.name}: ${parts.join(", ")}${r.hand ? ` (${r.hand})` : ""}`;
    t.announcements.push(line);
    addLog(t, line);
    if (wagered && (r.jackpot > 0 || jackpotHand)) {
      const amount = r.jackpot > 0 ? r.jackpot : null;
      state.jackpotWin = { table: t.id, seat: Number(seat), name: s.name, amount,
        hand: r.hand || null, poolBefore: state.jackpot ? state.jackpot.pool : null,
        mine: t.you === Number(seat) };
      t.announcements.push(`JACKPOT! ${s.name} hits ${r.hand || "a jackpot hand"}` +
        (amount ? ` and wins ${chips(amount)}` : ": the jackpot pays to the account"));
    }
  }
}

function handEnded(t, msg) {
  collect(t);
  for (const [seat, stack] of Object.entries(msg.stacks || {})) {
    const s = t.seats[Number(seat)];
    if (s) s.stack = stack;
  }
  for (const s of t.seats) if (s) s.bet = 0;
  t.collected = 0;
  t.pots = [];
  clearTurns(t);
  t.ended = true;
  if (msg.voided) t.announcements.push("The hand was void; every bet was returned");
  t.history.unshift({
    hand: msg.hand, variant: t.variant, board: [...t.board],
    dealer: t.dealer ? { ...t.dealer } : null,
    announcements: [...t.announcements], log: [...t.log],
    shown: t.seats.filter((s) => s && s.shown).map((s) => ({ name: s.name, ...s.shown })),
  });
  if (t.history.length > MAX_HISTORY) t.history.length = MAX_HISTORY;
}

function tableEvent(state, t, msg) {
  switch (msg.type) {
    case "seated": {
      const prev = t.seats[msg.seat];
      const seat = seatFrom({ seat: msg.seat, name: msg.name, stack: msg.stack,
        guest: msg.guest, tag: msg.tag });
      if (prev && prev.name === msg.name && prev.tag === seat.tag) {
        t.seats[msg.seat] = { ...prev, stack: msg.stack };
      } else {
        t.seats[msg.seat] = seat;
        addLog(t, `${msg.name} sits down with ${chips(msg.stack)}`);
      }
      break;
    }
    case "left":
      // my seat's chips go back to my balance
      if (t.you === msg.seat && state.me && !state.me.pushed && t.seats[msg.seat]) {
        state.me.balance += t.seats[msg.seat].stack;
      }
      t.seats[msg.seat] = null;
      if (t.you === msg.seat) t.you = null;
      addLog(t, `${msg.name} leaves`);
      break;
    case "sat_out":
      if (t.seats[msg.seat]) t.seats[msg.seat].sittingOut = true;
      break;
    case "sat_in":
      if (t.seats[msg.seat]) t.seats[msg.seat].sittingOut = false;
      break;
    case "hand_started": handStarted(t, msg); break;
    case "posted": posted(t, msg); break;
    case "dealt": dealt(t, msg); break;
    case "drew": drew(state, t, msg); break;
    case "board":
      if (t.bettingSinceCollect || t.board.length) collect(t);
      t.board = [...msg.cards];
      addLog(t, `Board: ${cardsText(msg.cards)}`);
      break;
    case "turn": {
      const turn = { seat: msg.seat, deadline: msg.deadline, options: msg.options || null,
        time_bank: msg.time_bank ?? null, in_bank: !!msg.in_bank, seq: msg.seq };
      // Caribbean Stud: every seat decides at once (a turn per seat); else one at a time
      if (t.variant !== "caribbean") t.turns = {};
      t.turns[msg.seat] = turn;
      t.turn = pickTurn(t);
      break;
    }
    case "acted": acted(t, msg); break;
    case "showdown": {
      collect(t);
      const s = t.seats[msg.seat];
      if (s) {
        // `hand` is the hand id (a SHOW-02 reveal names the hand it was in); `value` the name
        s.shown = { cards: [...msg.cards], hand: msg.value,
          best: Array.isArray(msg.best) ? [...msg.best] : null }; // wave 3: the five that play
        addLog(t, `${s.name} shows ${cardsText(msg.cards)}: ${msg.value}`);
      }
      break;
    }
    case "mucked": {
      collect(t);
      const s = t.seats[msg.seat];
      if (s) {
        s.mucked = true;
        addLog(t, `${s.name} mucks`);
      }
      break;
    }
    case "pots": potsEvent(t, msg); break;
    case "pot_awarded": potAwarded(t, msg); break;
    case "hand_ended": handEnded(t, msg); break;
    case "table_closed":
      t.closed = true;
      clearTurns(t);
      t.announcements.push("This table has closed (nobody sat at it).");
      break;
    case "chat": {
      const who = msg.seat !== undefined && msg.seat !== null ? nameOf(t, msg.seat)
        : (msg.name || "spectator");
      t.chat.push({ seq: msg.seq, name: who, text: String(msg.text), seated: msg.seat != null,
        seat: msg.seat ?? null, from: msg.name ?? null,
        guest: msg.seat != null ? Boolean(t.seats[msg.seat] && t.seats[msg.seat].guest)
          : msg.guest === true,
        tag: msg.seat != null ? (t.seats[msg.seat] && t.seats[msg.seat].tag) || null : msg.tag ?? null });
      if (t.chat.length > MAX_CHAT) t.chat.splice(0, t.chat.length - MAX_CHAT);
      break;
    }
    case "dealer": {
      t.dealer = { cards: [...msg.cards], hand: msg.hand ?? null, qualifies: msg.qualifies ?? null };
      if (msg.hand) {
        addLog(t, `Dealer shows ${cardsText(msg.cards)}: ${msg.hand}` +
          (msg.qualifies === false ? " (does not qualify)" : ""));
      }
      break;
    }
    case "settled": settled(state, t, msg); break;
    default: break;
  }
}

/** The next state after `msg` (a server message or a "local:*" message). */
export function reduce(state, msg) {
  if (!msg || typeof msg.type !== "string") return state;
  const next = structuredClone(state);
  switch (msg.type) {
    case "welcome":
      next.me = { player_id: msg.player_id, name: msg.name, token: msg.token,
        balance: msg.balance, guest: msg.guest ?? true };
      return next;
    case "jackpot": {
      // a payout at the table of a pending jackpot win: the pool's drop is what was paid
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
      return next;
    }
    case "local:status":
      next.status = msg.status;
      return next;
    case "local:tables": {
      next.tables = Array.isArray(msg.tables) ? msg.tables : [];
      const meter = next.tables.find((t) => t && t.jackpot && typeof t.jackpot.pool === "number");
      if (meter) {
        next.jackpot = { pool: meter.jackpot.pool, minor: meter.jackpot.minor ?? null,
          major: meter.jackpot.minor != null ? meter.jackpot.major ?? null : null };
      }
      return next;
    }
    case "local:meter": {
      const meter = (msg.tables || []).find((t) => t && t.jackpot && typeof t.jackpot.pool === "number");
      if (meter && !next.jackpot) {
        next.jackpot = { pool: meter.jackpot.pool, minor: meter.jackpot.minor ?? null,
          major: meter.jackpot.minor != null ? meter.jackpot.major ?? null : null };
      }
      return next;
    }
    case "local:open_table": // `keep`: the table shown before stays followed, in the background
      next.gone = null;
      if (next.table && next.table.id !== msg.table) {
        if (msg.keep) next.background[next.table.id] = next.table;
        next.table = null;
      }
      if (!next.table && next.background[msg.table]) {
        next.table = next.background[msg.table].pending ? null : next.background[msg.table];
        delete next.background[msg.table];
      }
      next.opening = msg.table;
      return next;
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
    case "local:forget_table":
      delete next.background[msg.table];
      return next;
    case "local:discard":
      next.pendingDiscard = { table: msg.table, cards: [...msg.cards] };
      return next;
    case "local:balance": // a guess until the server pushes balances (then it is the truth)
      if (next.me && !next.me.pushed) next.me.balance += msg.delta;
      return next;
    case "local:seen_jackpot_win":
      next.jackpotWin = null;
      return next;
    case "snapshot": {
      const bg = next.background[msg.table];
      if (bg && (next.table ? next.table.id : next.opening) !== msg.table) {
        next.background[msg.table] = tableFrom(msg, bg);
        next.background[msg.table].turn = pickTurn(next.background[msg.table]);
        return next;
      }
      if ((next.table ? next.table.id : next.opening) !== msg.table) return state;
      next.table = tableFrom(msg, next.table);
      next.table.turn = pickTurn(next.table);
      next.gone = null;
      return next;
    }
    case "local:signed_out":
      next.me = null;
      if (next.table) next.table.you = null;
      return next;
    case "local:restore": { // what this tab saw of the table before a reload
      const t = next.table;
      const r = msg.saved;
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
    case "local:gone": // the table asked for does not exist (any more)
      delete next.background[msg.table];
      if (next.table && next.table.id !== msg.table && next.opening !== msg.table) return next;
      next.gone = { table: msg.table };
      if (next.table && next.table.id === msg.table) next.table = null;
      next.opening = null;
      return next;
    case "balance": // the server's push: the balance itself, and no more local guesses
      if (next.me && typeof msg.balance === "number") {
        next.me.balance = msg.balance;
        next.me.pushed = true;
      }
      return next;
    default:
      break;
  }
  const t = next.table && next.table.id === msg.table ? next.table : next.background[msg.table];
  if (!t || t.pending || typeof msg.seq !== "number") return state;
  if (msg.seq <= t.seq) return state; // already applied (a resume may repeat)
  t.seq = msg.seq;
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
