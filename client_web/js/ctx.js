// What the page's modules share: the store, the socket, the route and the bits of page state
// that are not the reducer's (the action bar's key, the server's history, ...).
//
// Rule of this module: it holds data and late-bound functions only (`render`, `dispatch`,
// `showBanner`, `actError` are set by app.js at boot), so the page modules import it without
// importing each other in a circle.

import { initialState } from "./state.js";

export const app = {
  store: { state: initialState() },
  socket: null,
  route: { view: "lobby" },
  sound: null,
  prefs: null, // the viewer's display preferences (js/prefs.js)
  notifier: null,
  actionsKey: "", // the turn the action bar was drawn for
  serverHistory: null, // null: not asked / unsupported; else the hands
  jackpotTerms: null, // the house's Caribbean terms, from a lobby entry
  preAction: null, // {choice, street, bet}: "check" ends when the bet changes; all end with the street
  watchRoutes: {}, // table id -> opened to watch (`#/table/<id>/watch`)
  shownError: "", // the key of the state the #act-error text belongs to
  render() {},
  dispatch() {},
  showBanner() {},
  actError() {},
};
