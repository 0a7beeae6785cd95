// Your turn while you look elsewhere: the tab's title and favicon flash until the tab gets
// the focus or the turn ends.
//
// Rule of this module: `update(turnWaiting)` is called after every render; the flashing is a
// timer that only swaps the title and the icon (test hook: `flashing`).

const ICON = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#0f6b45'/>" +
  "<text x='8' y='12.5' font-size='12' text-anchor='middle' fill='#fff'>\u2660</text></svg>");
const ALERT_ICON = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#e5484d'/>" +
  "<circle cx='8' cy='8' r='4' fill='#fff'/></svg>");
export const TURN_TITLE = "\u25b6 Your turn!";

export class TurnNotifier {
  constructor(doc = globalThis.document, win = globalThis.window) {
    this.doc = doc;
    this.title = doc ? doc.title : "";
    this.focused = doc && typeof doc.hasFocus === "function" ? doc.hasFocus() : true;
    this.flashing = false;
    this.timer = null;
    this.phase = false;
    this.waiting = false;
    if (win && win.addEventListener) {
      win.addEventListener("focus", () => { this.focused = true; this.update(this.waiting); });
      win.addEventListener("blur", () => { this.focused = false; });
    }
    if (doc && doc.addEventListener) {
      doc.addEventListener("visibilitychange", () => {
        if (doc.visibilityState === "visible" && doc.hasFocus()) this.focused = true;
        if (doc.visibilityState === "hidden") this.focused = false;
        this.update(this.waiting);
      });
    }
    this._icon(ICON);
  }

  /** A new turn of mine began (flash when the tab is not looked at). */
  turnStarted() {
    if (!this.focused) this._start();
  }

  /** `waiting`: some turn of mine is still open (at any of my tables). */
  update(waiting) {
    this.waiting = waiting;
    if (this.flashing && (!waiting || this.focused)) this._stop();
  }

  _start() {
    if (this.flashing) return;
    this.flashing = true;
    this.title = this.doc.title.startsWith(TURN_TITLE) ? this.title : this.doc.title;
    const tick = () => {
      this.phase = !this.phase;
      this.doc.title = this.phase ? `${TURN_TITLE} ${this.title}` : this.title;
      this._icon(this.phase ? ALERT_ICON : ICON);
    };
    tick();
    this.timer = setInterval(tick, 1000);
  }

  _stop() {
    this.flashing = false;
    clearInterval(this.timer);
    this.timer = null;
    this.phase = false;
    this.doc.title = this.title;
    this._icon(ICON);
  }

  _icon(href) {
    const link = this.doc && this.doc.querySelector && this.doc.querySelector("link[rel='icon']");
    if (link) link.setAttribute("href", href);
  }
}
