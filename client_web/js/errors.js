// Refusals in plain words: the server's `error` answers mapped to what a player reads.
//
// Rule of this module: pure (no DOM). `code` is what we branch on; the server's `message` is
// shown only when it reads like a sentence for people (no rule ids such as "(BLIND-03)", no
// field names such as "ante_min", no comparison signs).

import { errorMessage } from "../protocol.js";

/** Plain-language text per error code (what the player can do about it). */
export const FRIENDLY = {
  disconnected: "You are offline for a moment; we are reconnecting. Try again in a second.",
  timeout: "The server did not answer in time. Try again.",
  not_your_turn: "It is not your turn any more.",
  bad_action: "That move is not possible right now.",
  bad_amount: "That amount is not allowed here. Pick one between the limits shown.",
  no_hand: "The hand is already over.",
  not_in_hand: "You are not in this hand.",
  unknown_table: "This table no longer exists.",
  table_closed: "This table no longer exists.",
  table_full: "The table is full. Watch, or pick another table.",
  seat_taken: "Someone just took that seat. Pick another one.",
  already_seated: "You are already sitting at this table.",
  not_seated: "You are not sitting at this table.",
  insufficient_funds: "Your balance is too low for that buy-in.",
  bad_buy_in: "The buy-in must be between the table's minimum and maximum.",
  bad_stakes: "Those stakes do not work together. Check that each blind or bet is at least the one before it, and that the minimum is not above the maximum.",
  bad_settings: "One of the table settings is not valid.",
  bad_structure: "That betting structure is not available for this game.",
  bad_variant: "That game is not available.",
  too_many_tables: "You have opened as many tables as you may. Close or leave one first.",
  rate_limited: "Slow down a little, then try again.",
  chat_limited: "The chat is busy; wait a moment.",
  chat_disabled: "Chat is switched off here.",
  unauthorized: "Enter a name (or log in) first.",
  limit_exceeded: "That would pass the house's limit.",
  hand_in_progress: "Not while a hand is being played; wait for it to end.",
  bad_token: "Your session has ended. Enter your name again.",
  name_taken: "That name is taken. Try another one.",
  invite_required: "This is a private game: ask the host for the invite link.",
  not_host: "Only the host of this game can do that.",
  no_request: "That player is no longer waiting for a seat.",
  rebuys_off: "The host does not allow rebuys in this game.",
  post_bb_off: "At this table you wait for the big blind to reach you before you play.",
  removed: "The host removed you from this game, so you cannot sit here again.",
  account_frozen: "Your account is frozen by the room: you can watch, but not sit or chat. Contact the room if you think this is a mistake.",
  account_muted: "The room has muted your chat: your messages are not sent.",
  not_allowed: "That is not possible here.",
  unknown_tournament: "No such tournament (a private one opens only from its invite link).",
  registration_closed: "Registration for this tournament is closed.",
  tournament_full: "This tournament is full.",
  already_registered: "You are already registered in this tournament.",
  not_registered: "You are not registered in this tournament.",
};

const DEVELOPER = /[<>=_]|\([A-Z]+-\d+\)|`|\bneed\b|\bmust be an?\b (int|number|string)/;

/** The text to show for an `error` answer. */
export function plainError(answer) {
  const code = answer && answer.code;
  if (code && Object.prototype.hasOwnProperty.call(FRIENDLY, code)) return FRIENDLY[code];
  const message = answer && typeof answer.message === "string" ? answer.message.trim() : "";
  if (message && !DEVELOPER.test(message)) {
    return message[0].toUpperCase() + message.slice(1) + (/[.!?]$/.test(message) ? "" : ".");
  }
  return code ? errorMessage(code) : "Something went wrong. Try again.";
}
