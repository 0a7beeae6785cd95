// The host panel of a home game and what the players of one see: the invite link, the seat
// requests (notifications with Approve / Refuse), pause and resume, the players (remove, hand
// the host role on), the session ledger, and the lines "Home game · hosted by …",
// "Waiting for the host to let you in", "The host did not seat you".
//
// Rule of this module: HTML strings from plain data (no document access but through dom.js
// helpers in the page code); every name and server string goes through `esc`.

import { chips } from "../format.js";
import {
  homeLabel, hostStakeFields, houseRuleFor, houseRulesText, ledgerView, nextText, signed, stakeValue,
} from "../home.js";
import { esc } from "./dom.js";

/** The seat requests waiting, as notifications (the host's page only). */
export function requestsHTML(t) {
  const host = t && t.host;
  if (!host || !host.you || !host.requests.length) return "";
  return host.requests.map((r) => {
    const who = esc(r.name || r.player);
    // issue 24: a request whose seat was taken meanwhile says where an approval seats them
    const full = r.taken === true && r.offer == null;
    const moved = r.taken !== true ? ""
      : full ? ` <span class="request-note">Seat ${Number(r.seat) + 1} was taken meanwhile and no seat is free now.</span>`
        : ` <span class="request-note">Seat ${Number(r.seat) + 1} was taken meanwhile: Approve seats ${who} at seat ${Number(r.offer) + 1}.</span>`;
    return `<div class="seat-request" role="group" aria-label="Seat request from ${who}">` +
      `<p><strong>${who}</strong> asks to sit at seat ${Number(r.seat) + 1} with ${chips(r.buy_in)}.${moved}</p>` +
      `<div class="buttons"><button type="button" class="primary" data-approve="${esc(r.player)}"${full ? " disabled" : ""}>Approve<span class="sr-only"> ${who}</span></button>` +
      `<button type="button" data-refuse="${esc(r.player)}">Refuse<span class="sr-only"> ${who}</span></button></div></div>`;
  }).join("");
}

/** "Home game · hosted by Ann" and "Paused by the host" for everyone at a private table. */
/** issue 24: the mark of a practice table (play money, against bots). */
export function practiceStatusHTML() {
  return `<span class="badge home practice" title="play money: your balance never moves">Practice \u00b7 play money</span>`;
}

export function homeStatusHTML(t) {
  const host = t && t.host;
  if (!host) return "";
  const paused = host.paused ? ` <span class="badge paused" role="status">Paused by the host</span>` : "";
  const rules = houseRulesText(t.settings);
  const house = rules ? ` <span class="badge house-rules">${esc(rules)}</span>` : "";
  return `<span class="badge home">${esc(homeLabel(host))}</span>${house}${paused}`;
}

const NOTE_TEXT = {
  removed: "The host removed you from this game. Your chips are back in your balance.",
  refused: "The host did not seat you.",
  now_host: "You are now the host. Your host controls are open.",
};

/** The line under the table for a player of a home game: waiting, refused, removed. */
export function homeNoteText(t, plain) {
  if (!t) return "";
  if (t.homeWait != null) return "Waiting for the host to let you in\u2026";
  const note = t.homeNote;
  if (!note) return "";
  if (note.kind === "refused" && note.reason) return `The host did not seat you: ${plain({ code: note.reason })}`;
  if (note.kind === "was_host") return note.name ? `${note.name} is now the host.` : "You are no longer the host.";
  return NOTE_TEXT[note.kind] || "";
}

/** The game block: running or paused, with the button that switches it. */
export function gameHTML(t) {
  const host = t.host;
  const state = host.paused
    ? `<p class="host-state paused" role="status">Paused: the next hand waits for the host.</p>`
    : `<p class="host-state" role="status">Running: hands follow one another.</p>`;
  const button = host.paused
    ? `<button type="button" class="primary" data-host="resume">Resume the game</button>`
    : `<button type="button" data-host="pause">Pause the game</button>`;
  return `${state}<div class="buttons">${button}</div>`;
}

/** The seated players, each with Remove and "Make host" (not the host's own seat). */
export function playersHTML(t) {
  const rows = [];
  t.seats.forEach((s, i) => {
    if (!s) return;
    const me = t.you === i;
    const name = esc(s.name);
    const tools = me ? `<span class="muted">you (host)</span>`
      : `<button type="button" data-host-remove="${i}" data-name="${name}">Remove<span class="sr-only"> ${name}</span></button>` +
        `<button type="button" data-host-transfer="${i}" data-name="${name}">Make host<span class="sr-only"> ${name}</span></button>`;
    rows.push(`<li><span class="who"><strong>${name}</strong> <span class="muted">seat ${i + 1} \u00b7 ${chips(s.stack)}</span></span>` +
      `<span class="tools">${tools}</span></li>`);
  });
  if (!rows.length) return `<p class="muted">Nobody sits yet.</p>`;
  return `<ul class="host-players">${rows.join("")}</ul>` +
    `<p class="muted">A removed player leaves at the end of the hand; their chips go back to their balance.</p>`;
}

function numberField(name, label, value, extra = "") {
  return `<label>${esc(label)}<input type="number" name="${name}" min="0" step="1" inputmode="numeric" value="${esc(value)}"${extra}></label>`;
}

/** The fields of the "stakes and settings" form, filled with the table's values now. */
export function changeFieldsHTML(t) {
  const s = t.settings || {};
  const stakes = hostStakeFields(t.variant, t.stakes).map(([field, label]) =>
    numberField(field, label, stakeValue(t.stakes, field))).join("");
  const rebuys = t.host ? t.host.rebuys : s.rebuys !== false;
  const approve = t.host ? t.host.approveSeats : !!s.approve_seats;
  return stakes +
    numberField("action_clock", "Action clock (seconds)", s.action_clock ?? "", ` placeholder="default"`) +
    numberField("pause", "Pause between hands (seconds)", s.pause ?? "", ` placeholder="default"`) +
    numberField("starting_stack", "Starting stack", s.starting_stack ?? "", ` placeholder="any buy-in"`) +
    `<label class="check"><input type="checkbox" name="rebuys"${rebuys ? " checked" : ""}> Allow rebuys</label>` +
    `<label class="check"><input type="checkbox" name="approve_seats"${approve ? " checked" : ""}> Approve each player</label>` +
    houseRuleFieldsHTML(t.variant, s);
}

/** The house rules' checkboxes (docs/rules.md section 4), where the game has them. */
export function houseRuleFieldsHTML(variant, s) {
  const box = (name, label, hint) => !houseRuleFor(name, variant) ? "" :
    `<label class="check"><input type="checkbox" name="${name}"${s[name] === true ? " checked" : ""}> ${label} ` +
    `<span class="badge house-rule">house rule</span><small class="field-hint">${hint}</small></label>`;
  return box("straddle", "Straddle", "the player left of the big blind may post double the big blind before the deal") +
    box("run_twice", "Run it twice", "when everyone is all-in, the rest of the board is dealt twice if all agree; each board wins half the pot") +
    box("show_uncontested", "Show after everyone folds", "the winner of a hand nobody called may show their cards");
}

/** What the next hand will use, when the host changed it. */
export function pendingHTML(t) {
  const text = t.host && t.host.next ? nextText(t.host.next, t) : "";
  return text ? `<p class="host-next" role="status">${esc(text)}</p>` : "";
}

/** The session ledger: one row per player who sat, the house, and the totals. */
export function ledgerHTML(rows, caption = "Session ledger") {
  if (!rows) return `<p class="muted">Loading the ledger\u2026</p>`;
  const view = ledgerView(rows);
  if (!view.rows.length) return `<p class="muted">Nobody has bought in yet.</p>`;
  const cell = (n) => `<td>${chips(n)}</td>`;
  const body = view.rows.map((r) =>
    `<tr${r.house ? ` class="house"` : ""}><th scope="row">${esc(r.name)}</th>${cell(r.buy_ins)}${cell(r.rebuys)}` +
    `${cell(r.cash_outs)}${cell(r.at_table)}<td class="net ${r.net > 0 ? "up" : r.net < 0 ? "down" : ""}">${signed(r.net)}</td></tr>`).join("");
  const tot = view.totals;
  return `<div class="ledger-scroll"><table class="ledger"><caption class="sr-only">${esc(caption)}</caption>` +
    `<thead><tr><th scope="col">Player</th><th scope="col">Buy-ins</th><th scope="col">Rebuys</th>` +
    `<th scope="col">Cash-outs</th><th scope="col">At table</th><th scope="col">Net</th></tr></thead>` +
    `<tbody>${body}</tbody><tfoot><tr><th scope="row">Total</th>${cell(tot.buy_ins)}${cell(tot.rebuys)}` +
    `${cell(tot.cash_outs)}${cell(tot.at_table)}<td class="net">${signed(tot.net)}</td></tr></tfoot></table></div>`;
}

/** The confirmation asked before removing, handing on the host role, or closing. */
export function confirmHTML(ask) {
  if (!ask) return "";
  return `<div class="host-confirm" role="alertdialog" aria-labelledby="host-confirm-text">` +
    `<p id="host-confirm-text">${esc(ask.text)}</p><div class="buttons">` +
    `<button type="button" class="danger" data-confirm="yes">${esc(ask.yes)}</button>` +
    `<button type="button" data-confirm="no">Cancel</button></div></div>`;
}
