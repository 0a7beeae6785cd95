// The lobby: who you are (guest name, or log in / register when the server offers it), the
// list of tables (live), and the form that creates a table of any variant and structure.

import { STRUCTURES, VARIANTS } from "../../protocol.js";
import { chips, jackpotTermsText, rakeText, stakesText, STRUCTURE_NAMES, VARIANT_NAMES } from "../format.js";
import { createProblems, defaultBuyIns, MAX_SEATS, MIN_SEATS, tableSettings } from "../create-rules.js";
import { homeCreateFields } from "../home.js";
import { $, esc } from "./dom.js";

/** The rows of the table list. */
export function tableListHTML(tables, me) {
  if (!tables.length) {
    return `<tr><td colspan="6" class="none">No tables yet: create the first one below.</td></tr>`;
  }
  return tables.map((t) => {
    const game = VARIANT_NAMES[t.variant] || t.variant;
    const structure = t.structure ? STRUCTURE_NAMES[t.structure] || t.structure : "";
    const full = t.players >= t.seats;
    const id = encodeURIComponent(t.table);
    const named = `<span class="sr-only"> ${esc(t.name || t.table)}</span>`; // each link names its table
    return `<tr data-table="${esc(t.table)}"><th scope="row">${esc(t.name || t.table)}</th>` +
      `<td>${esc(game)}<span class="structure">${esc(structure)}</span></td>` +
      `<td class="stakes-cell">${esc(stakesText(t.variant, t.stakes))}` +
      `<span class="house">${esc(houseText(t))}</span></td>` +
      `<td class="players-cell"><span class="seats-count">${t.players}/${t.seats}</span><span class="phone-only"> seated</span></td>` +
      `<td class="watching-cell">${t.spectators}<span class="phone-only"> watching</span></td>` +
      `<td class="go"><div class="go-btns"><a class="btn primary" href="#/table/${id}">${full ? "Open" : "Join"}${named}</a>` +
      `<a class="btn" href="#/table/${id}/watch">Watch${named}</a></div></td></tr>`;
  }).join("");
}

/** What the house takes at a table and, at Caribbean tables, the jackpot terms (GEN-10). */
export function houseText(t) {
  if (t.variant === "caribbean") return t.jackpot_terms ? jackpotTermsText(t.jackpot_terms) : "";
  return rakeText(t);
}

// The jackpot wager is the house's (CSP-13): the form offers only the ante limits.
const STAKE_FIELDS = {
  sb: ["Small blind", 50], bb: ["Big blind", 100], ante: ["Ante", 10], bring_in: ["Bring-in", 25],
  small_bet: ["Small bet", 100], big_bet: ["Big bet", 200], min_bet: ["Min bet", 100],
  max_bet: ["Max bet", 400], min: ["Min ante", 100], max: ["Max ante", 1000],
};

/** Which stake fields the form shows for a variant and structure. */
export function stakeFieldsFor(variant, structure) {
  if (variant === "caribbean") return ["min", "max"];
  const fields = variant.startsWith("stud") ? ["ante", "bring_in"] : ["sb", "bb"];
  if (structure === "fixed_limit") fields.push("small_bet", "big_bet");
  if (structure === "spread_limit") fields.push("min_bet", "max_bet");
  return fields;
}

/** The `create_table` request fields from the form's values. */
export function createRequest(values) {
  const variant = values.variant;
  const stakes = {};
  const n = (k) => Math.max(0, Math.round(Number(values[k]) || 0));
  for (const f of stakeFieldsFor(variant, values.structure)) {
    if (f === "sb" || f === "bb") continue;
    stakes[f] = n(f);
  }
  if (!variant.startsWith("stud") && variant !== "caribbean") stakes.blinds = [n("sb"), n("bb")];
  const req = { variant, stakes, seats: Math.round(Number(values.seats) || 6) };
  if (variant !== "caribbean") req.structure = values.structure;
  if (values.name && values.name.trim()) req.name = values.name.trim();
  const home = homeCreateFields(values); // a private (home) game: invite only
  const settings = { ...tableSettings(values), ...(home.settings || {}) };
  if (Object.keys(settings).length) req.settings = settings;
  if (home.private) req.private = true;
  return req;
}

/** issue 24: the `create_table` of a practice table against `bots` bots at `variant`,
 * on the create form's default stakes (play money), and the buy-in to sit with (the
 * table's default maximum). Caribbean Stud may have no bot: the player alone against the
 * dealer. */
export function practiceRequest(variant, bots) {
  const values = { variant, structure: variant.startsWith("stud") ? "fixed_limit" : "no_limit" };
  for (const [k, [, v]] of Object.entries(STAKE_FIELDS)) values[k] = String(v);
  const least = variant === "caribbean" ? 0 : 1;
  const n = Math.min(Math.max(least, Math.round(Number(bots) || 0)), (MAX_SEATS[variant] || 10) - 1);
  const base = createRequest({ ...values, seats: String(Math.max(n + 1, MIN_SEATS[variant] || 2)) });
  return { request: { ...base, practice: true, bots: n }, buyIn: defaultBuyIns(values).max };
}

export function lobbyFormsHTML() {
  const variants = VARIANTS.map((v) => `<option value="${v}">${esc(VARIANT_NAMES[v] || v)}</option>`).join("");
  const structures = STRUCTURES.map((s) => `<option value="${s}"${s === "no_limit" ? " selected" : ""}>${esc(STRUCTURE_NAMES[s] || s)}</option>`).join("");
  const stakeInputs = Object.entries(STAKE_FIELDS).map(([k, [label, v]]) =>
    `<label class="stake" data-stake="${k}">${esc(label)}<input type="number" name="${k}" min="0" step="1" value="${v}" inputmode="numeric" aria-describedby="problem-${k}">` +
    `<small class="field-problem" id="problem-${k}" data-for="${k}" hidden></small></label>`).join("");
  return { variants, structures, stakeInputs };
}

/** Show only the stake fields that the chosen variant and structure use. */
export function syncCreateForm(form) {
  const variant = form.elements.variant.value;
  const structureLabel = $("#structure-label", form);
  structureLabel.hidden = variant === "caribbean";
  if (variant.startsWith("stud") && form.elements.structure.value === "no_limit" && !form.dataset.touched) {
    form.elements.structure.value = "fixed_limit";
  }
  const shown = new Set(stakeFieldsFor(variant, form.elements.structure.value));
  for (const label of form.querySelectorAll("[data-stake]")) label.hidden = !shown.has(label.dataset.stake);
  const seats = form.elements.seats;
  const max = MAX_SEATS[variant] || 10;
  const min = MIN_SEATS[variant] || 2;
  seats.max = String(max);
  seats.min = String(min);
  if (Number(seats.value) > max) seats.value = String(max); // a game change: its own maximum
  const home = $("#home-settings", form);
  if (home) home.hidden = !form.elements.private.checked;
  return showProblems(form);
}

/** The form's values as FormData gives them (a hidden field's too). */
export function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

/** Each problem in plain words under its field, the field marked invalid, the button off
 * while any remains; the buy-in placeholders show the server's defaults. Returns the problems. */
export function showProblems(form) {
  const values = formValues(form);
  const problems = createProblems(values);
  const defaults = defaultBuyIns(values);
  const fixedStack = !!values.private && String(values.starting_stack || "").trim() !== "";
  for (const [key, value] of [["min_buy_in", defaults.min], ["max_buy_in", defaults.max]]) {
    const input = form.elements[key];
    if (!input) continue;
    input.placeholder = value > 0 ? value.toLocaleString("en-US") : "";
    input.disabled = fixedStack;
  }
  for (const input of form.querySelectorAll("input, select")) {
    if (!input.name) continue;
    const hint = form.querySelector(`.field-problem[data-for="${input.name}"]`);
    const text = problems[input.name] || "";
    const label = input.closest("label");
    const visible = !!text && !(label && label.hidden);
    if (visible) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    if (hint) { hint.textContent = visible ? text : ""; hint.hidden = !visible; }
  }
  const button = form.querySelector("[type='submit']");
  const blocking = Object.keys(problems).filter((k) => {
    const input = form.elements[k];
    const label = input && input.closest ? input.closest("label") : null;
    return !(label && label.hidden);
  });
  if (button) {
    button.disabled = blocking.length > 0;
    button.title = blocking.length ? "Fix the fields marked above first" : "";
  }
  return problems;
}

export function meHTML(me) {
  if (!me) return "";
  const badge = me.guest ? ' <span class="badge guest" title="guest account">guest</span>' : "";
  return `<span class="who">${esc(me.name)}</span>${badge} <span class="balance" title="chips off the tables">${chips(me.balance)}</span>` +
    ' <button type="button" id="logout-btn" class="small" title="revoke this session">Log out</button>';
}
