"""The engine holds every workload number to the portal's bounds (sizing.engine.limits.WORKLOAD_BOUNDS): a
1e300-layer workload divided by zero and a 1e300-token sequence was answered with infinities before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sizing import models
from sizing.engine import InputError
from sizing.engine.limits import WORKLOAD_BOUNDS
from sizing.engine.workload import workload_from_dict
from tests.sizing.test_fuzz_regressions import WL

ROOT = Path(__file__).resolve().parents[2]
BASE: dict[str, Any] = {**WL, "seq_len": 4096}  # the fuzz regressions' 8B shape
MOE = {"experts": 64, "top_k": 2, "expert_ffn_hidden": 1408, "shared_experts": 1, "dense_layers": 1}
# the workload keys the engine reads a number from, as the bounds table names them
TOP_LEVEL = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len", "global_batch")
TOP_LEVEL += ("train_tokens", "head_dim", "qk_head_dim", "v_head_dim")


def test_the_portal_and_the_engine_read_one_table() -> None:
    assert models.WORKLOAD_BOUNDS is WORKLOAD_BOUNDS


@pytest.mark.parametrize("key", TOP_LEVEL)
def test_a_number_above_its_bound_is_refused_naming_the_field_and_range(key: str) -> None:
    bound = WORKLOAD_BOUNDS[key]
    assert bound.maximum is not None
    too_big = int(bound.maximum) * 10 if key != "train_tokens" else bound.maximum * 10
    with pytest.raises(InputError) as err:
        workload_from_dict({**BASE, key: too_big})
    assert err.value.field == f"workload.{key}"
    assert "must be between" in str(err.value) and f"{int(bound.maximum):,}" in str(err.value)


@pytest.mark.parametrize("key", sorted(MOE))
def test_an_moe_number_above_its_bound_is_refused(key: str) -> None:
    bound = WORKLOAD_BOUNDS[f"moe_{key}"]
    assert bound.maximum is not None
    with pytest.raises(InputError) as err:
        workload_from_dict({**BASE, "moe": {**MOE, key: int(bound.maximum) + 1}})
    assert err.value.field == f"workload.moe.{key}"
    assert f"{int(bound.maximum):,}" in str(err.value)


def test_a_parameter_count_beyond_any_model_is_refused() -> None:
    shape_keys = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden")
    shape = {k: v for k, v in BASE.items() if k not in shape_keys}
    with pytest.raises(InputError) as err:
        workload_from_dict({**shape, "params": 1e300})
    assert err.value.field == "workload.params"


def test_the_largest_bounded_values_are_still_taken() -> None:
    longest = int(WORKLOAD_BOUNDS["seq_len"].maximum or 0)
    wl = workload_from_dict({**BASE, "seq_len": longest, "global_batch": 1})
    assert wl.seq_len == 10_485_760


def test_size_prints_one_error_line_not_a_traceback(h100_ib: dict[str, Any]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sizing.engine.cli", "--workload", json.dumps({**BASE, "layers": 1e300})]
        + ["--offering", json.dumps(h100_ib), "--gpus", "64"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines()[-1] == (
        "error: workload.layers: must be between 1 and 1,280, got 1 × 10³⁰⁰"
    )
    assert "Traceback" not in out.stderr
