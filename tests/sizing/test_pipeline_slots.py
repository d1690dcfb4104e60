"""The embedding and the loss counted as pipeline layers (Megatron-Core's
account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split): the split, the activations
each rank holds checked against a walk of Megatron's order with the lighter first and last chunks, the
checks Megatron makes, and Llama 3 405B's one-slot chunks."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import evaluate
from sizing.engine import stages as S
from sizing.engine.errors import InputError
from sizing.engine.validation import by_id, contract_inputs, predict

EMB, LOSS = "account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split"


def peak_layers_in_flight(p: int, v: int, m: int, rank: int, per_chunk: int, emb: int, loss: int) -> int:
    """Walk Megatron-Core's interleaved order for one rank (schedules.py: forwards in groups of p
    micro-batches per chunk, `get_schedule_table` with the default group size p; backwards in the same
    groups, last chunk first; warm-up, one forward and one backward, cool-down) and return the most
    transformer layers whose backward has not run. The first chunk of rank 0 and the last chunk of rank
    p - 1 hold one layer fewer when the embedding or the loss takes a slot
    (transformer_block.get_num_layers_to_build)."""
    table = [(mb, chunk) for g in range(0, m, p) for chunk in range(v) for mb in range(g, min(g + p, m))]
    total = m * v
    warm = min((p - rank - 1) * 2 + (v - 1) * p, total) if v > 1 else min(p - rank - 1, m)
    order = ["F"] * warm
    while order.count("F") < total:
        order += ["F", "B"]
    order += ["B"] * (total - order.count("B"))

    def layers(chunk: int) -> int:
        lighter = (emb and rank == 0 and chunk == 0) + (loss and rank == p - 1 and chunk == v - 1)
        return per_chunk - lighter

    held = peak = forwards = backwards = 0
    for op in order:
        if op == "F":
            held += layers(table[forwards][1])
            forwards += 1
        else:
            held -= layers(v - 1 - table[backwards][1])
            backwards += 1
        peak = max(peak, held)
    return peak


@pytest.mark.parametrize("p", [2, 3, 4, 8, 16])
@pytest.mark.parametrize("v", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("emb,loss", [(1, 1), (1, 0), (0, 1)])
def test_the_heaviest_rank_holds_what_megatrons_order_holds(p: int, v: int, emb: int, loss: int) -> None:
    for per_chunk in (1, 2, 3):
        layers = p * v * per_chunk - emb - loss
        for m in (p, 2 * p, 3 * p, 4 * p):
            x = {"pp": float(p), "v": float(v), "aemb": float(emb), "aloss": float(loss)}
            most, first, last = S.stage_layers(layers, x)
            got = float(S.peak_layers(x, float(m), most, first, last)[0])
            walk = [peak_layers_in_flight(p, v, m, r, per_chunk, emb, loss) for r in range(p)]
            assert got == max(walk), (p, v, m, per_chunk, emb, loss, walk)
            assert (float(first), float(last)) == (v * per_chunk - emb, v * per_chunk - loss)


def test_one_slot_chunks_hold_nothing_of_the_embedding_chunk() -> None:
    # Llama 3 405B's split at v = 8 on 16 ranks with 32 micro-batches: rank 0 holds 143 chunks at its first
    # backward, 31 of them the embedding's (16 of the first group, 15 of the second): 112 layers; rank 1
    # holds 141 one-layer chunks and binds; the last rank 113 chunks, and its loss chunks are the first it
    # frees (once the first group's have run backward, the next group's forwards hold 113 layers)
    x = {"pp": 16.0, "v": 8.0, "aemb": 1.0, "aloss": 1.0}
    assert [peak_layers_in_flight(16, 8, 32, r, 1, 1, 1) for r in (0, 1, 15)] == [112, 141, 113]
    assert float(S.peak_layers(x, 32.0, *S.stage_layers(126, x))[0]) == 141


def test_llama3_405b_on_8192_gpus_with_one_slot_chunks_still_needs_more_than_an_h100() -> None:
    # without the slots 16 x 8 chunks exceed the 126 layers; with them (128 slots) v = 8 is Megatron's
    assert "more pipeline stages" in " ".join(
        predict(by_id("llama3-405b-h100-8192"), virtual_stages=8, **{EMB: False, LOSS: False})["reasons"]
    )
    v4 = predict(by_id("llama3-405b-h100-8192"))
    v8 = predict(by_id("llama3-405b-h100-8192"), virtual_stages=8)
    mem4, mem8 = v4["memory_gib_per_gpu"], v8["memory_gib_per_gpu"]
    # rank 1: 141 one-layer chunks instead of 77 two-layer ones (154 layers)
    assert mem8["activations"] / mem4["activations"] == pytest.approx(141 / 154, rel=1e-4)
    assert mem8["total"] == pytest.approx(82.4, abs=0.1)
    assert not v8["feasible"] and len(v8["reasons"]) == 1
    assert v8["reasons"][0].startswith("does not fit memory")
    # the 16,384-GPU layout fits at either v: 16 micro-batches, every forward before the first backward
    for v in (4, 8):
        r = predict(by_id("llama3-405b-h100-16384"), virtual_stages=v)
        assert r["feasible"] and r["memory_gib_per_gpu"]["total"] == pytest.approx(75.2, abs=0.1)


def test_the_slots_are_off_by_default_and_change_nothing_then() -> None:
    wl = {"preset": "13b", "global_batch": 64}  # 40 layers
    offering = {**dict(by_id("llama3-405b-h100-16384").offering), "nodes": 1}
    lay = {"tp": 1, "pp": 4, "dp": 2, "micro_batch": 1, "recompute": "full", "virtual_stages": 2}
    plain = evaluate(wl, offering, lay, gpus=8)
    assert plain["layout"][EMB] is False and plain["layout"][LOSS] is False
    off = evaluate(wl, offering, {**lay, EMB: False, LOSS: False}, gpus=8)
    assert off == plain
    # the embedding alone: 41 slots do not split over 4 stages; with the loss, 42 do not either; 44 would
    with pytest.raises(InputError) as err:
        evaluate(wl, offering, {**lay, EMB: True}, gpus=8)
    assert err.value.field == f"layout.{EMB}"


@pytest.mark.parametrize(
    "layout",
    [
        {"virtual_stages": 3},  # 8 slots per rank do not make 3 chunks
        {"pp": 6, "dp": 16},  # 128 slots do not split over 6 ranks
        {"first_stage_layers": 7, "last_stage_layers": 7},  # Megatron-Core refuses both together
    ],
)
def test_splits_megatron_refuses_are_refused_naming_the_flag(layout: dict[str, Any]) -> None:
    row = by_id("llama3-405b-h100-16384")
    with pytest.raises(InputError) as err:
        evaluate(dict(row.workload), dict(row.offering), {**row.layout, **layout})
    assert err.value.field == f"layout.{EMB}"


def test_without_pipeline_stages_the_slots_are_unset_and_said_so() -> None:
    wl = {"preset": "13b", "global_batch": 64}
    offering = {**dict(by_id("llama3-405b-h100-16384").offering), "nodes": 1}
    r = evaluate(wl, offering, {"tp": 8, "pp": 1, EMB: True, LOSS: True}, gpus=8)
    assert r["layout"][EMB] is False
    assert any("pipeline slots" in str(a) for a in r["assumptions"])


def _contract(row_id: str, **layout: Any) -> dict[str, Any]:
    """The row evaluated with the size contract's layout keys only (no pipeline-split flags)."""
    row = by_id(row_id)
    given = {k: v for k, v in contract_inputs(row)[2].items() if k != "virtual_stages"}
    return evaluate(dict(row.workload), dict(row.offering), {**given, **layout})


@pytest.mark.parametrize(
    ("row_id", "v", "chunks", "layers"),
    [
        # Megatron-Core MoE model zoo: Qwen3-235B's 94 layers on PP32 x 3 chunks
        ("mcoremoe-h100-qwen3-235b-256-a2a-pp32", 3, 96, 94),
        # Megatron-Bridge 26.06: Llama 3.1 405B's 126 layers on PP16 x 8 chunks
        ("bridge2606-gb200-llama31-405b-256-mxfp8", 8, 128, 126),
    ],
)
def test_more_chunks_than_layers_take_the_slots_that_make_the_split_exact(
    row_id: str, v: int, chunks: int, layers: int
) -> None:
    answer = _contract(row_id, virtual_stages=v)
    assert answer["feasible"], answer["reasons"]
    assert answer["layout"][EMB] is True and answer["layout"][LOSS] is True
    (note,) = [a for a in answer["assumptions"] if "model chunks" in a]
    assert note.startswith(f"{chunks} model chunks (pp x virtual_stages) for {layers} layers")
    # the same split as with both flags stated
    stated = _contract(row_id, virtual_stages=v, **{EMB: True, LOSS: True})
    assert answer["iteration_time_s"] == stated["iteration_time_s"]
    assert answer["memory_gib_per_gpu"] == stated["memory_gib_per_gpu"]
    # a layout that says no to either flag is evaluated as it says: rejected
    refused = _contract(row_id, virtual_stages=v, **{EMB: False})
    assert not refused["feasible"]
    assert "more pipeline stages" in " ".join(refused["reasons"])


def test_the_slots_are_not_implied_where_they_do_not_make_the_split_exact() -> None:
    # 94 layers on PP32 x 4 = 128 chunks: 96 slots do not split over them either, so nothing is assumed
    answer = _contract("mcoremoe-h100-qwen3-235b-256-a2a-pp32", virtual_stages=4)
    assert not answer["feasible"] and answer["layout"][EMB] is False
    assert not any("model chunks" in a for a in answer["assumptions"])
    # and where the layers fill the chunks (94 on PP8 x 4 = 32), the default split stands
    plain = _contract("mcoremoe-h100-qwen3-235b-256-ep32", virtual_stages=4)
    assert plain["feasible"] and plain["layout"][EMB] is False
