// The table's events: how each server event changes the open table (or one followed in the
// background). Called by `reduce` (js/state.js) on a structured clone: these functions
// change the table they are given in place, and nothing else but `state.pendingDiscard`,
// `state.jackpotWin` and `state.me.balance`.

import { actedText, cardsText, chips, winText } from "./format.js";

export const MAX_CHAT = 100;
export const MAX_HISTORY = 20;
export const MAX_LOG = 200;
/** Caribbean Stud hands that the jackpot wager pays (CSP-07), as the server names them. */
export const JACKPOT_HANDS = ["royal flush", "straight flush", "four of a kind", "full house", "flush"];

/** One pot of the wire: `{amount, eligible}`. */
export function potFrom(p) {
  return { amount: Number(p && p.amount) || 0,
    eligible: Array.isArray(p && p.eligible) ? p.eligible.map(Number) : [], awarded: false };
}

export function seatFrom(entry) {
  if (!entry) return null;
  return {
    seat: entry.seat, name: entry.name, stack: entry.stack ?? 0, bet: entry.bet ?? 0,
    state: entry.state || "waiting", cards: [...(entry.cards || [])], up: [...(entry.up || [])],
    shown: null, action: null, jackpot: 0, result: null, mucked: false,
    topup: 0, // chips added during a hand, waiting for its end (`seated` with `topup`)
    sittingOut: entry.state === "sitting_out" || entry.sitting_out === true, // wave 3 flag
    guest: entry.guest === true, tag: entry.tag ?? null, // a guest account (and its tag)
    waitsForBigBlind: entry.wait_for_bb === true, // GEN-05: dealt in when the big blind comes
    disconnected: entry.disconnected === true, // issue 24: their connection is gone
    bot: entry.bot === true, // issue 24: a practice table's bot
  };
}

/** `t.turn`: the viewer's own turn when there is one, else the latest. */
export function pickTurn(t) {
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

export function addLog(t, line) {
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
  t.handNumber = msg.number ?? null; // issue 24: this table's own count, "#1" first
  t.button = msg.button ?? null;
  t.board = [];
  t.board2 = []; // RIT-03: the second run's board (a home game's house rule)
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
  t.log = [`Hand ${handLabel(t, msg.hand)} starts`];
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
  if ((msg.kind === "over_blind" || msg.kind === "straddle") && t.turns && t.turns[msg.seat]) {
    delete t.turns[msg.seat]; // the answer to the over blind's (straddle's) question
    t.turn = pickTurn(t);
  }
  s.state = "active";
  s.waitsForBigBlind = false; // posting: in this hand
  s.postsBigBlind = false;
  s.stack -= msg.amount;
  if (msg.kind === "ante" && t.variant === "caribbean" && t.turns && t.turns[msg.seat]) {
    delete t.turns[msg.seat]; // this seat has decided its ante: its clock stops
    t.turn = pickTurn(t);
  }
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
  s.waitsForBigBlind = false; // dealt in
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
  } else if (msg.action === "decline") { // no over blind (BLIND-04): nothing moves
    const what = t.settings && t.settings.straddle ? "straddle" : "over blind";
    addLog(t, `${s.name} declines the ${what}${msg.timeout ? " (no answer)" : ""}`);
    s.action = `no ${what}`;
    return;
  } else if (msg.action === "show" || msg.action === "muck") { // SHOWWIN-01: the winner's choice
    if (msg.action === "muck") addLog(t, `${s.name} does not show${msg.timeout ? " (no answer)" : ""}`);
    s.action = msg.action === "show" ? "shows" : null;
    return;
  } else if (msg.action === "run_twice" || msg.action === "run_once") { // RIT-02: an answer
    const twice = msg.action === "run_twice";
    addLog(t, `${s.name} ${twice ? "agrees to run it twice" : "runs it once"}${msg.timeout ? " (no answer)" : ""} (house rule)`);
    s.action = twice ? "run twice" : "run once";
    return;
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
  if (msg.run === 2) { // RIT-04: the second run's half, its own line
    secondRunAwarded(t, msg);
    return;
  }
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
  const first = t.board2 && t.board2.length ? "First board: " : ""; // RIT-04: half the pot
  if (parts.length === 1) {
    const p = parts[0];
    const line = first + winText(p.name, p.amount, p.handName, msg.pot, 1);
    t.announcements.push(line);
    addLog(t, line);
  } else if (parts.length > 1) {
    // one line per pot, naming every winner (and who got the odd chip)
    const where = msg.pot > 0 ? `Side pot ${msg.pot}` : "The pot";
    const who = parts.map((p) => `${p.name} ${chips(p.amount)}${p.odd ? " (odd chip)" : ""}`);
    const how = hands.size === 1 ? ` with ${[...hands][0]}` : "";
    const line = `${first}${where} is split: ${who.join(", ")}${how}`;
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
    const back = (n) => (n === 0 ? "returned" : sign(n)); // a push: the bet comes back
    const parts = [`ante ${back(r.ante)}`];
    if (r.play !== null && r.play !== undefined) parts.push(`play ${back(r.play)}`);
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
    hand: msg.hand, number: msg.hand === t.hand ? t.handNumber ?? null : null,
    variant: t.variant, board: [...t.board],
    dealer: t.dealer ? { ...t.dealer } : null,
    announcements: [...t.announcements], log: [...t.log],
    shown: t.seats.filter((s) => s && s.shown).map((s) => ({ name: s.name, ...s.shown })),
  });
  if (t.history.length > MAX_HISTORY) t.history.length = MAX_HISTORY;
}


function seated(t, msg) {
  const prev = t.seats[msg.seat];
  const seat = seatFrom({ seat: msg.seat, name: msg.name, stack: msg.stack,
    guest: msg.guest, tag: msg.tag, wait_for_bb: msg.wait_for_bb, bot: msg.bot });
  if (prev && prev.name === msg.name && prev.tag === seat.tag) {
    // a rebuy (GEN-06): the new stack, or chips waiting for the hand's end (`topup`)
    // (with `topup` the hand goes on: its stack is the one this page has been counting)
    t.seats[msg.seat] = { ...prev, stack: msg.topup ? prev.stack : msg.stack, topup: Number(msg.topup) || 0 };
    if (msg.topup) addLog(t, `${msg.name} adds ${chips(msg.topup)} for the next hand`);
  } else {
    t.seats[msg.seat] = seat;
    addLog(t, `${msg.name} sits down with ${chips(msg.stack)}`);
  }
}

function left(state, t, msg) {
  // my seat's chips go back to my balance (not a practice table's play money, issue 24)
  const practice = !!(t.settings && t.settings.practice);
  if (t.you === msg.seat && state.me && !state.me.pushed && t.seats[msg.seat] && !practice) {
    state.me.balance += t.seats[msg.seat].stack;
  }
  t.seats[msg.seat] = null;
  if (t.you === msg.seat) t.you = null;
  addLog(t, `${msg.name} leaves`);
}

function turnEvent(t, msg) {
  const turn = { seat: msg.seat, deadline: msg.deadline, options: msg.options || null,
    time_bank: msg.time_bank ?? null, in_bank: !!msg.in_bank, seq: msg.seq };
  // Caribbean Stud: every seat decides at once (a turn per seat); else one at a time
  if (t.variant !== "caribbean") t.turns = {};
  t.turns[msg.seat] = turn;
  t.turn = pickTurn(t);
}

function showdown(t, msg) {
  collect(t);
  const s = t.seats[msg.seat];
  if (!s) return;
  // `hand` is the hand id (a SHOW-02 reveal names the hand it was in); `value` the name
  s.shown = { cards: [...msg.cards], hand: msg.value,
    best: Array.isArray(msg.best) ? [...msg.best] : null }; // wave 3: the five that play
  addLog(t, `${s.name} shows ${cardsText(msg.cards)}: ${msg.value}`);
}

function mucked(t, msg) {
  collect(t);
  const s = t.seats[msg.seat];
  if (!s) return;
  s.mucked = true;
  addLog(t, `${s.name} mucks`);
}

function chat(t, msg) {
  const seatOf = msg.seat !== undefined && msg.seat !== null ? t.seats[msg.seat] : null;
  const who = msg.seat != null ? nameOf(t, msg.seat) : (msg.name || "spectator");
  t.chat.push({ seq: msg.seq, name: who, text: String(msg.text), seated: msg.seat != null,
    seat: msg.seat ?? null, from: msg.name ?? null,
    guest: msg.seat != null ? Boolean(seatOf && seatOf.guest) : msg.guest === true,
    tag: msg.seat != null ? (seatOf && seatOf.tag) || null : msg.tag ?? null });
  if (t.chat.length > MAX_CHAT) t.chat.splice(0, t.chat.length - MAX_CHAT);
}

function dealer(t, msg) {
  t.dealer = { cards: [...msg.cards], hand: msg.hand ?? null, qualifies: msg.qualifies ?? null };
  if (msg.hand) {
    addLog(t, `Dealer shows ${cardsText(msg.cards)}: ${msg.hand}` +
      (msg.qualifies === false ? " (does not qualify)" : ""));
  }
}

/** RIT-04: the second run's half of pot `msg.pot`: stacks and one line naming the board. */
function secondRunAwarded(t, msg) {
  t.collected = Math.max(0, t.collected - msg.amount);
  const names = [];
  for (const [seat, amount] of Object.entries(msg.winners || {})) {
    const s = t.seats[Number(seat)];
    if (!s) continue;
    s.stack += amount;
    if (!t.winners.includes(Number(seat))) t.winners.push(Number(seat));
    names.push(`${s.name} ${chips(amount)}`);
  }
  const where = msg.pot > 0 ? `side pot ${msg.pot}` : "the pot";
  const line = `Second board: ${names.join(", ")} (half of ${where})`;
  t.announcements.push(line);
  addLog(t, line);
}

function board(t, msg) {
  if (msg.run === 2) { // RIT-03: the second run, below the first
    t.board2 = [...msg.cards];
    return;
  }
  if (t.bettingSinceCollect || t.board.length) collect(t);
  t.board = [...msg.cards];
  addLog(t, `Board: ${cardsText(msg.cards)}`);
}

function sitting(t, msg, out) {
  const s = t.seats[msg.seat];
  if (!s) return;
  s.sittingOut = out;
  // back at once: the state the hand (or the snapshot) gave no longer says "sitting out"
  if (!out && s.state === "sitting_out") s.state = "waiting";
  if (!out && msg.wait_for_bb) s.waitsForBigBlind = true; // GEN-05: back when the big blind comes
}

/** issue 24: a seated player's connection dropped (or came back): shown on the seat at once. */
function presence(t, msg) {
  const s = t.seats[msg.seat];
  if (!s) return;
  const was = s.disconnected;
  s.disconnected = msg.online === false;
  if (was !== s.disconnected) addLog(t, `${s.name} ${s.disconnected ? "disconnected" : "is back"}`);
}

/** "#3": the hand's number at this table (older servers: the tail of the hand id). */
export function handLabel(t, hand) {
  const n = t && t.handNumber != null && hand === t.hand ? t.handNumber : String(hand ?? "?").split(".").pop();
  return `#${n}`;
}

function closed(t) {
  t.closed = true;
  clearTurns(t);
  t.announcements.push("This table has closed (nobody sat at it).");
}

const EVENTS = {
  seated: (s, t, m) => seated(t, m), left, sat_out: (s, t, m) => sitting(t, m, true),
  sat_in: (s, t, m) => sitting(t, m, false), hand_started: (s, t, m) => handStarted(t, m),
  presence: (s, t, m) => presence(t, m),
  posted: (s, t, m) => posted(t, m), dealt: (s, t, m) => dealt(t, m), drew,
  board: (s, t, m) => board(t, m), turn: (s, t, m) => turnEvent(t, m),
  acted: (s, t, m) => acted(t, m), showdown: (s, t, m) => showdown(t, m),
  mucked: (s, t, m) => mucked(t, m), pots: (s, t, m) => potsEvent(t, m),
  pot_awarded: (s, t, m) => potAwarded(t, m), hand_ended: (s, t, m) => handEnded(t, m),
  table_closed: (s, t) => closed(t), chat: (s, t, m) => chat(t, m),
  dealer: (s, t, m) => dealer(t, m), settled,
};

/** Apply table event `msg` to table `t` (of `state`). */
export function tableEvent(state, t, msg) {
  const handler = EVENTS[msg.type];
  t.fresh = freshOf(t, msg); // what this event changed: the next drawing animates only that
  if (handler) handler(state, t, msg);
}

/** The part of the felt event `msg` brings in (dealt or drawn cards, board cards, chips put
 * in, chips won), for the short deal and chip animations (js/ui/table.js); null otherwise. */
export function freshOf(t, msg) {
  switch (msg.type) {
    case "dealt": return { seat: msg.seat, cards: (msg.cards || []).length + (msg.up || []).length };
    case "drew": return msg.count ? { seat: msg.seat, cards: msg.count } : null;
    case "board": return { board: Math.max(0, (msg.cards || []).length - t.board.length) };
    case "posted": return { bet: msg.seat };
    case "acted": return ["bet", "raise", "call", "complete", "bring_in"].includes(msg.action)
      ? { bet: msg.seat } : null;
    case "pot_awarded": return { won: Object.keys(msg.winners || {}).map(Number) };
    default: return null;
  }
}
