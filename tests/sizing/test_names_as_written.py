"""Kinds and GPUs written as people write them: the engine's answer for `InfiniBand`, `BF16`, `Fat_Tree`,
`Full` or `NVIDIA H100 SXM5 80GB` is its answer for `infiniband`, `bf16`, `fat-tree`, `full` and the table key
`H100-SXM-80GB`, under the engine's names; what names nothing is still refused on its field."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate
from sizing.engine.bounds import chosen
from sizing.engine.workload import PRESETS

# GPT-3 175B as the engine's preset states it, on the suite's H100 InfiniBand offering (conftest.h100_ib)
WORKLOAD = PRESETS["gpt3-175b"].to_dict()
LAYOUT = {"tp": 8, "pp": 8, "dp": 16, "micro_batch": 1, "recompute": "full", "moe_dispatcher": None}


def _answer(offering: dict[str, Any], part: str = "", key: str = "", value: Any = None) -> dict[str, Any]:
    """The answer with `part`'s `key` written as `value` (nothing changed without a part)."""
    inputs = {"workload": dict(WORKLOAD), "offering": dict(offering), "layout": dict(LAYOUT)}
    if part:
        inputs[part][key] = value
    return evaluate(inputs["workload"], inputs["offering"], inputs["layout"])


@pytest.mark.parametrize(
    ("part", "key", "written", "engine_name", "echo"),
    [
        ("workload", "precision", "BF16", "bf16", "workload"),
        ("workload", "activation", "GeLU", "gelu", "workload"),
        ("offering", "fabric", "InfiniBand", "infiniband", "offering"),
        ("offering", "intra_node", "NVSwitch", "nvswitch", "offering"),
        ("offering", "topology", "Rail_Optimized", "rail-optimized", "offering"),
        ("offering", "gpu", "h100-sxm-80gb", "H100-SXM-80GB", "offering"),
        ("offering", "gpu", "NVIDIA H100 SXM5 80GB", "H100-SXM-80GB", "offering"),
        ("layout", "recompute", " Full ", "full", "layout"),
        ("layout", "pipeline_engine", "Megatron", "megatron", "layout"),
    ],
)
def test_a_name_in_another_case_or_spelling_gives_the_same_answer_under_the_engine_name(
    part: str, key: str, written: str, engine_name: str, echo: str, h100_ib: dict[str, Any]
) -> None:
    answer, base = _answer(h100_ib, part, key, written), _answer(h100_ib)
    assert answer[echo][key] == engine_name
    assert answer["iteration_time_s"] == base["iteration_time_s"]
    assert answer["memory_gib_per_gpu"] == base["memory_gib_per_gpu"]


def test_a_gpu_read_from_a_model_name_says_so(h100_ib: dict[str, Any]) -> None:
    answer = _answer(h100_ib, "offering", "gpu", "B300")
    assert answer["offering"]["gpu"] == "B300-288GB"
    assert any(note.startswith("GPU 'B300' read as NVIDIA B300") for note in answer["assumptions"])
    # a key or the table's own name needs no note
    by_key = _answer(h100_ib, "offering", "gpu", "h100-sxm-80gb")
    assert not any("read as" in note for note in by_key["assumptions"])


@pytest.mark.parametrize(
    ("part", "key", "written", "field"),
    [
        ("offering", "fabric", "fiber", "offering.fabric"),
        ("offering", "gpu", "H100 / B200", "offering.gpu"),  # two GPUs: none is picked
        ("offering", "gpu", "H100-ULTRA", "offering.gpu"),  # a word no H100 name has: not read as one
        ("workload", "precision", "fp16", "workload.precision"),
        ("layout", "recompute", "partial", "layout.recompute"),
    ],
)
def test_what_names_none_of_the_kinds_is_refused_on_its_field(
    part: str, key: str, written: str, field: str, h100_ib: dict[str, Any]
) -> None:
    with pytest.raises(InputError) as err:
        _answer(h100_ib, part, key, written)
    assert err.value.field == field


def test_chosen_reads_case_blanks_and_joins_only() -> None:
    kinds = ("fat-tree", "rail-optimized", "alltoall")
    assert chosen("Fat Tree", kinds) == "fat-tree"
    assert chosen("ALL_TO_ALL", kinds) == "alltoall"
    assert chosen("fat-trees", kinds) is None
    assert chosen("", kinds) is None and chosen(3, kinds) is None
