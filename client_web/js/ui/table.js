// The table view's felt: the oval, the seats around it (names, stacks, bets, cards, the
// dealer button, whose turn with the clock), the board, the pots, the Caribbean dealer.
// Rendered from `state.table` only; the clock text is refreshed by `tickClocks`.

import { chips, stakesText, STRUCTURE_NAMES, VARIANT_NAMES } from "../format.js";
import { potTotal, shownPots } from "../state.js";
import { ANY_FIVE, best5, liveHandName } from "../hands.js";
import { cardHTML, cardsHTML } from "./cards.js";
import { esc } from "./dom.js";

/** The badge of a guest account's seat; its tag tells two guests of one name apart. */
export function guestBadge(tag) {
  const title = tag ? `guest account #${esc(tag)}` : "guest account";
  return ` <span class="badge guest" title="${title}"><span class="g-word">guest</span>${tag ? ` #${esc(tag)}` : ""}</span>`;
}

// "Sitting out" follows the seat's own flag (`sittingOut`, changed by sat_out / sat_in at
// once), never the state of the hand's start: "I'm back" clears it there and then.
const STATE_LABELS = {
  folded: "Folded", all_in: "All in", sitting_out: "", waiting: "",
  active: "",
};

/** Where seat `i` sits on the oval, in percent of the felt (the viewer's seat at the bottom). */
export function seatPosition(i, count, anchor) {
  const k = ((i - anchor) % count + count) % count;
  const angle = Math.PI / 2 + (2 * Math.PI * k) / count;
  return { x: 50 + 45 * Math.cos(angle), y: 50 + 41 * Math.sin(angle) };
}

/** On a narrow (phone) felt, `w`x`h` px, and at a full table (seven seats or more) on any
 * screen: the seats spread evenly around a rounded rectangle, so ten seats on a 360 px screen
 * neither overlap nor leave the screen, and seven stud hands shown on a laptop do not run
 * into each other (js/table-render.js chooses; style.css keeps the side seats in). */
export function seatPositionNarrow(i, count, anchor, w = 284, h = 540) {
  const k = ((i - anchor) % count + count) % count;
  const left = 0, right = 100, top = 7, bottom = 93; // percent of the felt
  const rw = ((right - left) / 100) * w;
  const rh = ((bottom - top) / 100) * h;
  const perimeter = 2 * (rw + rh);
  // walk clockwise from the bottom centre (the viewer's seat): left along the bottom, up the
  // left side, along the top, down the right side
  let d = (perimeter * k) / count;
  const segs = [[rw / 2, "b"], [rh, "l"], [rw, "t"], [rh, "r"], [rw / 2, "b2"]];
  for (const [len, side] of segs) {
    if (d <= len) {
      const px = (v) => (v / w) * 100;
      const py = (v) => (v / h) * 100;
      if (side === "b") return { x: 50 - px(d), y: bottom };
      if (side === "l") return { x: left, y: bottom - py(d) };
      if (side === "t") return { x: left + px(d), y: top };
      if (side === "r") return { x: right, y: top + py(d) };
      return { x: right - px(d), y: bottom };
    }
    d -= len;
  }
  return { x: 50, y: bottom };
}

/** The winners' best five cards (a set of card strings), where any five may play. */
export function winningCards(t) {
  const out = new Set();
  if (!t || !t.winners || !t.winners.length) return out;
  for (const i of t.winners) {
    const s = t.seats[i];
    if (!s || !s.shown) continue;
    // the server's own five (`showdown.best`, wave 3; Manila too), else worked out here
    const best = Array.isArray(s.shown.best) && s.shown.best.length ? s.shown.best
      : ANY_FIVE.has(t.variant) ? best5([...s.shown.cards, ...(t.board || [])]) : null;
    if (best) for (const c of best) out.add(c);
  }
  return out;
}

const marked = (cards, kind, best) =>
  (cards || []).map((c) => cardHTML(c, kind, c && best.has(c) ? "best" : "")).join("");

function seatCards(t, s, isMe) {
  if (s.shown) return marked(s.shown.cards, "shown", winningCards(t));
  // the cards the latest event brought this seat slide in (the last `fresh.cards` of them)
  const f = t.fresh && t.fresh.seat === s.seat ? t.fresh.cards : 0;
  const all = s.cards.length + s.up.length;
  const deal = (k) => (k >= all - f ? " deal-in" : "");
  const down = s.cards.map((c, k) => cardHTML(c, isMe ? "hole" : "up",
    (s.state === "folded" ? "dim" : "") + deal(k)));
  const up = s.up.map((c, k) => cardHTML(c, "up", "upcard" + deal(s.cards.length + k)));
  return down.join("") + up.join("");
}

function clockHTML(turn, now) {
  if (!turn || !(Number(turn.deadline) > 0)) return ""; // no deadline known: no "0s" clock
  const left = now ? Math.max(0, Math.ceil(turn.deadline - now)) : null;
  const bank = turn.time_bank != null ? Math.round(turn.time_bank) : null;
  const label = turn.in_bank ? "time bank" : (bank != null ? `+${bank}s bank` : "");
  return `<div class="clock" data-deadline="${esc(turn.deadline)}" data-bank="${turn.in_bank ? 1 : 0}">` +
    `<span class="bar"><span class="fill"></span></span><span class="secs">${left != null ? `${left}s` : ""}</span>` +
    `<span class="bank">${esc(label)}</span></div>`;
}

/** issue 24: a disconnected player's turn ends with the action clock (unless the table's
 * `bank_when_disconnected`): no "+60s bank" under their clock. */
function banked(t, s, turn) {
  if (!turn || !s.disconnected || turn.in_bank || (t.settings && t.settings.bank_when_disconnected)) return turn;
  return { ...turn, time_bank: null };
}

function seatHTML(t, i, opts) {
  const s = t.seats[i];
  const pos = opts.narrow && t.seatCount > 2
    ? seatPositionNarrow(i, t.seatCount, opts.anchor, opts.narrow.w, opts.narrow.h)
    : seatPosition(i, t.seatCount, opts.anchor);
  const style = `left:${pos.x.toFixed(2)}%;top:${pos.y.toFixed(2)}%`;
  const betPos = { x: 50 + (pos.x - 50) * 0.58, y: 50 + (pos.y - 50) * 0.52 };
  const betStyle = `left:${betPos.x.toFixed(2)}%;top:${betPos.y.toFixed(2)}%`;
  if (!s) {
    if (t.homeWait === i && t.you == null) { // my request to sit here waits for the host
      return `<div class="seat empty-seat requested" data-seat="${i}" style="${style}">` +
        `<span class="requested-label" title="waiting for the host">Requested</span></div>`;
    }
    const inner = opts.canSit
      ? `<button type="button" class="sit-btn" data-sit="${i}">Sit here<span class="sr-only"> (seat ${i + 1})</span></button>`
      : `<span class="empty">Seat ${i + 1}</span>`;
    return `<div class="seat empty-seat" data-seat="${i}" style="${style}">${inner}</div>`;
  }
  const isMe = t.you === i;
  const turn = !t.ended && t.turns && t.turns[i] ? t.turns[i] : null;
  const classes = ["seat", `st-${s.state}`];
  if (isMe) classes.push("me");
  if (turn) classes.push("to-act");
  if (t.winners.includes(i)) classes.push("winner");
  const waiting = !s.sittingOut && s.waitsForBigBlind && s.state === "waiting";
  const stateLabel = s.sittingOut ? "Sitting out"
    : (waiting ? "Waits for the big blind" : (STATE_LABELS[s.state] ?? s.state));
  // a losing hand mucked unseen at the showdown says so where a shown hand's name goes
  const mucked = s.mucked && !s.shown && s.state !== "folded";
  if (s.sittingOut) classes.push("sitting-out");
  if (s.disconnected) classes.push("disconnected"); // issue 24: shown at once, for everyone
  const offline = s.disconnected
    ? `<span class="badge offline" title="their connection dropped; the table waits only the action clock">disconnected</span>` : "";
  const action = s.action && !turn ? `<span class="last-action">${esc(s.action.replace("_", " "))}</span>` : "";
  const strength = isMe && !s.shown && opts.handStrength ? liveHandName(t.variant, s.cards, s.up, t.board) : null;
  const shown = s.shown ? `<div class="hand-name">${esc(s.shown.hand)}</div>`
    : mucked ? `<div class="hand-name mucked" title="lost at the showdown, cards not shown">mucked</div>`
    : strength ? `<div class="hand-name mine" data-strength>${esc(strength)}</div>` : "";
  // chips added during a hand (GEN-06) wait for its end: "+2,000 next hand"
  const topup = s.topup ? `<span class="topup" title="added when this hand ends">+${chips(s.topup)} next hand</span>` : "";
  const odd = t.oddChip === i ? `<span class="odd-chip" title="odd chip">+1 odd chip</span>` : "";
  const result = s.result ? resultHTML(s.result) : "";
  const jp = s.jackpot ? `<span class="jp-chip" title="jackpot wager">JP ${chips(s.jackpot)}</span>` : "";
  const button = t.button === i && !["caribbean", "stud5", "stud7"].includes(t.variant)
    ? `<span class="dealer-button" title="dealer button" aria-label="dealer button">D</span>` : "";
  const moved = t.fresh && t.fresh.bet === i ? " chip-in" : ""; // chips just put in
  const won = t.fresh && t.fresh.won && t.fresh.won.includes(i) ? " won" : ""; // chips just won
  const bet = s.bet ? `<div class="bet${moved}" data-bet-seat="${i}" style="${betStyle}">` +
    `<span class="chip-stack" aria-hidden="true"></span><span class="amount">${chips(s.bet)}</span></div>` : "";
  return `<div class="${classes.join(" ")}" data-seat="${i}" style="${style}" role="group" ` +
    `aria-label="Seat ${i + 1}: ${esc(s.name)}${isMe ? " (you)" : ""}${s.bot ? ", bot" : ""}${s.disconnected ? ", disconnected" : ""}${turn ? ", to act" : ""}">` +
    `${cardsBox(s)}${seatCards(t, s, isMe)}</div>` +
    `<div class="plate">${button}<div class="name">${esc(s.name)}${isMe ? " <span class=\"you\">(you)</span>" : ""}</div>${s.guest ? guestBadge(s.tag) : ""}${s.bot ? ' <span class="badge bot" title="a bot: practice only">bot</span>' : ""}${hostBadge(t, i)}${offline}` +
    `<div class="stack${won}" data-stack="${s.stack}">${chips(s.stack)}</div>` +
    `${stateLabel ? `<div class="state">${esc(stateLabel)}</div>` : ""}${action}${topup}${jp}${odd}</div>` +
    `${shown}${result}${clockHTML(banked(t, s, turn), opts.now)}</div>${bet}`;
}

/** The seat's card row: `many` (five or more: they overlap, style.css) and the count (`n7`:
 * how much each overlaps, so seven stud cards fit a phone's seat). */
function cardsBox(s) {
  const n = s.shown ? s.shown.cards.length : s.cards.length + s.up.length;
  return `<div class="cards${n > 4 ? ` many n${Math.min(n, 7)}` : ""}">`;
}

/** A home game's host, marked at their seat for everyone. */
function hostBadge(t, i) {
  if (t.settings && t.settings.practice) return ""; // issue 24: a practice table has no host
  return t.host && t.host.seat === i ? `<span class="badge host-badge" title="runs this home game">Host</span>` : "";
}

function resultHTML(r) {
  const total = (r.ante || 0) + (r.play || 0) + (r.jackpot || 0);
  const cls = total > 0 ? "up" : total < 0 ? "down" : "even";
  const sign = total > 0 ? "+" : total < 0 ? "\u2212" : "";
  return `<div class="result ${cls}">${sign}${chips(Math.abs(total))}</div>`;
}

function centerHTML(t, opts = {}) {
  const parts = [];
  if (t.variant === "caribbean") {
    const d = t.dealer;
    const cards = d ? cardsHTML(d.cards, "board") : cardsHTML([null, null, null, null, null], "board");
    let label = "Dealer";
    if (d && d.hand) label = `Dealer: ${d.hand}${d.qualifies === false ? " — does not qualify" : ""}`;
    parts.push(`<div class="dealer-hand" role="group" aria-label="dealer's cards"><div class="label">${esc(label)}</div>` +
      `<div class="cards">${d ? cards : ""}</div></div>`);
  } else if (t.board.length || ["holdem", "manila", "manila3"].includes(t.variant)) {
    const fresh = t.fresh && t.fresh.board ? t.fresh.board : 0; // the new board cards slide in
    const best = winningCards(t);
    const board = t.board.map((c, k) => cardHTML(c, "board",
      `${c && best.has(c) ? "best" : ""}${k >= t.board.length - fresh ? " deal-in" : ""}`)).join("");
    const twice = t.board2 && t.board2.length; // RIT-03: a board run twice, each labelled
    const label = twice ? `<span class="run-label">1st board</span>` : "";
    parts.push(`<div class="board${twice ? " first-run" : ""}" role="group" aria-label="board">${label}${board}</div>`);
    if (twice) {
      const second = t.board2.map((c) => cardHTML(c, "board")).join("");
      parts.push(`<div class="board second-run" role="group" aria-label="second board (run it twice, house rule)">` +
        `<span class="run-label">2nd board</span>${second}</div>`);
    }
  }
  const pot = potTotal(t);
  if (t.variant !== "caribbean" && (pot > 0 || (!t.ended && !t.winners.length))) { // no "Pot 0" once paid
    parts.push(`<div class="pot" role="group" aria-label="pot">Pot <strong data-pot="${pot}">${chips(pot)}</strong></div>`);
  }
  const pots = t.variant === "caribbean" ? [] : shownPots(t);
  if (pots.length) {
    const chipsHTML = pots.map((p) => {
      const who = p.eligible.map((seat) => t.seats[seat] ? t.seats[seat].name : `Seat ${seat + 1}`);
      const title = who.length ? `Can be won by ${who.join(", ")}` : "";
      const text = p.index === 0 ? `${p.label} ${chips(p.amount)}` : `${p.label}: ${chips(p.amount)}`;
      return `<span class="pot-chip${p.index === 0 ? " main" : " side"}" data-pot-index="${p.index}" ` +
        `data-amount="${p.amount}" data-eligible="${p.eligible.join(",")}" title="${esc(title)}">` +
        `${esc(text)}</span>`;
    }).join("");
    parts.push(`<div class="pots" role="group" aria-label="pots">${chipsHTML}</div>`);
  }
  const result = t.ended && t.announcements.length ? t.announcements
    : opts.lastResult ? opts.lastResult.announcements : null;
  if (result && result.length && t.variant !== "caribbean") { // Caribbean: each seat shows its own
    // one line per pot (every winner, the odd chip), kept up at least RESULT_MS
    parts.push(`<div class="winner-banner" role="status">${result.slice(0, 6).map((a) => `<p>${esc(a)}</p>`).join("")}</div>`);
  }
  return parts.join("");
}

/** The felt's inner HTML. `opts`: {canSit, watch}. */
export function feltHTML(t, opts) {
  const anchor = t.you != null ? t.you : 0;
  const seats = [];
  for (let i = 0; i < t.seatCount; i++) seats.push(seatHTML(t, i, { ...opts, anchor }));
  return `<div class="oval"><div class="center">${centerHTML(t, opts)}</div></div>${seats.join("")}`;
}

export function titleText(t) {
  const game = VARIANT_NAMES[t.variant] || t.variant;
  const structure = t.structure ? `${STRUCTURE_NAMES[t.structure] || t.structure} ` : "";
  return { title: t.name || t.id, meta: `${structure}${game} · ${stakesText(t.variant, t.stakes)}` };
}

/** Refresh every clock under `root` (`now`: server time in Unix seconds). */
const clockTotals = new Map(); // deadline -> seconds left when first seen (the bar's 100%)

export function tickClocks(root, now) {
  for (const el of root.querySelectorAll(".clock[data-deadline]")) {
    const left = Math.max(0, Number(el.dataset.deadline) - now);
    if (!clockTotals.has(el.dataset.deadline)) {
      if (clockTotals.size > 50) clockTotals.clear();
      clockTotals.set(el.dataset.deadline, Math.max(1, left));
    }
    const actionClock = clockTotals.get(el.dataset.deadline);
    const secs = el.querySelector(".secs");
    const text = `${Math.ceil(left)}s`;
    if (secs.textContent !== text) secs.textContent = text;
    const fill = el.querySelector(".fill");
    const frac = Math.max(0, Math.min(1, left / actionClock));
    fill.style.width = `${(frac * 100).toFixed(1)}%`;
    el.classList.toggle("low", left < 8);
  }
}
