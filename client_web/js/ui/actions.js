// The action bar: exactly what the server's `options` offer in this turn, nothing more.
// Bet/raise: a slider and a number input that cannot leave [min, max], quick sizes (min,
// half pot, pot, all-in) when they are legal; the draw: pick the cards to discard; stud:
// bring-in or complete; Caribbean Stud: the ante (with the jackpot wager) and fold/play.
// Draw's over blind (BLIND-04): post it or not, before the deal.
// Keyboard: f fold, c check/call, r bet/raise, b bring-in, m complete, d draw, a ante,
// p play, o over blind, n no over blind (ignored while typing in a text field).

import { chips } from "../format.js";
import { maxBet, potTotal } from "../state.js";
import { cardHTML } from "./cards.js";
import { $, $$, esc } from "./dom.js";

/** The slider's step: the table's small unit (small blind, small bet, ...), not 1 chip. */
export function sliderStep(t, range) {
  const st = (t && t.stakes) || {};
  const unit = Array.isArray(st.blinds) && st.blinds.length ? st.blinds[0]
    : st.small_bet || st.min_bet || st.bring_in || st.ante || 1;
  const span = range.max - range.min;
  return Math.max(1, Math.min(Math.round(unit) || 1, span > 0 ? span : 1));
}

export function clamp(value, lo, hi) {
  const n = Math.round(Number(value));
  if (!Number.isFinite(n)) return lo;
  return Math.min(hi, Math.max(lo, n));
}

/** Quick "raise to" sizes within [min, max]: [{label, amount}], distinct amounts. */
export function quickSizes(t, options, kind) {
  const range = options[kind];
  if (!range) return [];
  const me = t.seats[t.you];
  const top = maxBet(t);
  const toCall = Math.max(0, top - (me ? me.bet : 0));
  const pot = potTotal(t);
  const sizes = [{ label: "Min", amount: range.min }];
  for (const [label, frac] of [["½ pot", 0.5], ["Pot", 1]]) {
    sizes.push({ label, amount: Math.round(top + frac * (pot + toCall)) });
  }
  const allIn = me ? me.bet + me.stack : range.max;
  sizes.push({ label: range.max === allIn ? "All-in" : "Max", amount: range.max });
  const seen = new Set();
  return sizes.filter((s) => {
    if (s.amount < range.min || s.amount > range.max || seen.has(s.amount)) return false;
    seen.add(s.amount);
    return true;
  });
}

/** BLIND-04: the over blind's question before the deal: post it (its exact amount) or not.
 * At a home game with the straddle on (STRAD-01) the same question is the straddle. */
function overBlindHTML(o) {
  if (o.straddle) {
    return `<p class="hint" id="over-blind-hint"><span class="badge house-rule">house rule</span> You may straddle: post ${chips(o.over_blind)} (double the big blind) before the deal; the first round then starts on your left and you act last.</p>` +
      `<div class="buttons" role="group" aria-describedby="over-blind-hint">` +
      `<button type="button" class="act decline" data-act="decline" aria-keyshortcuts="n">No straddle <kbd>N</kbd></button>` +
      `<button type="button" class="act over-blind" data-act="over_blind" aria-keyshortcuts="o">Straddle ${chips(o.over_blind)} <kbd>O</kbd></button></div>`;
  }
  return `<p class="hint" id="over-blind-hint">You may post an over blind of ${chips(o.over_blind)} (double the big blind) before the deal; the first round then starts on your left.</p>` +
    `<div class="buttons" role="group" aria-describedby="over-blind-hint">` +
    `<button type="button" class="act decline" data-act="decline" aria-keyshortcuts="n">No over blind <kbd>N</kbd></button>` +
    `<button type="button" class="act over-blind" data-act="over_blind" aria-keyshortcuts="o">Post over blind ${chips(o.over_blind)} <kbd>O</kbd></button></div>`;
}

/** RIT-02 (a home game's house rule): everyone still in is all-in; run the rest of the board
 * twice? Every player must agree; no answer is no. */
function runTwiceHTML() {
  return `<p class="hint" id="run-twice-hint"><span class="badge house-rule">house rule</span> No more betting: run the rest of the board twice? Each board wins half the pot; it is run twice only if every player agrees.</p>` +
    `<div class="buttons" role="group" aria-describedby="run-twice-hint">` +
    `<button type="button" class="act decline" data-act="run_once" aria-keyshortcuts="n">Run it once <kbd>N</kbd></button>` +
    `<button type="button" class="act run-twice" data-act="run_twice" aria-keyshortcuts="y">Run it twice <kbd>Y</kbd></button></div>`;
}

/** SHOWWIN-01 (a home game's house rule): everyone folded to you; show your cards or not. */
function showHTML() {
  return `<p class="hint" id="show-hint"><span class="badge house-rule">house rule</span> Everyone folded: you win. Show your cards to the table? Nobody sees them unless you do.</p>` +
    `<div class="buttons" role="group" aria-describedby="show-hint">` +
    `<button type="button" class="act decline" data-act="muck" aria-keyshortcuts="n">Don't show <kbd>N</kbd></button>` +
    `<button type="button" class="act show" data-act="show" aria-keyshortcuts="s">Show cards <kbd>S</kbd></button></div>`;
}

function potGameHTML(t, o) {
  const buttons = [];
  if (o.fold) buttons.push(`<button type="button" class="act fold" data-act="fold" aria-keyshortcuts="f">Fold <kbd>F</kbd></button>`);
  if (o.check) buttons.push(`<button type="button" class="act check" data-act="check" aria-keyshortcuts="c">Check <kbd>C</kbd></button>`);
  if (o.call != null && o.call !== false) {
    const inc = o.to_call ?? o.call;
    buttons.push(`<button type="button" class="act call" data-act="call" aria-keyshortcuts="c">Call ${chips(inc)} <kbd>C</kbd></button>`);
  }
  if (o.bring_in != null && o.bring_in !== false) {
    buttons.push(`<button type="button" class="act bring-in" data-act="bring_in" aria-keyshortcuts="b">Bring in ${chips(o.bring_in)} <kbd>B</kbd></button>`);
  }
  if (o.complete != null && o.complete !== false) {
    buttons.push(`<button type="button" class="act complete" data-act="complete" data-amount="${o.complete}" aria-keyshortcuts="m">Complete to ${chips(o.complete)} <kbd>M</kbd></button>`);
  }
  let sizing = "";
  const kind = o.raise ? "raise" : o.bet ? "bet" : null;
  if (kind) {
    const r = o[kind];
    const fixed = r.min === r.max;
    const me = t.seats[t.you];
    const allIn = me ? me.bet + me.stack : null;
    // the only size left is the whole stack: say so ("All-in"), not "Raise to"
    const verb = fixed && r.max === allIn ? "All-in" : kind === "raise" ? "Raise to" : "Bet";
    const step = sliderStep(t, r);
    const quick = fixed ? "" : quickSizes(t, o, kind).map((q) =>
      `<button type="button" class="quick" data-quick="${q.amount}">${esc(q.label)}</button>`).join("");
    sizing = `<div class="sizing">` +
      (fixed ? "" : `<label class="sr-only" for="amount-range">${verb} amount (slider)</label>` +
        `<input type="range" id="amount-range" min="${r.min}" max="${r.max}" step="${step}" value="${r.min}">` +
        `<label class="sr-only" for="amount">${verb} amount</label>` +
        `<input type="number" id="amount" inputmode="numeric" min="${r.min}" max="${r.max}" step="1" value="${r.min}">` +
        `<div class="quick-sizes">${quick}</div>`) +
      `</div>`;
    buttons.push(`<button type="button" class="act raise" data-act="${kind}" data-min="${r.min}" data-max="${r.max}" aria-keyshortcuts="r">` +
      `${verb} <span class="raise-amount">${chips(r.min)}</span> <kbd>R</kbd></button>`);
  }
  return `${sizing}<div class="buttons">${buttons.join("")}</div>`;
}

function drawHTML(t, o) {
  const me = t.seats[t.you];
  const cards = (me ? me.cards : []).map((c) => c ? `<button type="button" class="pick" data-pick="${esc(c)}" aria-pressed="false">${cardHTML(c, "hole")}</button>` : "").join("");
  return `<p class="hint" id="draw-hint">Pick up to ${o.draw.max} card${o.draw.max === 1 ? "" : "s"} to discard.</p>` +
    `<div class="picks" role="group" aria-describedby="draw-hint">${cards}</div>` +
    `<div class="buttons"><button type="button" class="act draw" data-act="draw" data-max="${o.draw.max}" aria-keyshortcuts="d">Stand pat <kbd>D</kbd></button></div>`;
}

function caribbeanHTML(t, o) {
  if (o.ante) {
    const jp = o.jackpot;
    return `<div class="sizing"><label for="ante-amount">Ante</label>` +
      `<input type="number" id="ante-amount" inputmode="numeric" min="${o.ante.min}" max="${o.ante.max}" step="1" value="${o.ante.min}">` +
      (jp ? `<label class="jp-toggle"><input type="checkbox" id="jackpot-wager"> Jackpot wager ${chips(jp.wager)}</label>` : "") +
      `</div><div class="buttons"><button type="button" class="act ante" data-act="ante" data-min="${o.ante.min}" data-max="${o.ante.max}" aria-keyshortcuts="a">Ante <kbd>A</kbd></button>` +
      (o.sit_out ? `<button type="button" class="act" data-act="fold" aria-keyshortcuts="f">Skip this round <kbd>F</kbd></button>` : "") + `</div>`;
  }
  if (o.sit_out) {
    return `<p class="hint">Your stack does not cover the minimum ante and the play bet.</p>` +
      `<div class="buttons"><button type="button" class="act" data-act="fold">Skip this round</button></div>`;
  }
  if (o.play != null) {
    return `<div class="buttons"><button type="button" class="act fold" data-act="fold" aria-keyshortcuts="f">Fold <kbd>F</kbd></button>` +
      `<button type="button" class="act play" data-act="play" aria-keyshortcuts="p">Play ${chips(o.play)} <kbd>P</kbd></button></div>`;
  }
  return "";
}

/** The action bar's HTML for the viewer's turn (empty when it is not their turn). */
export function actionsHTML(t) {
  const turn = t && t.turn;
  if (!turn || t.you == null || turn.seat !== t.you || !turn.options || t.ended) return "";
  const o = turn.options;
  let body;
  if (t.variant === "caribbean") body = caribbeanHTML(t, o);
  else if (o.over_blind != null && o.over_blind !== false) body = overBlindHTML(o);
  else if (o.run_twice) body = runTwiceHTML();
  else if (o.show) body = showHTML();
  else if (o.draw) body = drawHTML(t, o);
  else body = potGameHTML(t, o);
  return `<h2 class="your-turn">Your turn</h2>${body}`;
}

/** Wire the bar once: `send(action, fields)` sends an `act`. */
export function bindActions(root, send) {
  const setAmount = (value) => {
    const btn = $(".act.raise", root);
    if (!btn) return;
    const v = clamp(value, Number(btn.dataset.min), Number(btn.dataset.max));
    const range = $("#amount-range", root);
    const num = $("#amount", root);
    if (range) range.value = String(v);
    if (num && Number(num.value) !== v) num.value = String(v);
    $(".raise-amount", btn).textContent = chips(v);
    btn.dataset.amount = String(v);
  };
  root.addEventListener("input", (ev) => {
    if (ev.target.id !== "amount-range") return;
    // the slider moves in steps from the minimum: its last step reaches the maximum
    const r = ev.target;
    const v = Number(r.value);
    setAmount(v + Number(r.step || 1) > Number(r.max) ? r.max : v);
  });
  root.addEventListener("change", (ev) => {
    if (ev.target.id === "amount") setAmount(ev.target.value);
    if (ev.target.id === "ante-amount") {
      const a = ev.target;
      a.value = String(clamp(a.value, Number(a.min), Number(a.max)));
    }
  });
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && ev.target.id === "amount") {
      setAmount(ev.target.value);
      ev.preventDefault();
      $(".act.raise", root)?.click();
    }
  });
  root.addEventListener("click", (ev) => barClick(root, ev, setAmount, send));
}

/** A click in the bar: a quick size, a card to discard, or an action (sent once). */
function barClick(root, ev, setAmount, send) {
  const quick = ev.target.closest("[data-quick]");
  if (quick) {
    setAmount(quick.dataset.quick);
    return;
  }
  const pick = ev.target.closest("[data-pick]");
  if (pick) {
    const btn = $(".act.draw", root);
    const max = Number(btn.dataset.max);
    const on = pick.getAttribute("aria-pressed") !== "true";
    const picked = $$("[data-pick][aria-pressed=true]", root).length;
    if (on && picked >= max) return;
    pick.setAttribute("aria-pressed", on ? "true" : "false");
    const n = $$("[data-pick][aria-pressed=true]", root).length;
    btn.firstChild.textContent = n ? `Discard ${n} and draw ` : "Stand pat ";
    return;
  }
  const act = ev.target.closest("[data-act]");
  if (!act || act.disabled) return;
  const action = act.dataset.act;
  const fields = {};
  if (action === "bet" || action === "raise") {
    const num = $("#amount", root);
    fields.amount = clamp(num ? num.value : act.dataset.min, Number(act.dataset.min), Number(act.dataset.max));
  } else if (action === "complete") {
    fields.amount = Number(act.dataset.amount);
  } else if (action === "draw") {
    fields.discard = $$("[data-pick][aria-pressed=true]", root).map((b) => b.dataset.pick);
  } else if (action === "ante") {
    const a = $("#ante-amount", root);
    fields.amount = clamp(a.value, Number(act.dataset.min), Number(act.dataset.max));
    if ($("#jackpot-wager", root)?.checked) fields.jackpot = true;
  }
  for (const b of $$("button", root)) b.disabled = true;
  send(action, fields);
}


const KEYS = { f: "fold", c: ["check", "call"], r: ["raise", "bet"], b: "bring_in", m: "complete", d: "draw", a: "ante", p: "play", o: "over_blind", n: ["decline", "run_once", "muck"], y: "run_twice", s: "show" };

/** Global shortcuts: a key clicks the matching action button, if offered. */
export function bindShortcuts(root) {
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const el = ev.target;
    const tag = el && el.tagName;
    // typing goes to text fields; a focused slider or checkbox still lets the keys act
    const typing = (tag === "INPUT" && !["range", "checkbox", "radio", "button"].includes(el.type)) ||
      tag === "TEXTAREA" || tag === "SELECT" || (el && el.isContentEditable);
    if (typing) return;
    const want = KEYS[ev.key.toLowerCase()];
    if (!want) return;
    for (const action of [].concat(want)) {
      const btn = $(`[data-act="${action}"]`, root);
      if (btn && !btn.disabled) {
        ev.preventDefault();
        btn.click();
        return;
      }
    }
  });
}

// ---- pre-actions: chosen while others act, applied when the turn comes -------------------
export const PRE_ACTIONS = [["check_fold", "Check/Fold"], ["check", "Check"], ["call_any", "Call any"]];

/** What the viewer owes to stay in the round now (0: they could check). */
export function owed(t) {
  const me = t && t.you != null ? t.seats[t.you] : null;
  return me ? Math.max(0, Math.min(maxBet(t) - me.bet, me.stack)) : 0;
}

/** The pre-actions as the viewer's position reads them: facing a bet, "Fold", "Call N" (kept
 * only while the bet stays as it is) and "Call any"; else "Check/Fold", "Check", "Call any". */
export function preActionChoices(t) {
  const due = owed(t);
  if (due <= 0) return PRE_ACTIONS;
  return [["check_fold", "Fold"], ["call", `Call ${chips(due)}`], ["call_any", "Call any"]];
}

/** Whether the viewer may pre-select an action now: seated, in the hand, a betting game, not
 * their turn. */
export function preActionsOffered(t) {
  if (!t || t.you == null || t.ended || t.hand == null || t.variant === "caribbean") return false;
  const me = t.seats[t.you];
  if (!me || me.state !== "active" || !me.cards.length) return false;
  return !(t.turns && t.turns[t.you]);
}

/** The street a pre-action belongs to (a new street, or a new card, clears it). */
export function streetKey(t) {
  const me = t && t.you != null ? t.seats[t.you] : null;
  return `${t.id}:${t.hand}:${t.board.length}:${me ? me.cards.length + me.up.length : 0}`;
}

export function preActionsHTML(t, chosen) {
  if (!preActionsOffered(t)) return "";
  const buttons = preActionChoices(t).map(([key, label]) =>
    `<button type="button" class="pre" data-pre="${key}" aria-pressed="${chosen === key}">${label}</button>`);
  return `<span class="pre-label">Before your turn:</span>${buttons.join("")}`;
}

/** Whether a pre-action chosen as `pre` ({choice, street, bet}) still holds at `t`: every
 * choice ends with its street; "Check" and "Call N" end when the bet changes. */
export function preActionStands(pre, t) {
  if (pre.street !== streetKey(t)) return false;
  return !(pre.choice === "check" || pre.choice === "call") || maxBet(t) === pre.bet;
}

/** The action a pre-action becomes once the turn's options are known (null: none). */
export function preActionFor(choice, options) {
  const o = options || {};
  const canCheck = !!o.check;
  const canCall = o.call != null && o.call !== false;
  if (choice === "check_fold") return canCheck ? "check" : o.fold ? "fold" : null;
  if (choice === "check") return canCheck ? "check" : null;
  if (choice === "call") return canCall ? "call" : canCheck ? "check" : null;
  if (choice === "call_any") return canCheck ? "check" : canCall ? "call" : null;
  return null;
}
