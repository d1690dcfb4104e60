"""Every published Selene run (cal §2) with its own layout, one set of constants: within 10%."""

from __future__ import annotations

import pytest

from sizing.engine.calibration import RUNS, predict


@pytest.mark.parametrize("run", RUNS, ids=[f"{r.source.split()[0]}-{r.label}" for r in RUNS])
def test_iteration_time_within_10_percent_of_the_published_run(run) -> None:  # type: ignore[no-untyped-def]
    got = predict(run)["iteration"]
    assert abs(got / run.published_s - 1.0) < 0.10, (run.label, got, run.published_s)


def test_korthikanti_mfu_with_sp_and_selective_is_in_the_published_range() -> None:
    mfus = {r.label: predict(r)["mfu"] for r in RUNS if r.recompute == "selective"}
    assert 0.45 < mfus["175B SP+sel"] < 0.58  # published 51.4%
