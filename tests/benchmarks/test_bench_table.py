"""The table benchmark still runs against the current table layer (a few hands)."""

from tests.benchmarks.bench_table import measure


def test_the_table_benchmark_plays_hands_and_measures_both_sides() -> None:
    result = measure(12)
    assert result["hands"] >= 12
    assert result["table_us"] > result["engine_us"] > 0  # the table costs more than its engine
