"""Attention kernels: unfused (scores materialised, as calibrated) vs fused (FlashAttention)."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate, workload_from_dict, workload_preset


def _wl(attention: str) -> dict[str, Any]:
    return {**workload_preset("llama3-70b").to_dict(), "attention": attention, "moe": None}


def test_fused_attention_keeps_no_scores_in_memory_and_selective_equals_none(h100_ib: dict[str, Any]) -> None:
    lay = {"tp": 8, "pp": 4, "dp": 16, "cp": 1}
    mem = {
        (att, rec): evaluate(_wl(att), h100_ib, {**lay, "recompute": rec}, gpus=512)
        for att in ("flash", "unfused")
        for rec in ("none", "selective")
    }
    act = {k: r["memory_gib_per_gpu"]["activations"] for k, r in mem.items()}
    # unfused at 8k: the score term dwarfs the rest (Korthikanti Table 2: 5 a s / h; 2 a s / h for Llama,
    # which trains without attention dropout); selective drops it
    assert act[("unfused", "none")] > 4 * act[("unfused", "selective")]
    assert act[("flash", "none")] == act[("flash", "selective")] == act[("unfused", "selective")]
    t = {k: r["iteration_time_s"] for k, r in mem.items()}
    assert t[("flash", "none")] == t[("flash", "selective")]  # nothing left to recompute
    # the score traffic is gone from the memory-bound work, the backward recomputes the scores instead
    other = {k: r["iteration_breakdown_s"]["other"] for k, r in mem.items()}
    assert other[("flash", "none")] < 0.3 * other[("unfused", "selective")]
    assert mem[("flash", "none")]["iteration_breakdown_s"]["recompute"] > 0
    assert t[("flash", "none")] < t[("unfused", "selective")]


def test_auto_resolves_by_gpu_and_says_so(h100_ib: dict[str, Any], a100_ib: dict[str, Any]) -> None:
    lay = {"tp": 8, "pp": 4}
    h = evaluate("llama3-70b", h100_ib, lay, gpus=512)
    a = evaluate("llama3-70b", a100_ib, lay, gpus=512)
    assert any("FlashAttention-style kernels assumed on H100" in x for x in h["assumptions"])
    assert any("unfused attention" in x and "A100" in x for x in a["assumptions"])
    explicit = evaluate(_wl("flash"), a100_ib, lay, gpus=512)
    assert not any(x.startswith("attention not given") for x in explicit["assumptions"])
    assert explicit["iteration_time_s"] < a["iteration_time_s"]
    assert explicit["workload"]["attention"] == "flash"


def test_bad_attention_names_the_field() -> None:
    with pytest.raises(InputError) as e:
        workload_from_dict({**_wl("flash"), "attention": "sparse"})
    assert e.value.field == "workload.attention"
