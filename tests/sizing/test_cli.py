from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from sizing.engine import constants as C
from sizing.engine.cli import main
from tests.sizing.conftest import DOCUMENTED_LAYOUT_KEYS, SIZE_ANSWER_KEYS

TOP = SIZE_ANSWER_KEYS | {"cost"}
# fields added by the v2 model (issue 17): expert tensor parallelism and the framework's overlap settings,
# the ZeRO-3 gathered parameters as their own memory line, the wait for the slowest replica; the pipeline
# engine (Megatron's or DeepSpeed's), the gradient-reduction precision, FSDP's reshard_after_forward, the
# ZeRO-3 gather implementation (per tensor or flat buffers), the MoE token dispatcher, the pipeline split
# (uneven ends; the embedding and loss as pipeline layers), the MoE all-to-all overlap
ADDED_LAYOUT = {
    "etp",
    "tp_comm_overlap",
    "overlap_grad_reduce",
    "overlap_param_gather",
    "overlap_p2p_comm",
    "pipeline_engine",
    "grad_reduce_in_fp32",
    "reshard_after_forward",
    "zero3_gather",
    "moe_dispatcher",
    "overlap_moe_expert_parallel_comm",
    "first_stage_layers",
    "last_stage_layers",
    "account_for_embedding_in_pipeline_split",
    "account_for_loss_in_pipeline_split",
    "cross_entropy",  # the loss's implementation, the framework default stated (sizing.engine.loss)
}


def run(argv: list[str], resolve: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, resolve_offering=resolve, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_search_json_has_every_contract_key(a100_ib: dict[str, Any]) -> None:
    code, out, _ = run(
        ["--workload", "gpt3-175b", "--offering", json.dumps(a100_ib), "--gpus", "1024", "--json"]
    )
    assert code == 0
    r = json.loads(out)
    assert TOP <= set(r)
    assert set(r["layout"]) == DOCUMENTED_LAYOUT_KEYS | ADDED_LAYOUT
    assert set(r["params"]) == {"total", "active"}
    assert set(r["memory_gib_per_gpu"]) == {
        "weights",
        "grads",
        "optimizer",
        "gathered_params",
        "activations",
        "overhead",
        "total",
    }
    assert set(r["iteration_breakdown_s"]) == {
        "compute",
        "recompute",
        "tp_comm",
        "pp_comm",
        "dp_comm",
        "ep_comm",
        "cp_comm",
        "bubble",
        "sync",
        "other",
    }
    assert set(r["goodput"]) >= {
        "mtbf_h",
        "checkpoint_interval_min",
        "checkpoint_write_s",
        "restart_min",
        "fraction",
    }
    assert set(r["cost"]) >= {"usd_per_gpu_hour", "gpu_hours", "total_usd"}
    assert set(r["search"]) >= {"evaluated", "feasible", "seconds"}
    assert isinstance(r["alternatives"], list) and r["alternatives"]
    assert "does not fit memory" in r["rejected"]
    assert 0 < r["mfu"] < 1
    assert sum(r["iteration_breakdown_s"].values()) == pytest.approx(r["iteration_time_s"], rel=1e-3)


def test_layout_from_file_and_offering_from_resolver(tmp_path: Any, a100_ib: dict[str, Any]) -> None:
    lay = tmp_path / "layout.json"
    lay.write_text(json.dumps({"tp": 8, "pp": 8, "virtual_stages": 3}))
    code, out, _ = run(
        ["--workload", "gpt3-175b", "--offering", "selene", "--layout", str(lay), "--gpus", "512", "--json"],
        resolve={"selene": a100_ib}.__getitem__,
    )
    assert code == 0
    r = json.loads(out)
    assert r["layout"]["dp"] == 8 and r["gpus"] == 512 and r["feasible"]
    assert "search" not in r


def test_text_form_is_readable(a100_ib: dict[str, Any]) -> None:
    code, out, _ = run(["--workload", "gpt3-175b", "--offering", json.dumps(a100_ib), "--gpus", "1024"])
    assert code == 0
    assert "Layout: TP=" in out and "Memory per GPU" in out and "MFU" in out and "Why:" in out
    # how close the estimate is, under the training days: GPT-3 175B's own published runs
    runs = C.MODEL_ACCURACY_BY_MODEL["GPT-3 175B"][0]
    assert f"How close this estimate is: on {runs} published training runs of GPT-3 175B" in out


def test_text_memory_line_sums_to_its_total_with_zero3(a100_ib: dict[str, Any]) -> None:
    layout = json.dumps({"tp": 1, "pp": 1, "zero": 3})
    code, out, _ = run(
        ["--workload", "13b", "--offering", json.dumps(a100_ib), "--gpus", "64", "--layout", layout]
    )
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("Memory per GPU"))
    parts = [float(v) for v in re.findall(r"\d+\.\d", line.split("=")[0])]
    assert "gathered parameters" in line and sum(parts) == pytest.approx(
        float(line.split("= ")[1].split()[0]), abs=0.3
    )


def test_infeasible_layout_is_an_answer(a100_ib: dict[str, Any]) -> None:
    code, out, _ = run(
        [
            "--workload",
            "gpt3-175b",
            "--offering",
            json.dumps(a100_ib),
            "--layout",
            '{"tp": 1, "pp": 1, "zero": 0, "recompute": "none"}',
            "--gpus",
            "8",
            "--json",
        ]
    )
    assert code == 0
    r = json.loads(out)
    assert r["feasible"] is False
    assert any("does not fit memory" in x for x in r["reasons"])


def test_search_without_any_feasible_layout_is_an_answer(a100_ib: dict[str, Any]) -> None:
    code, out, _ = run(["--workload", "dense-1t", "--offering", json.dumps(a100_ib), "--gpus", "8", "--json"])
    assert code == 0
    r = json.loads(out)
    assert r["feasible"] is False and r["reasons"] and r["search"]["feasible"] == 0


@pytest.mark.parametrize(
    ("workload", "offering_patch", "layout", "field"),
    [
        ({"name": "w", "layers": 4, "hidden": 1000, "heads": 7}, {}, None, "workload.heads"),
        ("gpt3-175b", {}, {"tp": 5}, "layout.tp"),
        ({"name": "w", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 4}, {}, {"tp": 8}, "layout.tp"),
        ("deepseek-v3-671b", {}, {"ep": 3}, "layout.ep"),
        ("gpt3-175b", {"gpu": "TPU-v9"}, None, "offering.gpu"),
        ({"name": "w", "layers": -4, "hidden": 4096, "heads": 32}, {}, None, "workload.layers"),
        ({"name": "w", "layers": 4, "hidden": 4096, "heads": 32, "seq_len": 0}, {}, None, "workload.seq_len"),
        ("gpt3-175b", {"nics_per_node": 0}, None, "offering.nics_per_node"),
        ("gpt3-175b", {"gbps_per_nic": -200}, None, "offering.gbps_per_nic"),
        ("gpt3-175b", {}, {"micro_batch": 0}, "layout.micro_batch"),
        (
            {"name": "w", "layers": 4, "hidden": 4096, "heads": 32, "attention": "sparse"},
            {},
            None,
            "workload.attention",
        ),
    ],
)
def test_bad_input_exits_2_naming_the_field(
    a100_ib: dict[str, Any], workload: Any, offering_patch: dict[str, Any], layout: Any, field: str
) -> None:
    w = workload if isinstance(workload, str) else json.dumps(workload)
    argv = ["--workload", w, "--offering", json.dumps({**a100_ib, **offering_patch}), "--gpus", "64"]
    if layout is not None:
        argv += ["--layout", json.dumps(layout)]
    code, _, err = run(argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}:"), err


def test_negative_gpus_and_unknown_slug_exit_2(a100_ib: dict[str, Any]) -> None:
    code, _, err = run(["--workload", "13b", "--offering", json.dumps(a100_ib), "--gpus", "-8"])
    assert code == 2 and err.startswith("error: gpus:")
    code, _, err = run(["--workload", "13b", "--offering", "nope"], resolve={}.__getitem__)
    assert code == 2 and err.startswith("error: offering: unknown slug")
    code, _, err = run(["--workload", "13b", "--offering", "nope"])
    assert code == 2 and err.startswith("error: offering: unknown slug")
    code, _, err = run(["--workload", "no-such-preset", "--offering", json.dumps(a100_ib)])
    assert code == 2 and err.startswith("error: workload:")


@pytest.mark.parametrize("written", ["GPT-3 175B", "GPT3-175B", " gpt3_175b "])
def test_a_preset_named_as_people_write_it_is_that_preset(written: str, a100_ib: dict[str, Any]) -> None:
    argv = ["--offering", json.dumps(a100_ib), "--gpus", "1024", "--json"]
    code, out, _ = run(["--workload", written, *argv])
    expected_code, expected, _ = run(["--workload", "gpt3-175b", *argv])
    assert code == expected_code == 0
    drop = ("search",)  # its wall-clock seconds differ between two runs
    assert {k: v for k, v in json.loads(out).items() if k not in drop} == {
        k: v for k, v in json.loads(expected).items() if k not in drop
    }


def test_an_assumed_link_rate_is_said_in_words_not_as_a_field_name(a100_ib: dict[str, Any]) -> None:
    code, out, _ = run(
        ["--workload", "gpt3-175b", "--offering", json.dumps(a100_ib), "--gpus", "1024", "--json"]
    )
    assert code == 0
    notes = json.loads(out)["assumptions"]
    said = [n for n in notes if n.startswith("intra-node bandwidth per GPU not published")]
    assert said and "NVIDIA A100 SXM4 80GB over full-mesh (NVSwitch)" in said[0]  # names, not codes or keys
    assert not any("intra_node_gbytes_per_s" in n for n in notes)


def test_a_run_shorter_than_a_day_is_not_said_to_take_zero_days(h100_ib: dict[str, Any]) -> None:
    short = {"name": "tiny", "params": 1e9, "seq_len": 2048, "global_batch": 512, "train_tokens": 1e9}
    code, out, _ = run(["--workload", json.dumps(short), "--offering", json.dumps(h100_ib), "--json"])
    assert code == 0
    r = json.loads(out)
    assert 0 < r["train_days_no_failures"] <= r["train_days"] < 0.1
    assert all(a["train_days"] > 0 for a in r["alternatives"])
