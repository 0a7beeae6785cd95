// What the page's modules share: the store and its `dispatch`, and the bits of page state
// that are not the reducer's (the route, the socket, the action bar's key, the server's
// history, ...). js/state.js stays the pure reducer; this is its one mutable holder.
//
// Rule of this module: it holds data only (js/app.js sets `page.socket`, `page.sound`, ... at
// boot); nobody puts functions into it. A module that must tell a higher one something emits
// on js/bus.js instead (`dispatch` emits DISPATCHED; a redraw is asked with RENDER).

import { DISPATCHED, emit } from "./bus.js";
import { initialState, reduce } from "./state.js";

export const store = { state: initialState() };

export const page = {
  socket: null,
  route: { view: "lobby" },
  sound: null,
  prefs: null, // the viewer's display preferences (js/prefs.js)
  notifier: null,
  actionsKey: "", // the turn the action bar was drawn for
  serverHistory: null, // null: not asked / unsupported; else the hands
  jackpotTerms: null, // the house's Caribbean terms, from a lobby entry
  preAction: null, // {choice, street, bet}: "check" and "call" end when the bet changes; all end with the street
  watchRoutes: {}, // table id -> opened to watch (`#/table/<id>/watch`)
  shownError: "", // the key of the state the #act-error text belongs to
};

/** Apply `msg` to the state through the reducer, then tell the page (DISPATCHED). */
export function dispatch(msg) {
  store.state = reduce(store.state, msg);
  emit(DISPATCHED, msg);
}
