"""Tournaments (docs/rules.md section 5, TOUR-01..15).

Rule of this package's core (``structure``, ``plan``, ``prizes``): pure decisions only. No I/O,
no clock, no asyncio, no global randomness: time comes in as elapsed seconds and every random
choice goes through an injected ``pick(n)`` returning a uniform int in ``[0, n)``, so a
tournament's every decision can be replayed from its inputs and checked from its log (5.1).
"""
