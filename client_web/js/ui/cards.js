// Cards as HTML: rank and suit symbol in the text (never colour alone), the full name for
// screen readers; a face-down card is a back with no value in the DOM at all. The rank and
// suit sit one above the other at the card's left edge when cards overlap (style.css
// `.cards.many`), so the visible strip of a covered card still shows both ("10" included).

import { cardName, SUIT_SYMBOLS } from "../format.js";
import { esc } from "./dom.js";

/**
 * One card. `card` null -> a back. `kind`: "hole" (own face-down card), "up" (face up for
 * everyone), "board", "shown".
 */
export function cardHTML(card, kind = "up", extra = "") {
  if (!card) {
    return `<span class="card back ${extra}" role="img" aria-label="face-down card"></span>`;
  }
  const rank = card[0] === "T" ? "10" : card[0];
  const suit = card[1];
  const symbol = SUIT_SYMBOLS[suit] || "?";
  return `<span class="card face s-${esc(suit)} ${esc(kind)} ${extra}" data-card="${esc(card)}" ` +
    `role="img" aria-label="${esc(cardName(card))}"><span class="rank${rank === "10" ? " ten" : ""}">${esc(rank)}</span>` +
    `<span class="suit" aria-hidden="true">${symbol}</span></span>`;
}

export function cardsHTML(cards, kind = "up", extra = "") {
  return (cards || []).map((c) => cardHTML(c, kind, extra)).join("");
}
