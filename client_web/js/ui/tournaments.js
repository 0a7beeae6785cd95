// The tournaments' HTML (issue 27): the lobby's list, the tournament page, the bar above a
// tournament table and the finishing banner.
//
// Rule of this module: functions of plain data to HTML strings; every name and server string
// goes through `esc`; the clock is drawn with its reading (`data-left`, `data-at`) so that the
// page's ticker (js/tournament-page.js) counts it down without a redraw.

import { chips, STRUCTURE_NAMES, VARIANT_NAMES } from "../format.js";
import {
  buyInText, clockLeft, clockText, gameText, levelText, ordinal, PRESETS, resultText,
  STATE_NAMES, tableNumber,
} from "../tournament-format.js";
import { esc } from "./dom.js";

const href = (id) => `#/tournament/${encodeURIComponent(id)}`;

/** The clock of a tournament (level or break), counting down from its reading. */
export function clockHTML(reading, now) {
  if (!reading || reading.left == null) return `<span class="muted">no clock</span>`;
  const left = clockLeft(reading.left, reading.at, now);
  return `<strong class="tourney-clock" data-left="${reading.left}" data-at="${reading.at}">` +
    `${esc(clockText(left))}</strong>`;
}

/** The register / unregister button of a tournament still registering (else ""). */
function entryButton(t, registered) {
  if (t.state !== "registering") return "";
  const named = `<span class="sr-only"> ${esc(t.name)}</span>`;
  return registered
    ? `<button type="button" data-unregister="${esc(t.id)}">Unregister${named}</button>`
    : `<button type="button" class="primary" data-register="${esc(t.id)}">Register${named}</button>`;
}

/** The lobby's Tournaments list (`tournaments` entries); `registered`: the ids this player
 * entered; `errors`: id -> the last refusal in words. */
export function tournamentListHTML(list, registered, errors) {
  if (!list.length) {
    return `<tr><td colspan="6" class="none">No tournaments here yet: create a sit-and-go below.</td></tr>`;
  }
  return list.map((t) => {
    const error = errors[t.id] ? `<p class="error" role="alert">${esc(errors[t.id])}</p>` : "";
    const lock = t.private ? ` <span class="badge">private</span>` : "";
    return `<tr data-tournament="${esc(t.id)}"><th scope="row"><a href="${href(t.id)}">${esc(t.name)}</a>${lock}</th>` +
      `<td>${esc(VARIANT_NAMES[t.game] || t.game)}<span class="structure">${esc(STRUCTURE_NAMES[t.structure] || t.structure)}</span></td>` +
      `<td class="money-cell">${esc(buyInText(t))}<span class="phone-only"> buy-in</span></td>` +
      `<td class="entrants-cell"><span class="entrants">${chips(t.entrants)}/${chips(t.capacity)}</span><span class="phone-only"> players</span></td>` +
      `<td class="state-cell"><span class="tstate ${esc(t.state)}">${esc(STATE_NAMES[t.state] || t.state)}</span></td>` +
      `<td class="go"><div class="go-btns">${entryButton(t, registered.has(t.id))}` +
      `<a class="btn" href="${href(t.id)}">Open<span class="sr-only"> ${esc(t.name)}</span></a></div>${error}</td></tr>`;
  }).join("");
}

/** The create form's selects: games, structures, presets. */
export function createFormOptions(games, structures, structureNames) {
  return {
    games: games.map((g) => `<option value="${g}">${esc(VARIANT_NAMES[g] || g)}</option>`).join(""),
    structures: structures.map((s) => `<option value="${s}"${s === "no_limit" ? " selected" : ""}>` +
      `${esc(structureNames[s] || s)}</option>`).join(""),
    presets: Object.entries(PRESETS).map(([k, v]) => `<option value="${k}">${esc(v)}</option>`).join(""),
  };
}

function stat(label, value, cls = "") {
  return `<div class="stat ${cls}"><dt>${esc(label)}</dt><dd>${value}</dd></div>`;
}

function youHTML(t, result) {
  const you = t.you;
  if (!you || !you.entered) return "";
  if (t.state === "registering") return stat("You", "in: waiting for the start", "you");
  const place = you.place ?? (result ? result.place : null);
  if (place != null) {
    const prize = you.prize ?? (result ? result.prize : null);
    return stat("Your place", `${esc(ordinal(place))} of ${chips(t.entrants)}`, "you") +
      stat("Your prize", prize == null ? "not fixed yet" : prize > 0 ? `${chips(prize)} chips` : "no prize", "you");
  }
  const where = you.table ? ` <a href="#/table/${encodeURIComponent(you.table)}">table ${tableNumber(you.table) ?? ""}</a>` : "";
  return stat("Your stack", you.stack == null ? "\u2014" : `${chips(you.stack)}${where}`, "you") +
    stat("Your place", t.state === "running" ? `still in (${chips(t.players_left)} left)` : "\u2014", "you");
}

function rowsOrNone(rows, cols, none) {
  return rows || `<tr><td colspan="${cols}" class="none">${esc(none)}</td></tr>`;
}

/** The tournament page's body from a `tournament` message; `reading`: its clock, `now` ms;
 * `ctx`: {registered, result, error, inviteUrl}. */
export function tournamentPageHTML(t, reading, now, ctx) {
  const over = t.state === "finished" || t.state === "cancelled";
  const lvl = t.on_break ? "On a break" : t.level ? esc(levelText(t.level, t.game)) : "Not started";
  const next = t.next_level ? esc(levelText(t.next_level, t.game)) : "\u2014";
  const payouts = rowsOrNone((t.payouts || []).map(([place, amount]) =>
    `<tr><th scope="row">${esc(ordinal(place))}</th><td>${chips(amount)}</td></tr>`).join(""), 2,
  "The payouts are fixed when it starts.");
  const places = rowsOrNone((t.places || []).map(([place, name, prize]) =>
    `<tr><th scope="row">${esc(ordinal(place))}</th><td>${esc(name)}</td><td>${prize ? chips(prize) : "\u2014"}</td></tr>`).join(""),
  3, "Nobody is out yet.");
  const tables = rowsOrNone((t.tables || []).map(([id, players]) =>
    `<tr><th scope="row"><a href="#/table/${encodeURIComponent(id)}/watch">Table ${tableNumber(id) ?? esc(id)}</a></th>` +
    `<td>${chips(players)} players</td></tr>`).join(""), 2, "No tables in play.");
  const buttons = [];
  if (t.state === "registering") buttons.push(entryButton(t, ctx.registered));
  if (t.you && t.you.rebuy) buttons.push(`<button type="button" class="primary" data-rebuy="${esc(t.id)}">Rebuy</button>`);
  if (t.you && t.you.add_on) buttons.push(`<button type="button" class="primary" data-add-on="${esc(t.id)}">Add-on</button>`);
  if (t.invite && t.state === "registering") {
    buttons.push(`<button type="button" class="danger" data-cancel="${esc(t.id)}">Cancel the tournament</button>`);
  }
  const invite = ctx.inviteUrl
    ? `<div class="invite-row"><label for="tourney-invite">Invite link (private)</label>` +
      `<input id="tourney-invite" readonly value="${esc(ctx.inviteUrl)}"></div>` : "";
  const won = t.state === "finished" && t.places && t.places.length
    ? `<p class="tourney-winner">Won by <strong>${esc(t.places[0][1])}</strong>` +
      `${t.places[0][2] ? `: ${chips(t.places[0][2])} chips` : ""}</p>` : "";
  return `<div class="tourney-head"><h1 id="tourney-title">${esc(t.name)}</h1>` +
    `<p class="muted">${esc(gameText(t))} \u00b7 buy-in ${esc(buyInText(t))} \u00b7 ` +
    `<span class="tstate ${esc(t.state)}">${esc(STATE_NAMES[t.state] || t.state)}</span></p></div>` +
    won + (t.state === "registering" && t.kind === "sng"
      ? `<p class="muted">It starts as soon as ${chips(t.capacity)} players have registered.</p>` : "") +
    (t.state === "registering" && t.starts_at
      ? `<p class="muted">It starts at ${esc(new Date(t.starts_at * 1000).toLocaleString())}.</p>` : "") +
    (ctx.result ? `<p class="tourney-you">${esc(resultText(ctx.result))}</p>` : "") +
    `<dl class="tourney-stats">` + (over ? stat("Entrants", chips(t.entrants)) :
      t.state === "registering" ? stat("Registered", `${chips(t.entrants)} / ${chips(t.capacity)}`) +
      stat("Starting stack", chips(t.starting_stack)) + stat("First level", next, "wide") :
      stat(t.on_break ? "Break" : "Level", lvl, "wide") +
      stat(t.on_break ? "Break ends in" : "Level ends in", clockHTML(reading, now)) +
      stat("Players left", `${chips(t.players_left)} / ${chips(t.entrants)}`) +
      stat("Next level", next, "wide") +
      stat("Average stack", chips(t.average_stack))) +
    stat("Prize pool", chips(t.pool)) +
    youHTML(t, ctx.result) + `</dl>` +
    (buttons.length ? `<div class="buttons tourney-buttons">${buttons.join("")}</div>` : "") +
    (ctx.error ? `<p class="error" role="alert">${esc(ctx.error)}</p>` : "") + invite +
    `<div class="tourney-tables">` +
    `<section aria-labelledby="tp-pay"><h2 id="tp-pay">Payouts</h2><table class="mini"><tbody>${payouts}</tbody></table></section>` +
    `<section aria-labelledby="tp-places"><h2 id="tp-places">Places</h2><table class="mini places"><tbody>${places}</tbody></table></section>` +
    `<section aria-labelledby="tp-tables"><h2 id="tp-tables">Tables</h2><table class="mini"><tbody>${tables}</tbody></table></section>` +
    `</div>`;
}

/** The bar above a tournament table: the tournament, its level and clock, a link back, and
 * why the player was moved here (`notice`, TOUR-06/08), if they were, while it goes on. */
export function tourneyBarHTML(tid, t, reading, now, notice) {
  const name = t ? esc(t.name) : "The tournament";
  const over = t && (t.state === "finished" || t.state === "cancelled");
  let line = "";
  if (over) {
    line = t.state === "finished" && t.places && t.places.length
      ? `Finished: won by ${esc(t.places[0][1])}` : esc(STATE_NAMES[t.state]);
  } else if (t) {
    const lvl = t.on_break ? "On a break" : t.level ? esc(levelText(t.level, t.game)) : "";
    const clock = reading && reading.left != null ? ` \u00b7 ${clockHTML(reading, now)}` : "";
    line = `${lvl}${clock} \u00b7 ${chips(t.players_left)} of ${chips(t.entrants)} left`;
  }
  return `<a class="btn" href="${href(tid)}">${name}: standings</a>` +
    `<span class="tourney-level">${line}</span>` +
    (notice && !over ? `<span class="moved" role="status">${esc(notice)}</span>` : "");
}

/** The finishing banner of a `tournament_result`. */
export function resultBannerHTML(result, name) {
  return `<p class="big">${esc(resultText(result))}</p>` +
    `<p><a class="btn" href="${href(result.tournament)}">${esc(name || "The tournament")}: results</a>` +
    `<button type="button" data-dismiss-result="${esc(result.tournament)}">Close</button></p>`;
}
