"""A given layout that leaves out its ZeRO stage or recompute: the defaults unless they do not fit, then the
fastest setting of the unstated keys that fits, said in `assumptions` (sizing/engine/fitting.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sizing.engine import evaluate
from sizing.engine.validation import by_id, contract_inputs

ROOT = Path(__file__).resolve().parents[2]

# Llama 3.1 405B as the size contract's W (no pipeline-split keys, no framework settings)
LLAMA_405B = {
    "name": "Llama 3.1 405B",
    "layers": 126,
    "hidden": 16384,
    "heads": 128,
    "kv_heads": 8,
    "ffn_hidden": 53248,
    "vocab": 128256,
    "seq_len": 8192,
    "global_batch": 2048,
    "train_tokens": 15.6e12,
    "precision": "bf16",
    "activation": "swiglu",
    "moe": None,
}


def meta_cluster(nodes: int) -> dict[str, Any]:
    # the Llama 3 paper's 405B cluster as the size contract's O: H100 SXM, 8 x 400 Gb/s RoCE per node
    return {
        "name": "H100 RoCE",
        "gpu": "H100-SXM-80GB",
        "gpus_per_node": 8,
        "intra_node": "nvswitch",
        "fabric": "roce",
        "nics_per_node": 8,
        "gbps_per_nic": 400,
        "topology": "clos",
        "nodes": nodes,
    }


def fit_notes(answer: dict[str, Any]) -> list[str]:
    return [a for a in answer["assumptions"] if a.startswith("not given in the layout")]


@pytest.mark.parametrize(
    ("gpus", "layout"),
    [
        # Llama 3 paper Table 4: the published degrees only, and with what its prose says (no recompute;
        # FSDP sharding gradients and optimizer state, ZeRO-2)
        (8192, {"tp": 8, "pp": 16, "dp": 64}),
        (8192, {"tp": 8, "pp": 16, "dp": 64, "cp": 1, "micro_batch": 1, "sequence_parallel": True}),
        (8192, {"tp": 8, "pp": 16, "dp": 64, "recompute": "none"}),
        (8192, {"tp": 8, "pp": 16, "dp": 64, "recompute": "none", "zero": 2}),
        (16384, {"tp": 8, "pp": 16, "dp": 128}),
        (16384, {"tp": 8, "pp": 16, "dp": 128, "recompute": "none", "zero": 2}),
    ],
)
def test_llama_405b_published_layouts_fit_an_h100_with_the_contract_keys(gpus: int, layout: dict) -> None:
    answer = evaluate(LLAMA_405B, meta_cluster(gpus // 8), layout)
    assert answer["feasible"], answer["reasons"]
    assert answer["memory_gib_per_gpu"]["total"] <= answer["hbm_gib_per_gpu"]
    for key, value in layout.items():
        assert answer["layout"][key] == value  # a stated key is evaluated as stated


# the same shape with dropout layers (as a GPT-3-era stack keeps them): ZeRO-1 no longer fits on 8,192 GPUs
LLAMA_405B_DROPOUT = {**LLAMA_405B, "dropout": True}


def test_defaults_that_do_not_fit_give_way_to_the_fastest_setting_that_does() -> None:
    answer = evaluate(LLAMA_405B_DROPOUT, meta_cluster(1024), {"tp": 8, "pp": 16, "dp": 64})
    # ZeRO-1 keeps whole gradients (82.6 GiB); sharding them (ZeRO-2) fits and costs less time than full
    # recompute (a third more compute) or ZeRO-3 (the parameters gathered for every micro-batch)
    assert answer["layout"]["zero"] == 2
    assert answer["layout"]["recompute"] == "selective"
    (note,) = fit_notes(answer)
    assert "zero, recompute" in note and "ZeRO-1, selective recompute" in note
    assert "taken: ZeRO-2, selective recompute" in note
    layout = {"tp": 8, "pp": 16, "dp": 64}
    as_stated = evaluate(LLAMA_405B_DROPOUT, meta_cluster(1024), {**layout, "zero": 1})
    full = evaluate(LLAMA_405B_DROPOUT, meta_cluster(1024), {**layout, "zero": 1, "recompute": "full"})
    zero3 = evaluate(LLAMA_405B_DROPOUT, meta_cluster(1024), {**layout, "zero": 3, "recompute": "selective"})
    assert answer["iteration_time_s"] < min(full["iteration_time_s"], zero3["iteration_time_s"])
    # only the unstated recompute can move when the ZeRO stage is stated: ZeRO-1 stays, and on an H100
    # (Megatron-Core's stack, which recomputes by module) rerunning the MLP fits and costs less than full
    # recompute
    assert as_stated["layout"]["zero"] == 1 and as_stated["layout"]["recompute"] == "selective"
    assert as_stated["layout"]["recompute_modules"] == ["mlp"]
    assert as_stated["feasible"] and as_stated["iteration_time_s"] < full["iteration_time_s"]
    (note,) = fit_notes(as_stated)
    assert note.startswith("not given in the layout: recompute, recompute_modules.")
    assert "taken: selective recompute of the MLP" in note
    # a module list states selective recompute and its modules: with ZeRO-1 stated nothing is left to move
    listed = evaluate(
        LLAMA_405B_DROPOUT, meta_cluster(1024), {**layout, "zero": 1, "recompute_modules": ["core_attn"]}
    )
    assert not listed["feasible"] and listed["layout"]["recompute_modules"] == ["core_attn"]
    assert fit_notes(listed) == []


def test_a_layout_that_states_both_is_evaluated_as_it_is() -> None:
    answer = evaluate(
        LLAMA_405B_DROPOUT, meta_cluster(1024), {"tp": 8, "pp": 16, "dp": 64, "zero": 1, "recompute": "none"}
    )
    assert not answer["feasible"]
    assert "does not fit memory" in answer["reasons"][0]
    assert (answer["layout"]["zero"], answer["layout"]["recompute"]) == (1, "none")
    assert fit_notes(answer) == []


def test_a_null_recompute_states_none_and_a_null_zero_leaves_the_stage_out() -> None:
    # as layout_from_dict reads them: `recompute: null` is no recompute (stated), `zero: null` the default
    layout = {"tp": 8, "pp": 16, "dp": 64, "recompute": None, "zero": None}
    answer = evaluate(LLAMA_405B_DROPOUT, meta_cluster(1024), layout)
    assert answer["layout"]["recompute"] == "none"
    (note,) = fit_notes(answer)
    assert note.startswith("not given in the layout: zero.")


def test_a_layout_that_fits_with_the_defaults_keeps_them() -> None:
    answer = evaluate(LLAMA_405B, meta_cluster(128), {"tp": 8, "pp": 8, "dp": 8, "cp": 2})
    assert answer["feasible"]
    assert (answer["layout"]["zero"], answer["layout"]["recompute"]) == (1, "selective")
    assert fit_notes(answer) == []


def test_when_nothing_fits_the_answer_says_so_with_the_defaults() -> None:
    answer = evaluate(LLAMA_405B, meta_cluster(1), {"tp": 8})
    assert not answer["feasible"]
    assert (answer["layout"]["zero"], answer["layout"]["recompute"]) == (1, "selective")
    (note,) = fit_notes(answer)
    assert note.endswith("and no other setting of them fits either")


def test_other_reasons_than_memory_are_not_fitted_away() -> None:
    # more nodes than the offering has: no memory setting can answer that
    offering = {**meta_cluster(8), "max_nodes": 8}
    answer = evaluate(LLAMA_405B, offering, {"tp": 8, "pp": 16, "dp": 64})
    assert not answer["feasible"]
    assert fit_notes(answer) == []


def test_the_size_command_says_what_it_took(tmp_path: Path) -> None:
    workload, offering, layout = tmp_path / "w.json", tmp_path / "o.json", tmp_path / "l.json"
    workload.write_text(json.dumps(LLAMA_405B_DROPOUT))
    offering.write_text(json.dumps(meta_cluster(1024)))
    layout.write_text(json.dumps({"tp": 8, "pp": 16, "dp": 64}))
    out = subprocess.run(
        [sys.executable, "manage.py", "size", "--workload", str(workload), "--offering", str(offering)]
        + ["--layout", str(layout), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    answer = json.loads(out.stdout)
    assert answer["feasible"] and answer["layout"]["zero"] == 2
    assert len(fit_notes(answer)) == 1


def test_data_parallelism_alone_takes_the_only_stage_and_recompute_that_fit() -> None:
    # GPT-3 175B on 384 A100 80GB with data parallelism only (Narayanan et al. 2021, Table 2: ZeRO-3):
    # ZeRO-1 would hold 1.1 TB per GPU; only ZeRO-3 with full recompute fits
    row = by_id("narayanan21-t2-zero3-174b-384")
    answer = evaluate(dict(row.workload), dict(row.offering), {"tp": 1, "pp": 1, "dp": 384})
    assert answer["feasible"]
    assert (answer["layout"]["zero"], answer["layout"]["recompute"]) == (3, "full")
    (note,) = fit_notes(answer)
    assert "taken: ZeRO-3, full recompute" in note
    for zero, recompute in ((2, "full"), (3, "selective")):
        other = evaluate(
            dict(row.workload),
            dict(row.offering),
            {"tp": 1, "pp": 1, "dp": 384, "zero": zero, "recompute": recompute},
        )
        assert not other["feasible"], (zero, recompute)


def test_the_validation_rows_state_both_keys() -> None:
    # the calibration table evaluates published layouts as the rows give them: nothing is fitted there
    row = by_id("llama3-405b-h100-8192")
    assert {"zero", "recompute"} <= set(row.layout)


# --- the workload's own unstated facts: dropout layers and attention kernels -------------------------------


def contract_workload(row_id: str) -> dict[str, Any]:
    """A row's workload as the size contract carries it: no dropout, attention or head-width keys."""
    return contract_inputs(by_id(row_id))[0]


def fact_notes(answer: dict[str, Any]) -> list[str]:
    openings = ("not given in the layout or the workload", "not given in the workload")
    return [a for a in answer["assumptions"] if a.startswith(openings)]


def test_a_published_layout_that_fits_only_without_the_assumed_dropout_is_taken_without() -> None:
    # Nemotron-4 340B on 128 H100 (NeMo 24.07 table: TP8 PP8 DP2 VP12, no recompute): squared-ReLU, given as
    # the contract's "gelu", so dropout layers are assumed, and their masks take it to 80.6 GiB of 79.6
    row = by_id("nemo2407-h100-nemotron4-340b-128")
    assert row.layout is not None
    keys = ("tp", "pp", "dp", "zero", "micro_batch", "recompute", "virtual_stages")
    layout = {k: row.layout[k] for k in keys}
    stated = evaluate({**contract_workload(row.id), "dropout": True}, dict(row.offering), layout)
    assert not stated["feasible"] and stated["memory_gib_per_gpu"]["total"] == pytest.approx(80.6, abs=0.05)
    assert fact_notes(stated) == []  # a stated dropout is evaluated as stated
    # its shape is Nemotron-4 340B's, whose publication says no dropout (architectures.py): taken, no refit
    published = evaluate(contract_workload(row.id), dict(row.offering), layout)
    assert published["feasible"] and published["workload"]["dropout"] is False
    assert fact_notes(published) == []
    assert any(
        a.startswith("the shape is Nemotron-4 340B's: dropout false") for a in published["assumptions"]
    )
    # dropout given as null keeps the engine's own default, the GELU class's dropout layers, which do not fit
    answer = evaluate({**contract_workload(row.id), "dropout": None}, dict(row.offering), layout)
    assert answer["feasible"], answer["reasons"]
    assert answer["workload"]["dropout"] is False
    (note,) = fact_notes(answer)
    assert note.startswith("not given in the workload: workload.dropout.")
    assert "(dropout layers) the layout as stated needs 80.6 GiB" in note
    assert note.split("taken: ")[1].startswith("no dropout layers")
    # the class-default sentence no longer claims dropout layers
    assert not any(a.startswith("dropout not given") for a in answer["assumptions"])
    without = evaluate({**contract_workload(row.id), "dropout": False}, dict(row.offering), layout)
    assert answer["iteration_time_s"] == without["iteration_time_s"] == published["iteration_time_s"]
    assert answer["memory_gib_per_gpu"] == without["memory_gib_per_gpu"]


def mpt_from_the_contract(row_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(layout, answer): an MPT row's published degrees, micro-batch and recompute with the contract's
    workload keys; the answer must be feasible."""
    row = by_id(row_id)
    assert row.layout is not None
    layout = {k: row.layout[k] for k in ("tp", "pp", "dp", "zero", "micro_batch", "recompute")}
    answer = evaluate(contract_workload(row.id), dict(row.offering), layout)
    assert answer["feasible"], answer["reasons"]
    return layout, answer


def test_fused_attention_and_no_dropout_where_the_a100_defaults_cannot_hold_the_layout() -> None:
    # MPT-1B on 64 A100 40GB (MosaicML's table: FSDP, micro-batch 16 of 2,048, no recompute): unfused
    # attention (the A100's calibration default) and dropout layers would need 119 GiB of 40
    layout, answer = mpt_from_the_contract("mpt-a100-40-1b-64")
    assert (answer["workload"]["attention"], answer["workload"]["dropout"]) == ("flash", False)
    (note,) = fact_notes(answer)
    assert "workload.dropout, workload.attention" in note
    assert "taken: no dropout layers, fused attention" in note
    # the layout's own keys are stated, so only the workload's facts could move
    assert (answer["layout"]["zero"], answer["layout"]["recompute"]) == (layout["zero"], layout["recompute"])


def test_as_few_facts_move_as_make_it_fit() -> None:
    # MPT-3B on 128 A100 40GB: fused attention alone brings it to 38.5 GiB, so the dropout layers of its
    # class stay (no dropout would be faster still, but it is not needed for the layout to fit)
    layout, answer = mpt_from_the_contract("mpt-a100-40-3b-128")
    row = by_id("mpt-a100-40-3b-128")
    assert (answer["workload"]["attention"], answer["workload"]["dropout"]) == ("flash", True)
    (note,) = fact_notes(answer)
    assert note.split("taken: ")[1].startswith("fused attention.")
    both = evaluate(
        {**contract_workload(row.id), "attention": "flash", "dropout": False}, dict(row.offering), layout
    )
    assert both["feasible"] and both["iteration_time_s"] < answer["iteration_time_s"]


def test_the_layouts_own_unstated_keys_give_way_before_the_workloads_facts() -> None:
    # GPT-3 175B on 384 A100 with data parallelism alone: ZeRO-3 with full recompute fits with dropout
    # layers and unfused attention, as the 2021 run had them, so those stay
    row = by_id("narayanan21-t2-zero3-174b-384")
    workload = contract_workload(row.id)
    answer = evaluate(workload, dict(row.offering), {"tp": 1, "pp": 1, "dp": 384})
    assert answer["feasible"]
    assert (answer["layout"]["zero"], answer["layout"]["recompute"]) == (3, "full")
    assert answer["workload"]["dropout"] is True and answer["workload"]["attention"] == "auto"
    assert fact_notes(answer) == [] and len(fit_notes(answer)) == 1


def test_a_preset_or_stated_facts_never_move_and_a_miss_names_them_all() -> None:
    # one A100 40GB node for a 30B model: nothing fits, whatever the facts; the note names every open one
    offering = {**meta_cluster(1), "gpu": "A100-SXM-40GB", "gbps_per_nic": 200, "fabric": "infiniband"}
    answer = evaluate(contract_workload("mpt-a100-40-30b-128"), offering, {"tp": 8})
    assert not answer["feasible"]
    (note,) = fit_notes(answer)
    assert note.startswith("not given in the layout or the workload: zero, recompute, workload.dropout, ")
    assert note.endswith("and no other setting of them fits either")
    assert answer["workload"]["dropout"] is True
    preset = evaluate("gpt3-175b", offering, {"tp": 8})
    assert not preset["feasible"] and "workload." not in " ".join(fit_notes(preset))


# --- expert tensor parallelism a given MoE layout leaves out -----------------------------------------------


def test_folded_experts_that_do_not_fit_give_way_to_experts_split_by_tp() -> None:
    # Grok-1 (8 experts of width 32,768) on 128 GB200 with TP4 EP8 (the DGX Cloud benchmark recipe runs ETP
    # 4): from the contract's keys the folded-experts default, ETP 1, holds a whole expert per rank (251 GiB
    # of 185); Megatron-Core's own default, ETP = TP, fits and is taken, said in `assumptions`
    workload, offering, layout = contract_inputs(by_id("dgxc2505-gb200-grok1-314b-128-bf16"))
    assert "etp" not in layout and layout["zero"] == 1 and layout["recompute"] == "none"
    answer = evaluate(workload, offering, layout)
    assert answer["feasible"] and answer["layout"]["etp"] == 4
    (note,) = fit_notes(answer)
    assert note.startswith("not given in the layout: etp. The defaults (expert tensor parallelism 1) need")
    taken = "the fastest setting that fits was taken: expert tensor parallelism 4. Say which your training"
    assert taken in note
    # a stated ETP is never changed: the same layout with ETP 1 written out does not fit
    stated = evaluate(workload, offering, {**layout, "etp": 1})
    assert not stated["feasible"] and stated["layout"]["etp"] == 1 and fit_notes(stated) == []


def test_etp_is_not_a_choice_for_dense_layouts_or_layouts_that_fit() -> None:
    answer = evaluate(
        LLAMA_405B_DROPOUT, meta_cluster(1024), {"tp": 8, "pp": 16, "dp": 64, "recompute": "none"}
    )
    (note,) = fit_notes(answer)
    assert note.startswith("not given in the layout: zero.")  # no etp for a dense model
    workload, offering, layout = contract_inputs(by_id("dgxc2505-gb200-grok1-314b-512-fp8"))
    small = {**workload, "seq_len": 1024}  # fits with the folded default: kept
    kept = evaluate(small, offering, layout)
    assert kept["feasible"] and kept["layout"]["etp"] == 1 and fit_notes(kept) == []


def test_selective_recompute_without_its_modules_takes_the_fastest_list_that_fits() -> None:
    # Megatron-Bridge 26.02's DeepSeek-V3 on 256 GB300 (TP1 PP4 EP32 VP4, selective recompute of the latent
    # up-projections): from the contract's keys, Megatron-Core's default list (the attention core) needs
    # 291.2 GiB of the 268.2; the fastest list that fits is the recipe's own
    row = by_id("bridge2602-gb300-deepseek-v3-256-mxfp8")
    assert row.layout is not None and row.layout["recompute_modules"] == ["mla_up_proj"]
    layout = {k: row.layout[k] for k in ("tp", "pp", "dp", "ep", "zero", "micro_batch", "recompute")}
    layout["virtual_stages"] = row.layout["virtual_stages"]
    answer = evaluate(contract_workload(row.id), dict(row.offering), layout)
    assert answer["feasible"], answer["reasons"]
    assert answer["layout"]["recompute_modules"] == ["mla_up_proj"]
    (note,) = fact_notes_modules(answer)
    assert "The defaults (selective recompute of the attention core) need 291.2 GiB" in note
    assert note.split("taken: ")[1].startswith("selective recompute of the latent attention's up-projections")
    # the default list where it fits; a stated list is never changed
    stated = evaluate(
        contract_workload(row.id), dict(row.offering), {**layout, "recompute_modules": ["core_attn"]}
    )
    assert not stated["feasible"] and not fact_notes_modules(stated)
    # full recompute states no module list, and none is tried
    full = evaluate(contract_workload(row.id), dict(row.offering), {**layout, "recompute": "full"})
    assert "recompute_modules" not in full["layout"] and not fact_notes_modules(full)


def fact_notes_modules(answer: dict[str, Any]) -> list[str]:
    return [a for a in fit_notes(answer) if "recompute_modules" in a.split(".")[0]]


def test_the_module_lists_are_the_workloads_own() -> None:
    from sizing.engine.checkpointing import MLA_UP_PROJ, MOE_ACT, SHARED_EXPERTS
    from sizing.engine.fitting import module_lists
    from sizing.engine.workload import PRESETS

    dense = module_lists(PRESETS["llama3-70b"])
    assert len(dense) == 2**3 - 2  # attention core, layer norms, MLP: every non-empty list but the default
    assert not {MLA_UP_PROJ, MOE_ACT, SHARED_EXPERTS} & {m for lst in dense for m in lst}
    moe = module_lists(PRESETS["deepseek-v3-671b"])
    assert len(moe) == 2**6 - 2 and (MLA_UP_PROJ,) in moe and (MOE_ACT, SHARED_EXPERTS) in moe
