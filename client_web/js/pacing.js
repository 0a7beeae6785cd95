// Pacing: after some events of the open table the next paced one waits, so an all-in
// run-out comes card by card and the result stays up before the next hand starts. Messages
// of other tables (followed in the background) and answers are never held.

export const GAP_AFTER = { board: 1000, showdown: 700, mucked: 300, dealer: 900, pot_awarded: 700,
  settled: 500, hand_ended: 4000 };
const PACED = new Set(["board", "showdown", "mucked", "pot_awarded", "hand_ended", "settled",
  "hand_started", "dealer", "jackpot"]);

/** `receive(msg)` for the socket: `dispatch` each message in order, held as GAP_AFTER says;
 * `openTable()` is the id of the table shown (or null). */
export function createPacer(dispatch, openTable, now = () => Date.now()) {
  const queue = [];
  let holdUntil = 0;
  let timer = null;

  function pump() {
    if (timer) return;
    while (queue.length) {
      const msg = queue[0];
      const wait = holdUntil - now();
      const paced = PACED.has(msg.type) && (msg.type !== "jackpot" || msg.table);
      if (wait > 0 && paced) {
        timer = setTimeout(() => { timer = null; pump(); }, wait);
        return;
      }
      queue.shift();
      dispatch(msg);
      if (GAP_AFTER[msg.type] && msg.table && msg.table === openTable()) {
        // a Caribbean dealer's up card needs no pause; the reveal (with its hand) does
        if (msg.type !== "dealer" || msg.hand) holdUntil = now() + GAP_AFTER[msg.type];
      }
      if (msg.type === "snapshot" && msg.table === openTable()) holdUntil = 0;
    }
  }

  return function receive(msg) {
    // another table's events go at once (its badge, its sound); the open one's in order
    if (msg.table && msg.table !== openTable() && !queue.some((q) => q.table === msg.table)) {
      dispatch(msg);
      return;
    }
    queue.push(msg);
    pump();
  };
}
