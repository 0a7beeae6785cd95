"""The capacity benchmark's choice of a step's figure over repeated runs (`--repeat`)."""

from __future__ import annotations

from tests.benchmarks.bench_capacity import median_run


def _run(hands: float, passed: bool = True) -> dict[str, object]:
    return {"tables": 40, "hands_per_s": hands, "passed": passed}


def test_a_steps_row_is_its_median_run_by_hands_per_second() -> None:
    assert median_run([_run(250.0), _run(190.0, False), _run(270.0)])["hands_per_s"] == 250.0
    # an even count: the lower of the two middle runs (no figure better than half the runs)
    assert median_run([_run(300.0), _run(200.0), _run(260.0), _run(240.0)])["hands_per_s"] \
        == 240.0
    assert median_run([_run(180.0, False)]) == _run(180.0, False)
    runs = [_run(250.0), _run(251.0)]
    assert median_run(runs) is not runs[0]  # a copy: the runs stay as they were printed
