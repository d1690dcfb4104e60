"""The report and its findings on real logs, without the database (the report modules are pure)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

from django.utils import translation

from acceptance.bundle import read_bundle
from acceptance.findings import bundle_findings, verdict_findings
from acceptance.models import AcceptanceRun
from acceptance.report import build_report, indicator_rows
from acceptance.selectors import frozen_rows
from benchmarks.compare import compare
from benchmarks.parsers import parse
from hardware.messages import Msg
from portal.i18n import translated
from quotes.display import _acceptance
from tests.benchmarks._shared import FIXTURES, require_shared

IB_H100 = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "fabric": "infiniband",
           "nics_per_node": 8, "gbps_per_nic": 400.0}  # fmt: skip


def item(path: Path, **extra: Any) -> dict[str, Any]:
    parsed = parse(path.read_bytes()).as_dict()
    out = {"upload_id": 1, "filename": path.name, **parsed, "nodes": None, "gpus": None, **extra}
    out["verdicts"] = compare(IB_H100, out)
    return out


def test_a_failed_run_and_a_bandwidth_collapse_mid_sweep_are_named_by_file_and_line() -> None:
    log = require_shared() / "benchlogs/nccl-tests/xxrjun-h100-2node-network-error-failure.txt"
    texts = [f["text"] for f in bundle_findings(IB_H100, [item(log)])]
    assert texts[0].startswith(f"{log.name} line 18: alltoall run failed: ")
    assert "remote process exited or there was a network error" in texts[0]
    # sendrecv: 9.27 GB/s at 256 MiB, then 3.91 GB/s at 2 GiB (line 48) and down to 1.09 at 16 GiB.
    assert texts[1] == (
        f"{log.name} line 48: sendrecv bus bandwidth collapses mid-sweep to 3.91 GB/s at 2147483648 B "
        "(up to 9.27 GB/s at smaller sizes)"
    )
    report = build_report(IB_H100, [item(log)])
    assert report["verdict"] == "fail" and report["indicators"]["stability"]["interruptions"] == 1
    # no drift was measured (one pass): the finding says so by leaving it out, never "drift None%"
    assert "stability: 1 interruption, 0 Xid or GPU-lost events" in report["findings"]


def test_pcie_pairs_are_a_finding_only_where_a_full_mesh_is_claimed() -> None:
    topo = item(require_shared() / "evidence/nvidia-smi-topo-m/4x-l40s-pcie-only-node-sys-2nic.txt")
    [found] = bundle_findings(IB_H100, [topo])
    assert found["kind"] == "pcie-not-mesh" and found["line"] == 1
    assert "6 GPU pairs without NVLink (GPU0-GPU1 NODE, GPU0-GPU2 SYS" in found["text"]
    assert bundle_findings({**IB_H100, "intra_node": "pcie"}, [topo]) == []


def test_down_front_end_ethernet_ports_are_reported_without_failing_an_infiniband_cluster() -> None:
    ports = item(require_shared() / "evidence/ibstat/gpud-h100-8x400-ib-active-cx6-eth-ports-down.txt")
    found = bundle_findings(IB_H100, [ports])
    assert {f["kind"] for f in found} == {"port-down"} and len(found) == 3
    assert not any(f["blocking"] for f in found)
    assert all("outside the claimed InfiniBand fabric" in f["text"] for f in found)


def _probe(world: int, tokens: float) -> dict[str, Any]:
    summary = {"world_size": world, "median_tokens_per_s_per_gpu": tokens, "first_line": 3, "last_line": 40}
    return {"upload_id": world, "filename": f"train_{world}.log", "kind": "torchtitan", "summary": summary}


def test_training_probes_at_several_node_counts_give_the_scaling_efficiency() -> None:
    report = build_report(IB_H100, [_probe(8, 1000.0), _probe(16, 960.0), _probe(32, 850.0)])
    scaling = report["indicators"]["scaling_efficiency"]
    assert scaling["value"] == 0.85 and scaling["verdict"] == "fail"
    assert scaling["basis"] == "training throughput per GPU (tokens_per_s_per_gpu) at 4 nodes over 1 node"
    assert [p["nodes"] for p in scaling["throughput_curve"]] == [1, 2, 4]
    assert report["verdict"] == "fail" and any(
        f.startswith("scaling efficiency 0.85") for f in report["findings"]
    )


def test_links_and_devices_in_a_tar_are_skipped_not_followed() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("results/passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
        data = b"hello"
        info = tarfile.TarInfo("results/a.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    bundle = read_bundle(buffer.getvalue())
    assert [m.name for m in bundle.members] == ["results/a.txt"]
    assert bundle.skipped == [("results/passwd", "a link or device, not a file: not read")]


def test_one_cluster_at_1_and_10_nodes_judges_bandwidth_but_cannot_judge_scaling() -> None:
    logs = require_shared() / "benchlogs/nccl-tests"
    items = [
        item(logs / "xxrjun-h100-1node-8gpu-5colls.txt"),
        item(logs / "xxrjun-h100-10node-80gpu-5colls.txt"),
    ]
    report = build_report(IB_H100, items)
    bandwidth = report["indicators"]["collective_bandwidth"]
    # all_reduce at 16 GiB on 10 nodes x 8 H100 (SOURCES.md: 320.54 GB/s).
    assert (bandwidth["collective"], bandwidth["nodes"], bandwidth["busbw_gbps"]) == (
        "all_reduce",
        10,
        320.54,
    )
    assert bandwidth["intra_node"]["nodes"] == 1 and bandwidth["intra_node"]["busbw_gbps"] == 482.27
    scaling = report["indicators"]["scaling_efficiency"]
    assert scaling["verdict"] == "cannot-measure" and scaling["value"] is None
    assert [p["nodes"] for p in scaling["curve"]] == [1, 10] and "two or more multi-node counts" in scaling[
        "basis"
    ]
    assert report["measured"] == {"nodes": 10, "gpus": 80, "gpus_per_node": 8}
    assert report["verdict"] != "pass"


def _chinese(message: Any, english: str) -> str:
    with translation.override("zh-hans"):
        return translated(message, english)


def test_every_finding_and_basis_of_the_corpus_reads_in_chinese_and_keeps_its_english_text() -> None:
    shared = require_shared()
    files = sorted((shared / "benchlogs").rglob("*.txt")) + sorted((shared / "evidence").rglob("*.txt"))
    files += sorted(p for p in FIXTURES.glob("*.txt"))  # a failed dcgmi diag among them
    items = [item(path) for path in files]
    steps = [("steps.tsv", "1\tnccl_all_reduce@2\t2026-01-01T00:00:00Z\t1\n2\tdcgmi\tx\tmissing:dcgmi\n")]
    report = build_report(IB_H100, items, steps=steps)
    probes = build_report(IB_H100, [_probe(8, 1000.0), _probe(32, 700.0)])
    details = report["finding_details"] + probes["finding_details"]
    kinds = {d["kind"] for d in details}
    assert {"port-down", "ethernet-link-layer", "diag-failed", "pcie-not-mesh", "run-failed", "xid"} <= kinds
    assert {"step-failed", "scaling_efficiency", "stability", "claim-failed"} <= kinds
    for detail in details:
        assert str(Msg.from_json(detail["message"])) == detail["text"]  # the API's English, unchanged
        chinese = _chinese(detail["message"], detail["text"])
        assert chinese != detail["text"] and any("\u4e00" <= ch <= "\u9fff" for ch in chinese), detail["text"]
    mesh = {"claim": "full NVLink mesh", "expected": True, "measured": False, "verdict": "fail", "lines": [3]}
    [found] = verdict_findings({"filename": "topo.txt", "verdicts": [mesh]})
    assert found["text"] == "topo.txt line 3: full NVLink mesh: measured no, expected yes"  # not False/True
    scaling = probes["indicators"]["scaling_efficiency"]
    assert scaling["basis"].startswith("training throughput per GPU")
    assert "吞吐量" in _chinese(scaling["basis_message"], scaling["basis"])


def test_a_quote_shows_its_frozen_acceptance_findings_in_the_readers_language() -> None:
    [finding] = bundle_findings(
        IB_H100,
        [_probe(8, 1.0)]
        + [item(require_shared() / "evidence/nvidia-smi-topo-m/4x-l40s-pcie-only-node-sys-2nic.txt")],
    )
    report = build_report(IB_H100, [_probe(8, 1000.0), _probe(32, 700.0)])
    rows = frozen_rows(AcceptanceRun(indicators=report["indicators"]))  # an unsaved run: no database
    frozen = {"rows": rows, "findings": [finding["text"]], "finding_messages": [finding["message"]]}
    with translation.override("zh-hans"):
        [chinese] = _acceptance(frozen)["findings"]
        chinese_rows = _acceptance(frozen)["rows"]
    with translation.override("en"):
        [english] = _acceptance(frozen)["findings"]
        [older] = _acceptance({"findings": [finding["text"]]})["findings"]  # a quote from before the messages
    assert english == older == finding["text"]
    assert "宣称 NVLink 全互联" in chinese and "GPU0-GPU1 NODE" in chinese
    assert [row["name"] for row in rows] == ["Collective bandwidth", "Scaling efficiency", "Stability"]
    assert [row["name"] for row in chinese_rows] == ["集合通信带宽", "扩展效率", "稳定性"]
    assert (
        rows[2]["measured"] == "no stability loop in the bundle"
        and chinese_rows[2]["measured"] != rows[2]["measured"]
    )
    assert chinese_rows[1]["measured"] == "0.70" and chinese_rows[1]["verdict"] == "fail"


def test_the_stability_cell_lists_its_parts_with_the_page_languages_separator() -> None:
    stability = {"hours": 24.0, "drift_pct": 3.5, "interruptions": 1, "xid_events": 0, "verdict": "fail"}
    [_, _, row] = indicator_rows({"stability": stability})
    assert str(row["measured"]) == "24 h, drift 3.5%, 1 interruption, 0 Xid or GPU-lost events"
    chinese = _chinese(row["measured"].as_json(), str(row["measured"]))
    assert chinese.startswith("24 h、") and chinese.count("、") == 3


def test_a_bundle_of_other_gpus_fails_on_their_model_and_its_bandwidth_is_not_judged() -> None:
    # An A100 log in a bundle for an H100 offering: the collective-bandwidth indicator took the file's first
    # verdict (then the GPU model's) and printed "expected None GB/s"; the bundle did not say it ran on
    # other GPUs. Now the bandwidth is not judged and the model is a finding that fails the bundle.
    log = item(FIXTURES / "real/nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt")
    report = build_report(IB_H100, [log])
    assert report["indicators"]["collective_bandwidth"]["verdict"] == "cannot-measure"
    assert report["verdict"] == "fail"
    texts = [f["text"] for f in bundle_findings(IB_H100, [log])]
    assert texts == [
        f"{log['filename']} line 4: GPU model: measured NVIDIA A100-SXM4-40GB, expected NVIDIA H100 SXM5 80GB"
    ]
    assert "None" not in " ".join(str(f) for f in report["findings"])


def test_runs_of_other_gpus_give_no_scaling_stability_or_headline_figure() -> None:
    # review: the headline busbw and a scaling "pass 0.99" came from the A100 runs of a bundle for an H100
    # offering; every indicator now reads the offering's GPUs' runs only
    log = item(FIXTURES / "real/nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt")
    run = next(r for r in log["summary"]["runs"] if r.get("collective") == "all_reduce")
    more = [{**run, "nodes": n, "ranks": 8 * n, "busbw_at_max_size_gbps": 228.0} for n in (4, 8)]
    bundle = {**log, "summary": {**log["summary"], "runs": [*log["summary"]["runs"], *more]}}
    report = build_report(IB_H100, [bundle])
    bandwidth, scaling_ = (
        report["indicators"]["collective_bandwidth"],
        report["indicators"]["scaling_efficiency"],
    )
    assert bandwidth["verdict"] == "cannot-measure" and bandwidth.get("busbw_gbps") is None
    # and its basis says why, not "no multi-node run: run the kit's jobs" (the bundle has them)
    assert "ran on NVIDIA A100-SXM4-40GB, not on the offering's GPU" in str(bandwidth["basis"])
    assert scaling_["verdict"] == "cannot-measure" and scaling_["value"] is None
    assert report["verdict"] == "fail"  # on the GPU model finding
    # the same runs under an A100 40GB offering are its own: judged
    a100 = {**IB_H100, "gpu": "A100-SXM-40GB"}
    assert build_report(a100, [bundle])["indicators"]["scaling_efficiency"]["verdict"] == "pass"


def test_the_offering_page_scaling_leaves_out_runs_of_other_gpus() -> None:
    from benchmarks.scaling import scaling

    log = item(FIXTURES / "real/nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt")
    run = next(r for r in log["summary"]["runs"] if r.get("collective") == "all_reduce")
    more = [{**run, "nodes": n, "ranks": 8 * n} for n in (4, 8)]
    bundle = {**log, "summary": {"runs": [run, *more]}}
    assert scaling([bundle], "A100-SXM-40GB")
    assert scaling([bundle], "H100-SXM-80GB") == []
