"""Server metrics in the Prometheus text exposition format (version 0.0.4), written by hand.

Rule of this module: counters only go up, and the edge is the only writer; gauges are read
at scrape time from callables (live connections, live tables), so they are never stale.
`Metrics.render()` is what `GET /metrics` returns.

Exposed series (all prefixed `poker_`):
  connections                      gauge    open WebSocket connections
  tcp_connections                  gauge    open TCP connections of the public listener (any
                                   stage: HTTP, handshake, WebSocket), what the caps count
  tables                           gauge    live tables
  hands_total                      counter  hands finished (every table's `hand_ended`)
  messages_in_total                counter  frames received from clients
  messages_out_total               counter  frames queued to clients
  errors_total{code="..."}         counter  error answers sent by the edge, by code
  slow_consumer_disconnects_total  counter  connections cut because their outbox was full
  flood_disconnects_total          counter  connections closed (1008) for flooding
  write_budget_disconnects_total{reason="buffer"|"stall"}
                                   counter  TCP connections aborted for not reading what
                                   they are sent: over `max_write_buffer` bytes waiting, or
                                   writes paused for `write_stall_timeout` seconds
  connections_refused_total{reason="per_ip"|"total"}
                                   counter  TCP connections refused at accept over a cap
  accept_errors_total              counter  accept() failures for lack of resources (EMFILE...)
  hello_deadline_closes_total      counter  sockets closed for not saying hello/watch in time
  origin_refused_total             counter  WebSocket handshakes refused (403) for their Origin
  action_latency_seconds           histogram  from an `act` frame's receipt at the edge to its
                                   answer (`ok`/`error`, matched by rid) being queued by the
                                   table actor; the actor queues the `acted` broadcast in the
                                   same step, so this is receipt-to-broadcast within a step.
                                   Measured at the edge (no hook into the table is needed).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

LATENCY_BUCKETS: tuple[float, ...] = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
)
"""Upper bounds (seconds) of the action latency histogram; `+Inf` is implied."""

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Histogram:
    """A cumulative histogram with fixed bucket bounds."""

    __slots__ = ("bounds", "counts", "count", "total")

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.bounds = bounds
        self.counts = [0] * len(bounds)
        self.count = 0
        self.total = 0.0

    def observe(self, value: float) -> None:
        """Record one observation (seconds)."""
        index = bisect.bisect_left(self.bounds, value)
        if index < len(self.counts):
            self.counts[index] += 1
        self.count += 1
        self.total += value

    def lines(self, name: str) -> list[str]:
        out: list[str] = []
        cumulative = 0
        for bound, count in zip(self.bounds, self.counts, strict=True):
            cumulative += count
            out.append(f'{name}_bucket{{le="{_num(bound)}"}} {cumulative}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.count}')
        out.append(f"{name}_sum {_num(self.total)}")
        out.append(f"{name}_count {self.count}")
        return out


def _num(value: float) -> str:
    return repr(float(value)) if not float(value).is_integer() else f"{value:.1f}"


def _escape(label: str) -> str:
    return label.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    """The process's counters. Create one per server; the gauges are callables given at
    construction or set later (`metrics.connections_gauge = lambda: len(edge.connections)`)."""

    def __init__(
        self,
        *,
        connections: Callable[[], int] = lambda: 0,
        tables: Callable[[], int] = lambda: 0,
    ) -> None:
        self.connections_gauge = connections
        self.tcp_gauge: Callable[[], int] = lambda: 0
        self.tables_gauge = tables
        self.hands_total = 0
        self.messages_in_total = 0
        self.messages_out_total = 0
        self.errors_total: dict[str, int] = {}
        self.slow_consumer_disconnects_total = 0
        self.flood_disconnects_total = 0
        self.write_budget_disconnects_total: dict[str, int] = {"buffer": 0, "stall": 0}
        self.connections_refused_total: dict[str, int] = {}
        self.accept_errors_total = 0
        self.hello_deadline_closes_total = 0
        self.origin_refused_total = 0
        self.action_latency = Histogram()

    # --- hooks -----------------------------------------------------------------------------
    def error(self, code: str) -> None:
        """Count one error answer with `code`."""
        self.errors_total[code] = self.errors_total.get(code, 0) + 1

    def refused(self, reason: str) -> None:
        """Count one connection refused at accept (`per_ip` or `total`)."""
        self.connections_refused_total[reason] = (
            self.connections_refused_total.get(reason, 0) + 1)

    def hand_finished(self) -> None:
        """Count one finished hand."""
        self.hands_total += 1

    def observe_action_latency(self, seconds: float) -> None:
        """Record one action's latency (receipt of `act` to the table's answer)."""
        self.action_latency.observe(max(0.0, seconds))

    # --- exposition ------------------------------------------------------------------------
    def render(self) -> str:
        """The whole exposition, ready to serve with `CONTENT_TYPE`."""
        lines: list[str] = []

        def metric(name: str, kind: str, help_text: str, samples: list[str]) -> None:
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            lines.extend(samples)

        metric("poker_connections", "gauge", "Open WebSocket connections.",
               [f"poker_connections {self.connections_gauge()}"])
        metric("poker_tcp_connections", "gauge",
               "Open TCP connections of the public listener (what the connection caps count).",
               [f"poker_tcp_connections {self.tcp_gauge()}"])
        metric("poker_tables", "gauge", "Live tables.", [f"poker_tables {self.tables_gauge()}"])
        metric("poker_hands_total", "counter", "Hands finished.",
               [f"poker_hands_total {self.hands_total}"])
        metric("poker_messages_in_total", "counter", "Frames received from clients.",
               [f"poker_messages_in_total {self.messages_in_total}"])
        metric("poker_messages_out_total", "counter", "Frames queued to clients.",
               [f"poker_messages_out_total {self.messages_out_total}"])
        metric("poker_errors_total", "counter", "Error answers sent by the edge, by code.",
               [f'poker_errors_total{{code="{_escape(code)}"}} {count}'
                for code, count in sorted(self.errors_total.items())])
        metric("poker_slow_consumer_disconnects_total", "counter",
               "Connections cut because their outbox was full.",
               [f"poker_slow_consumer_disconnects_total {self.slow_consumer_disconnects_total}"])
        metric("poker_flood_disconnects_total", "counter",
               "Connections closed with 1008 for flooding.",
               [f"poker_flood_disconnects_total {self.flood_disconnects_total}"])
        metric("poker_write_budget_disconnects_total", "counter",
               "TCP connections aborted for not reading what they are sent, by reason.",
               [f'poker_write_budget_disconnects_total{{reason="{_escape(reason)}"}} {count}'
                for reason, count in sorted(self.write_budget_disconnects_total.items())])
        metric("poker_connections_refused_total", "counter",
               "TCP connections refused at accept over a connection cap, by cap.",
               [f'poker_connections_refused_total{{reason="{_escape(reason)}"}} {count}'
                for reason, count in sorted(self.connections_refused_total.items())])
        metric("poker_accept_errors_total", "counter",
               "accept() failures for lack of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM).",
               [f"poker_accept_errors_total {self.accept_errors_total}"])
        metric("poker_hello_deadline_closes_total", "counter",
               "Sockets closed for not identifying or watching within the hello deadline.",
               [f"poker_hello_deadline_closes_total {self.hello_deadline_closes_total}"])
        metric("poker_origin_refused_total", "counter",
               "WebSocket handshakes refused with 403 for their Origin header.",
               [f"poker_origin_refused_total {self.origin_refused_total}"])
        metric("poker_action_latency_seconds", "histogram",
               "Seconds from receiving an act to the table's answer to it.",
               self.action_latency.lines("poker_action_latency_seconds"))
        return "\n".join(lines) + "\n"
