"""``poker-loadtest``: the operators' load tester.

Bots that play through the wire protocol only (this package imports ``protocol``,
``websockets`` and the standard library, never the server's internals; a test checks it),
against a running server (``--url``) or one it starts itself (``--spawn``). See
:mod:`server.loadtest.runner` for how a run ends and how chips are checked,
:mod:`server.loadtest.bots` for what is measured, :mod:`server.loadtest.report` for the
figures and reports, and :mod:`server.loadtest.cli` for the options. Tournament mode
(``--tournament N``): :mod:`server.loadtest.tourney` (its bots) and
:mod:`server.loadtest.tourney_run` (the run).
"""

from __future__ import annotations

from .report import Report
from .runner import RunConfig, run_load
from .tourney_run import TournamentConfig, TournamentReport, run_tournament

__all__ = ["Report", "RunConfig", "TournamentConfig", "TournamentReport", "run_load",
           "run_tournament"]
