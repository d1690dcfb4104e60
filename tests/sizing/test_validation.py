"""The validation set (sizing/engine/validation.yaml): published runs with their published layouts."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from sizing.engine import constants as C
from sizing.engine import validation as V
from sizing.engine.workload import workload_from_dict
from tests.sizing.conftest import DOCUMENTED_LAYOUT_KEYS

COMPARED = [r for r in V.results() if r.row.compared]


def test_mean_error_of_the_iteration_time_stays_at_or_below_its_recorded_level() -> None:
    # The target is 10% (V.MEAN_TOLERANCE). The recorded level (what the model reaches, every row compared
    # whatever its error) goes down with the model's changes and up only when published runs are added; the
    # twenty-seventh stop's 70 runs took it above the target, the twenty-ninth stop's recompute modules back
    # under it (issue 17 stays open for the rows past their tolerance and one rejected layout). The level of
    # the rows compared before the twentieth stop's published runs, held on their own, is under it too.
    # The thirty-sixth stop's two gpt-oss verification cards on H100 (-59.5%, -31.6%) took it above the target
    # again; the thirty-seventh stop's latent projections (10.09% -> 10.06% on the same rows), its Kimi K2
    # rows with Muon (10.02%) and its four Llama 3 70B SFT runs, which the model meets, put it at the target
    # (9.994%; docs/MODEL.md). The fortieth stop's cross-entropy passes, a sourced mechanism with each row's
    # loss implementation read from its stack, took it above again (10.070%; 9.970% with the class defaults
    # alone): the level is held there and said so, not met by leaving the mechanism or the facts out.
    stats = V.statistics_by_split()
    assert stats["all"]["mean"] <= V.MEAN_RECORDED, stats
    assert V.MEAN_RECORDED > V.MEAN_TOLERANCE  # said so in docs/MODEL.md: lower it when the model meets it
    earlier = [abs(r.error) for r in COMPARED if not r.row.id.startswith(V.LATER_SOURCES)]
    assert len(earlier) == 222
    assert statistics.mean(earlier) <= V.MEAN_RECORDED_EARLIER <= V.MEAN_TOLERANCE


# The rows past their tolerance, each with its `known_miss` (validation.yaml) and docs/MODEL.md. A row that
# newly misses fails the test below; one the model comes to meet is taken off this list.
KNOWN_MISSES = {
    # the small fine-grained MoE rows: predicted fast by a fixed cost per layer and micro-batch whose cause
    # is not established (docs/MODEL.md, "The host-side reading checked against a measured profile"); three
    # more (gpt-oss-120b on 64 H100 in 25.11, Megatron-Core's Qwen3-235B PP32 and TP4 EP8) came within 25%
    # when the GEMM curve's half point became a fixed time per GEMM (twenty-first stop)
    "bridge2604-b200-gptoss-120b-64",
    "bridge2511-h100-qwen3-30b-a3b-16",
    # (26.04's 16-GPU Qwen3-30B-A3B, -25.1%, is within 25%, -24.7%, since the fortieth stop's loss passes)
    # and the one that crossed the other way: AutoModel's Qwen3-30B-A3B on 8 H100, +25.5%, its 16 local
    # experts' GEMMs each charged the fixed time (grouped_gemm on SM90 runs one cuBLAS GEMM per expert)
    "automodel-h100-qwen3-30b-a3b-8",
    # ZeRO-3 rows: Megatron-FSDP's Qwen3-235B (more traffic by its code than the published step leaves room
    # for); MPT-70B on 64 A100-40GB (traffic the run exposes and the model hides); AutoModel's DeepSeek-V3 on
    # 256 H100 (not its ZeRO-3 traffic, which the model hides whole)
    "mcoremoe-h100-qwen3-235b-256-fsdp-ep8",
    "mpt-a100-40-70b-64",
    "automodel-h100-deepseek-v3-256",
    # the one bf16 MoE run on MI325X, after the MI325X's measured sustained GEMM rate
    "aac11-mi325x-mixtral-8x7b-64",
    # FlagPerf's DeepSpeed ZeRO-3 Llama 2 7B on 8 A800 (Hugging Face eager layer; its H800 twin is within 15%)
    "flagperf-a800-llama2-7b-deepspeed-zero3-8",
    # published runs added at the eighteenth stop: Nemotron-4 15B with the settings its report leaves out
    # taken from a one-node recipe; GLM-130B, the DeepSpeed pipeline-engine lean of MT-NLG; MLPerf v4.1's
    # GPT-3 on 256 H100, a newer release than the model's time per FLOP
    "nemotron4-15b-pretrain-h100-2304",
    "glm-130b-a100-40gb-768",
    "mlperf41-h100-gpt3-175b-256",
    # published runs added at the nineteenth stop: BLOOM's TP8 benchmarks on 384 A100 (the DeepSpeed
    # pipeline-engine lean, at TP8), InternEvo's InternLM-7B with one micro-batch per step on 1,024 A100
    # (gradient exchange the source's own table prices above the model's)
    "bloomprequel-a100-181b-tp8pp2dp24-mbs2-384",
    "internevo-a100-internlm-7b-nockpt-acc1-1024",
    # published runs added at the twentieth stop: the first GB200 DeepSeek-V3 recipe of the DGX Cloud
    # benchmarks (NeMo 25.04.01, 10% MFU, a third of the same model on the same GPUs in Megatron-Bridge
    # 25.11); MLPerf v5.1's Llama 3.1 8B: TP2 on 128 H100 (1.49x the TP1 run's speed, the model 1.9x) and
    # 512 GB200 (one sequence per replica over TP2 CP4)
    "dgxc2505-gb200-deepseek-v3-128-bf16",
    "dgxc2505-gb200-deepseek-v3-256-bf16",
    "dgxc2505-gb200-deepseek-v3-512-bf16",
    "mlperf51-h100-cisco-llama31-8b-128",
    "mlperf51-gb200-nvidia-llama31-8b-512",
    # (NeMo 25.02's Grok-1 fp8 on 2,048 H100, past 25% by 0.1 point from the twenty-eighth stop's merge
    # passes, is within it, -23.5%, since the fortieth stop's cross-entropy passes (its unfused loss))
    # and its B200 and GB300 submissions that split each 8,192-token sequence over more GPUs: CP2 on 256 B200
    # (with a 17% weak-scaling loss the model does not see) and TP2 CP4 on 512 GB300
    "mlperf51-b200-uf-llama31-8b-256",
    "mlperf51-gb300-nvidia-llama31-8b-512",
    # the twenty-fifth stop's MLPerf v6.0 DeepSeek-V3 on 8,192 GB200: a strong-scaling loss from 2,048 GPUs
    # (published 33% per GPU, predicted 11%) that CoreWeave's GB300 runs of the same sizes do not show (its
    # 256-GPU GB300 twin was within 25% from the twenty-sixth stop's GB300 bf16 rate to the thirtieth stop)
    "mlperf60-gb200-nvidia-deepseek-v3-8192",
    # MLPerf v6.0's DeepSeek-V3 on 256 GB300, +23.6% -> +26.5% once MLA's activations are counted at their
    # widths (thirtieth stop); its GB200 twins lean fast
    "mlperf60-gb300-nvidia-deepseek-v3-256",
    # NeMo AutoModel's DeepSeek-V3 on 1,024 H100, read with the full recompute and the four runs of its
    # pipeline schedule per step its recipe had when the table was printed (thirtieth stop): +27.2%
    "automodel-h100-deepseek-v3-1024",
    # the twenty-sixth stop's Megatron-Bridge gpt-oss-120b on 64 B300 and MLPerf v6.0's gpt-oss-20b on 512
    # GB300, listed here then, are within 25% since the twenty-eighth stop (its eager passes; the 20B's
    # context parallelism by all-to-all, which sinks and windows need)
    # and, once gpt-oss's sliding-window attention is expressed (workload.sliding_window), the gpt-oss
    # lean grown past 25% on more rows: 26.04.01's three BF16 runs on 64 GB300, GB200 and B300 (added at the
    # same stop); Megatron-Bridge 25.11 on 64 H100 and 26.08 on 64 GB200 and Lambda's MLPerf gpt-oss-20b on 72
    # GB300, listed here then, are within 25% since the twenty-eighth stop, as are the H100 rows of the
    # twenty-seventh stop's releases
    "bridge260401-gb300-gptoss-120b-64-bf16",
    "bridge260401-gb200-gptoss-120b-64-bf16",
    "bridge260401-b300-gptoss-120b-64-bf16",
    # (Megatron-Bridge 25.11's BF16 gpt-oss-120b on 64 GB300, past 25% once the GB300 ran its bf16 GEMMs at
    # its measured rate, is within it, -24.9%, since the fortieth stop's cross-entropy passes)
    # the twenty-seventh stop's 70 published runs: gpt-oss-120b's 64-GPU configuration in the other releases
    # and GPUs of the Megatron-Bridge tables (the same lean, -27.8% to -46.1% then; -26.3% to -42.1% with the
    # twenty-eighth stop's eager passes)
    "bridge2602-gb300-gptoss-120b-64-bf16",
    "bridge2602-gb200-gptoss-120b-64-bf16",
    "bridge2602-b300-gptoss-120b-64-bf16",
    "bridge260201-gb300-gptoss-120b-64-bf16",
    "bridge260201-gb200-gptoss-120b-64-bf16",
    "bridge2604-gb300-gptoss-120b-64-bf16",
    "bridge2604-gb200-gptoss-120b-64-bf16",
    "bridge2604-b300-gptoss-120b-64-bf16",
    "bridge260401-b200-gptoss-120b-64-bf16",
    # and two recipes their own tables publish far slower than the next release's on the same GPUs: 26.02's
    # B300 Qwen3-235B (the 26.04 B300 recipe runs 1.8x faster) and 25.11's B200 Qwen3-30B-A3B (26.04 2.9x)
    "bridge2602-b300-qwen3-235b-a22b-256-mxfp8",
    "bridge2511-b200-qwen3-30b-a3b-8-mxfp8",
    # thirty-sixth stop: Megatron-Bridge's verification cards of gpt-oss-120b and gpt-oss-20b on H100 with
    # their library recipes (TP2 PP4, all-to-all, natural routing on real data): the gpt-oss family miss
    "mbcard-h100-gptoss-120b-64-bf16-natural",
    "mbcard-h100-gptoss-20b-16-bf16-natural",
}


@pytest.mark.parametrize("result", COMPARED, ids=[r.row.id for r in COMPARED])
def test_each_row_is_within_its_tolerance_or_says_why_not(result: V.Result) -> None:
    # dense with a fully published layout: 15%; MoE or assumed settings: 25% (issue 17). A row the model
    # misses states the mechanism it lacks (validation.yaml `known_miss`, docs/MODEL.md).
    within = abs(result.error) <= result.row.tolerance
    assert within or result.row.known_miss, (result.row.id, result.error, result.row.tolerance)


def test_the_rows_past_their_tolerance_are_the_known_misses_and_each_has_a_reason() -> None:
    misses = {r.row.id for r in COMPARED if abs(r.error) > r.row.tolerance}
    assert misses <= KNOWN_MISSES, sorted(misses - KNOWN_MISSES)
    # every listed row is still a miss (else take it off the list) and states its mechanism
    assert misses == KNOWN_MISSES, sorted(KNOWN_MISSES - misses)
    rows = {r.row.id: r.row for r in COMPARED}
    assert all(len(rows[i].known_miss or "") > 40 for i in KNOWN_MISSES)


# A known_miss opens with the row's signed error as the model gives it today ("-30.7%: ..." or
# "-30.7% (...)"), to one decimal, so that the reason a reader finds beside a miss is about the miss as it
# stands. Earlier figures may follow as history. The reasons about memory ("memory: ...") open with the
# memory instead.
_OPENING_ERROR = re.compile(r"^([+-]\d+\.\d)%[:,( ]")


@pytest.mark.parametrize(
    "result",
    [r for r in V.results() if r.row.known_miss and not r.row.known_miss.startswith("memory:")],
    ids=lambda r: r.row.id,
)
def test_each_known_miss_opens_with_the_error_the_model_gives_today(result: V.Result) -> None:
    opening = _OPENING_ERROR.match(result.row.known_miss or "")
    assert opening, (result.row.id, (result.row.known_miss or "")[:60])
    stated = float(opening.group(1))
    assert stated == pytest.approx(100 * result.error, abs=0.051), (result.row.id, result.error)


@pytest.mark.parametrize(
    "result",
    [r for r in V.results() if r.row.compared or "whole-run" in (r.row.exclude or "")],
    ids=lambda r: r.row.id,
)
def test_every_published_layout_fits_or_says_why_not(result: V.Result) -> None:
    # every run really happened with its layout: the model must accept it, unless the row states why its
    # memory model cannot (Llama 3 405B's schedule)
    assert result.feasible or (result.row.known_miss or "").startswith("memory:"), (
        result.row.id,
        result.memory_gib,
        result.hbm_gib,
    )


def test_excluded_rows_are_listed_with_a_reason_not_dropped() -> None:
    excluded = [r for r in V.rows() if not r.compared]
    assert excluded and all(r.exclude for r in excluded)
    assert {r.split for r in V.rows() if r.compared} == {"fit", "holdout"}


def test_every_row_cites_its_source_and_states_its_assumptions() -> None:
    for row in V.rows():
        assert row.source.strip()
        if row.compared and row.layout_published != "full":
            assert row.assumed, row.id


def test_the_held_out_split_is_reported_separately_and_close_to_the_fit_split() -> None:
    stats = V.statistics_by_split()
    assert stats["fit"]["rows"] >= 30 and stats["holdout"]["rows"] >= 15
    assert stats["holdout"]["mean"] <= 0.12, stats


# An outside tool that gives only the documented layout keys (DOCUMENTED_LAYOUT_KEYS) gets the framework
# settings' defaults, so the defaults themselves must describe the published runs.
ZERO3_ROWS = [r for r in COMPARED if r.row.id.startswith("narayanan21-t2-zero3-")]


@pytest.mark.parametrize("result", ZERO3_ROWS, ids=[r.row.id for r in ZERO3_ROWS])
def test_zero3_runs_given_only_the_documented_keys_are_within_tolerance(result: V.Result) -> None:
    """DeepSpeed's ZeRO-3 runs (Narayanan et al. 2021 Table 2, 384-2,240 A100) without any overlap flag:
    ZeRO-3's own default overlap (DeepSpeed stage 3 `overlap_comm`, FSDP prefetch) applies on every GPU
    generation; with the 2021 Megatron-LM no-overlap default these rows were -9.6% to +20.5% (three of six
    past +12%)."""
    row = result.row
    assert row.layout is not None and row.published_s is not None
    documented = {k: v for k, v in row.layout.items() if k in DOCUMENTED_LAYOUT_KEYS}
    r = V.evaluate(dict(row.workload), dict(row.offering), documented)
    assert r["layout"]["overlap_grad_reduce"] and r["layout"]["overlap_param_gather"]
    assert any("ZeRO-3 data-parallel overlap not given" in a for a in r["assumptions"])
    assert abs(r["iteration_time_s"] / row.published_s - 1.0) <= row.tolerance


# What an outside tool that sends only the size contract's keys (DESIGN section 5) gets on the published runs.
def _contract_keys(text: str, start: str, end: str) -> set[str]:
    """The quoted keys of one argument's JSON shape in DESIGN section 5 (the strings after "{" or ",")."""
    span = text[text.index(start) : text.index(end, text.index(start))]
    return set(re.findall(r'[{,]\s*"(\w+)"', span))


def test_the_contract_keys_are_the_ones_the_design_documents(shared: Path) -> None:
    design = (shared / "DESIGN.md").read_text()
    contract = design[design.index("### CLI contract") : design.index("Output keys")]
    assert _contract_keys(contract, "W:", "O:") == V.CONTRACT_WORKLOAD_KEYS | V.CONTRACT_MOE_KEYS
    assert _contract_keys(contract, "O:", "plus optional") == V.CONTRACT_OFFERING_KEYS
    assert _contract_keys(contract, "L:", "(missing keys") == V.CONTRACT_LAYOUT_KEYS == DOCUMENTED_LAYOUT_KEYS


def test_the_contract_inputs_drop_every_other_setting_of_a_row() -> None:
    row = V.by_id("mcoremoe-h100-qwen3-235b-256-ep32")  # states dispatcher, overlap flags, routing balance
    workload, offering, layout = V.contract_inputs(row)
    assert "load_imbalance" in row.workload["moe"] and "load_imbalance" not in workload["moe"]
    assert "head_dim" in row.workload and "head_dim" not in workload
    assert "oversubscription" in row.offering and "oversubscription" not in offering
    assert {"moe_dispatcher", "overlap_grad_reduce"} <= set(row.layout)
    assert set(layout) == {k for k in row.layout if k in DOCUMENTED_LAYOUT_KEYS}
    assert workload["moe"]["experts"] == 128 and layout["ep"] == 32 and offering["nodes"] == 32


def test_the_contract_keys_alone_are_held_to_their_recorded_mean_and_reject_no_new_layout() -> None:
    stats = V.contract_statistics()
    assert stats["rows"] == len(COMPARED)
    # held at its recorded level (raised only with a reason in docs/MODEL.md; with every setting 8.67%)
    assert stats["mean"] <= V.CONTRACT_MEAN_RECORDED + 5e-5, stats
    # a published layout is rejected from the contract's keys only where the row states why (Llama 3 405B's
    # assumed virtual stages), as with the row's own settings, or where the row's own optimizer convention
    # (not a contract key) is what makes it fit: BLOOM's fp16 DeepSpeed run keeps 2-byte gradients (the ZeRO
    # paper's count), and the engine's default on an A100 is Megatron-LM's 4-byte main gradients
    rejected = {r.row.id for r in V.contract_results() if not r.feasible}
    # and the DGX Cloud recipe's Nemotron-4 340B on 128 H100, whose `optim.dtype: bf16` keeps bf16 Adam states
    # without an fp32 master copy (`bf16-adam`), where the Hopper default keeps fp32 states
    by_convention = {"bloomprequel-a100-181b-tp8pp2dp24-mbs2-384", "dgxc2411-h100-nemotron4-340b-128-bf16"}
    assert all(V.by_id(i).layout.get("optimizer") in ("zero-paper", "bf16-adam") for i in by_convention)
    assert all(V.predict(V.by_id(i))["feasible"] for i in by_convention)
    # (a layout whose selective recompute does not name its modules fits where some list of them does,
    # fitting.module_lists: DeepSeek-V3's recipes on 256 GB300, which rerun the latent up-projections)
    assert len(rejected) <= 2, rejected
    unexplained = rejected - by_convention
    assert all((V.by_id(i).known_miss or "").startswith("memory:") for i in unexplained), rejected


def test_a_bare_parameter_count_is_held_to_its_recorded_mean() -> None:
    # the contract's other workload form: the dense rows sent as the parameter count of their real shape
    stats = V.params_statistics()
    assert stats["rows"] == sum(r.row.kind == "dense" for r in COMPARED)
    assert stats["mean"] <= V.PARAMS_MEAN_RECORDED + 5e-5, stats
    assert stats["rejected"] <= 3, stats
    # without the rows' names every shape is derived (none is taken from a published model's)
    anonymous = V.params_statistics(named=False)
    assert anonymous["mean"] <= V.PARAMS_ANONYMOUS_MEAN_RECORDED + 5e-5, anonymous
    assert anonymous["rejected"] <= 3, anonymous
    assert all(
        workload_from_dict(V.params_inputs(r.row, named=False)[0]).derived_from_params is not None
        for r in V.params_results(named=False)
    )
    # each derived shape counts the parameters it was given (embeddings included), within 5%
    for result in V.params_results():
        workload = V.params_inputs(result.row)[0]
        counted = workload_from_dict(dict(workload)).total_params()
        assert counted == pytest.approx(workload["params"], rel=0.05), result.row.id


def test_the_contract_command_prints_the_moved_rows_and_the_summary() -> None:
    # the command docs/MODEL.md names ("What the contract's keys alone give")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-m", "sizing.engine.validation", "--contract"],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    ).stdout.strip()
    stats = V.contract_statistics()
    assert out.splitlines()[0] == "| run | error, row's settings | error, contract keys | fits |"
    assert out.endswith(
        f"contract keys only: {stats['rows']} rows, mean |error| {100 * stats['mean']:.2f}%, max "
        f"{100 * stats['max']:.1f}%, {stats['past_tolerance']} past tolerance, "
        f"{stats['rejected']} layouts rejected"
    )
    # the Nemotron-4 340B row fits from the contract's keys and moves less than 3 points: not listed
    assert "| nemo2407-h100-nemotron4-340b-128 |" not in out
    assert "| llama3-405b-h100-8192 | -5.5% | -5.5% | no (89 of 80 GiB) |" in out


def test_model_md_states_the_figures_the_set_gives_today() -> None:
    # docs/MODEL.md's summary table, its per-row table and the band table are the set as the model gives it
    # now: a change that moves them without the document following fails here (docs stay true to the code)
    text = (Path(__file__).resolve().parents[2] / "docs" / "MODEL.md").read_text()
    errors = [abs(r.error) for r in COMPARED]
    within = sum(abs(r.error) <= r.row.tolerance for r in COMPARED)
    all_row = (
        f"| all compared | {len(COMPARED)} | {100 * statistics.mean(errors):.2f}% | {100 * max(errors):.1f}% "
        f"| {within} |"
    )
    assert all_row in text, all_row
    # every row of the per-row table, as `python -m sizing.engine.validation` prints it
    table = [line for line in V.markdown_table().splitlines() if line.startswith("| ")]
    missing = [line for line in table if line not in text]
    assert not missing, missing[:3]
    for kind, label in (("dense", "dense"), ("moe", "MoE")):
        runs, mean_abs, low, high = C.MODEL_ACCURACY[kind]
        band = f"| {label} | {runs} | {100 * mean_abs:.1f}% | {low:.2f}-{high:.2f} |"
        assert band in text, band
