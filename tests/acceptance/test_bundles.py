"""Bundles: real logs in, the three indicators, the verdict and findings naming file and line out."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import TestCase

from acceptance import services
from acceptance.models import AcceptanceRun
from benchmarks.models import Upload
from tests.acceptance.test_kit import run_slurm_kit_with_stubs
from tests.benchmarks._shared import require_shared
from tests.providers.factories import GPUModelFactory, OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[1] / "benchmarks" / "fixtures"
AAC11 = "benchlogs/rccl-tests/aac11-mi325x-allreduce-1-2-4-8node-grep-excerpt.txt"


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def targz(files: dict[str, bytes]) -> bytes:
    """The files as a .tar.gz, the same bytes for the same files: the gzip header's time is fixed (mode
    "w:gz" writes the current second, so two archives of one bundle made a second apart would differ)."""
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed:
        compressed.write(tar.getvalue())
    return buffer.getvalue()


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def process(offering: Any, data: bytes, name: str = "bundle.tar.gz", **kwargs: Any) -> AcceptanceRun:
    """Create the run and let the enqueued task run (in-process, as in embedded mode)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        run = services.acceptance_create(owner=kwargs.pop("owner", None) or UserFactory(), offering=offering,
                                         name=name, data=data, **kwargs)  # fmt: skip
    run.refresh_from_db()
    return run


def mi325x_roce_offering() -> Any:
    gpu = GPUModelFactory(key="MI325X-256GB", name="AMD Instinct MI325X", vendor="AMD", hbm_gb=256.0)
    return OfferingFactory(
        gpu=gpu, intra_node="nvlink-mesh", fabric="roce", nics_per_node=8, gbps_per_nic=400
    )


def _aac11_by_node_count(corpus: Path) -> dict[str, bytes]:
    """The real excerpt split at its own `====== N-node ======` separators: one file per node count."""
    text = (corpus / AAC11).read_text()
    parts = re.split(r"(?m)(?=^={6} \d+-node ={6}$)", text)
    files = {}
    for part in parts[1:]:
        nodes = re.match(r"====== (\d+)-node", part)
        assert nodes is not None
        files[f"results/nccl/all_reduce_{nodes[1]}n.log"] = part.encode()
    return files


@pytest.mark.parametrize("split", [False, True], ids=["one-file", "one-file-per-node-count"])
def test_real_nccl_logs_at_1_2_4_8_nodes_give_busbw_scaling_proxy_and_no_pass(split: bool) -> None:
    corpus = require_shared()
    files = _aac11_by_node_count(corpus) if split else {"aac11.txt": (corpus / AAC11).read_bytes()}
    assert len(files) == (4 if split else 1)
    run = process(mi325x_roce_offering(), targz(files))
    assert run.status == "done", run.error
    bandwidth = run.indicators["collective_bandwidth"]
    assert (bandwidth["nodes"], bandwidth["collective"], bandwidth["busbw_gbps"]) == (8, "all_reduce", 350.84)
    # 8 NICs x 400 Gb/s = 400 GB/s per node x 0.92 for RoCE (benchmarks.compare, hardware.network).
    assert bandwidth["expected_gbps"] == pytest.approx(368.0) and bandwidth["verdict"] == "pass"
    scaling = run.indicators["scaling_efficiency"]
    assert scaling["basis"].startswith("proxy: all_reduce bus bandwidth")
    assert [p["nodes"] for p in scaling["curve"]] == [1, 2, 4, 8]
    assert scaling["curve"][-1]["busbw_gbps"] == 350.84
    assert scaling["value"] == pytest.approx(350.84 / 350.59, abs=1e-3) and scaling["verdict"] == "pass"
    stability = run.indicators["stability"]
    assert stability["verdict"] == "cannot-measure" and "STABILITY_HOURS" in stability["what_to_run"]
    assert run.verdict == "incomplete"
    # Counted from the logs (separators, busbw/algbw ratio): 8 nodes, 64 ranks, 8 GPUs per node.
    assert run.measured == {"nodes": 8, "gpus": 64, "gpus_per_node": 8}
    assert {f["kind"] for f in run.files} == {"nccl-tests"}
    assert all(Upload.objects.filter(pk=f["upload"], status="parsed").exists() for f in run.files)


def test_ports_down_ethernet_link_layer_and_a_failed_diagnostic_fail_with_findings() -> None:
    corpus = require_shared()
    files = {
        "results/nodes/node01/ibstat.txt": (
            corpus / "evidence/ibstat/l2fwd-nv-issue6-2x-cx6dx-100g-ethernet.txt"
        ).read_bytes(),
        "results/nodes/node02/ibv_devinfo.txt": (
            corpus / "evidence/ibv_devinfo/connectx3-mlx4-2hca-ib-1of2-ports-active.txt"
        ).read_bytes(),
        "results/nodes/node02/dcgmi-diag.txt": (FIXTURES / "dcgmi-diag-dcgm3-fail-wrapped.txt").read_bytes(),
    }  # fmt: skip
    run = process(OfferingFactory(fabric="infiniband"), zipped(files), name="bad.zip")
    assert run.status == "done", run.error
    assert run.verdict == "fail"
    texts = [f["text"] for f in run.findings]
    assert any(
        t.startswith("results/nodes/node01/ibstat.txt line 8: link layer Ethernet on every active port")
        and "where InfiniBand is claimed" in t
        for t in texts
    ), texts
    assert "results/nodes/node02/ibv_devinfo.txt line 22: port mlx4_1/2 is Down (InfiniBand)" in texts
    assert any(
        t.startswith("results/nodes/node02/dcgmi-diag.txt line ") and "dcgmi diag failed: PCIe" in t
        for t in texts
    )
    assert {f["kind"] for f in run.files} == {"ibstat", "ibv_devinfo", "dcgmi-diag"}
    # No collective runs: bandwidth and scaling cannot be measured, and say what to run.
    assert run.indicators["collective_bandwidth"]["verdict"] == "cannot-measure"
    assert "run the kit's nccl-tests" in run.indicators["collective_bandwidth"]["basis"]


def test_evidence_saved_on_windows_in_utf16_is_read_in_a_bundle_like_its_utf8_twin() -> None:
    # a buyer who zips what `ssh node ibstat > ibstat.txt` wrote in Windows PowerShell 5.1 (UTF-16 LE with a
    # byte-order mark): its NUL bytes are text, not a binary file to skip
    corpus = require_shared()
    ibstat = (corpus / "evidence/ibstat/l2fwd-nv-issue6-2x-cx6dx-100g-ethernet.txt").read_text()
    runs = []
    for data in (ibstat.encode(), ibstat.replace("\n", "\r\n").encode("utf-16")):
        run = process(OfferingFactory(fabric="infiniband"), zipped({"results/nodes/node01/ibstat.txt": data}))
        assert run.status == "done", run.error
        runs.append(run)
    utf8, utf16 = runs
    assert [f["kind"] for f in utf16.files] == ["ibstat"]
    assert [f["text"] for f in utf16.findings] == [f["text"] for f in utf8.findings]
    assert any("link layer Ethernet on every active port" in f["text"] for f in utf16.findings)


@pytest.mark.parametrize("codec", ["gzip", "xz", "bzip2"])
def test_one_log_compressed_alone_is_a_bundle_of_that_log(codec: str) -> None:
    # `gzip nccl.log` keeps the file's name in the gzip header; xz and bzip2 keep none (log.txt)
    log = (FIXTURES / "uploads" / "nccl-allreduce-1node.txt").read_bytes()
    packed = {
        "gzip": lambda: gzip.compress(log),
        "xz": lambda: lzma.compress(log),
        "bzip2": lambda: bz2.compress(log),
    }[codec]()
    if codec == "gzip":
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="nccl-allreduce.log", mode="wb", fileobj=buffer) as handle:
            handle.write(log)
        packed = buffer.getvalue()
    run = process(OfferingFactory(), packed, name=f"nccl.log.{codec}")
    assert run.status == "done", run.error
    name = "nccl-allreduce.log" if codec == "gzip" else "log.txt"
    assert [(f["name"], f["kind"]) for f in run.files] == [(name, "nccl-tests")]
    upload = Upload.objects.get(pk=run.files[0]["upload"])
    assert upload.status == "parsed" and upload.summary["runs"][0]["collective"] == "all_reduce"


def test_one_compressed_log_over_the_per_file_limit_is_refused_before_more_is_read(settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 1024 * 1024
    with pytest.raises(ValidationError) as err:
        services.bundle_check(name="big.log.gz", data=gzip.compress(b"x" * (2 * 1024 * 1024)))
    assert "unpacks to more than 1 MiB, the limit per file" in str(err.value)


def test_the_stub_run_of_the_slurm_kit_reads_back_as_a_bundle(tmp_path: Path) -> None:
    archive, _ = run_slurm_kit_with_stubs(tmp_path)
    run = process(OfferingFactory(fabric="infiniband"), archive.read_bytes())
    assert run.status == "done", run.error
    kinds = {f["name"]: f["kind"] for f in run.files}
    assert kinds["results/nccl/all_reduce_8n.log"] == "nccl-tests"
    assert kinds["results/nodes/node03/ibstat.txt"] == "ibstat"
    assert kinds["results/nodes/node01/dcgmi-diag.txt"] == "dcgmi-diag"
    assert kinds["results/nodes/node01/nvidia-smi-topo.txt"] == "nvidia-smi-topo"
    assert kinds["results/steps.tsv"] == "acceptance-steps"
    bandwidth = run.indicators["collective_bandwidth"]
    assert (bandwidth["nodes"], bandwidth["busbw_gbps"]) == (8, 350.84)
    assert [p["nodes"] for p in run.indicators["scaling_efficiency"]["curve"]] == [1, 2, 4, 8]
    assert run.verdict == "fail"  # the replayed kernel log has a GPU that fell off the bus
    assert any(
        t.startswith("results/nodes/node01/dmesg-xid-full.txt line 1: GPU ") and "fell off the bus" in t
        for t in (f["text"] for f in run.findings)
    )
    assert run.indicators["stability"]["verdict"] == "fail" and run.indicators["stability"]["xid_events"] >= 1
    notes = {f["text"] for f in run.findings if not f["blocking"]}
    assert any(
        n.startswith("results/steps.tsv line ") and "step lspci: exit code 1 (8 times)" in n for n in notes
    )
    assert any("step probe: exit code 127 (4 times)" in n for n in notes)
    assert kinds["results/nccl/all_gather_8n.log"] is None  # the stub's error, not a log: not recognised


def test_a_stability_loop_is_measured_from_its_timeline_and_repeated_runs() -> None:
    corpus = require_shared()
    eight = _aac11_by_node_count(corpus)["results/nccl/all_reduce_8n.log"]
    files = {f"results/stability/all_reduce_iter000{i}.log": eight for i in (1, 2, 3)}
    files["results/stability/timeline.tsv"] = (
        b"# clusterscout-acceptance stability v1\niteration\tstart_utc\tend_utc\texit_code\n"
        b"1\t2026-01-01T00:00:00Z\t2026-01-01T00:10:00Z\t0\n2\t2026-01-01T00:10:00Z\t2026-01-01T00:20:00Z\t0\n"
        b"3\t2026-01-01T00:20:00Z\t2026-01-01T00:30:00Z\t0\n"
    )
    run = process(mi325x_roce_offering(), targz(files))
    stability = run.indicators["stability"]
    assert stability["iterations"] == 3 and stability["hours"] == 0.5 and stability["interruptions"] == 0
    # Each pass's file is one sample (here the same recorded run three times: no drift).
    assert stability["samples"] == 3 and stability["drift_pct"] == 0.0 and stability["verdict"] == "pass"
    assert "what_to_run" not in stability
    assert {f["kind"] for f in run.files} == {"nccl-tests", "acceptance-timeline"}


def test_unsafe_member_names_are_skipped_and_never_read() -> None:
    corpus = require_shared()
    good = (corpus / "evidence/ibstat/gpud-h100-8x400-ib-all-active-plus-bond-eth.txt").read_bytes()
    run = process(
        OfferingFactory(), targz({"../escape.txt": good, "/etc/abs.txt": good, "ok/ibstat.txt": good})
    )
    skipped = {f["name"]: f.get("skipped") for f in run.files if f.get("skipped")}
    assert set(skipped) == {"../escape.txt", "/etc/abs.txt"} and all(
        "unsafe path" in s for s in skipped.values()
    )
    assert [f["name"] for f in run.files if f["upload"]] == ["ok/ibstat.txt"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"plain text, not an archive", "not a readable tar.gz, tar or zip"),
        (zipped({f"f{i}.txt": b"x" for i in range(2001)}), "more than 2000 files"),
        (targz({"zeros.txt": b"\0" * (8 * 1024 * 1024)}), "unpacks to more than"),
        (b"", "empty"),
    ],
    ids=["not-an-archive", "too-many-files", "decompression-ratio", "empty"],
)
def test_bad_bundles_are_refused_naming_the_field(data: bytes, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        services.acceptance_create(
            owner=UserFactory(), offering=OfferingFactory(), name="b.tar.gz", data=data
        )
    assert message in caught.value.message_dict["bundle"][0]
    assert not AcceptanceRun.objects.exists()


def test_a_bundle_over_the_size_limit_is_refused_before_it_is_read(settings: Any) -> None:
    settings.ACCEPTANCE_BUNDLE_MAX_BYTES = 1024 * 1024
    with pytest.raises(ValidationError) as caught:
        services.bundle_check_size(name="big.tar.gz", size=3 * 1024 * 1024)
    assert "big.tar.gz is 3.0 MiB; the limit is 1 MiB" in caught.value.message_dict["bundle"][0]
    from django.utils import translation

    with translation.override("zh-hans"), pytest.raises(ValidationError) as caught:
        services.bundle_check_size(name="big.tar.gz", size=3 * 1024 * 1024)
    assert "big.tar.gz 大小为 3.0 MiB；上限为 1 MiB。" in caught.value.message_dict["bundle"][0]


def test_processing_is_idempotent_and_the_sweeper_finds_lost_runs() -> None:
    corpus = require_shared()
    run = process(mi325x_roce_offering(), targz({"a.txt": (corpus / AAC11).read_bytes()}))
    uploads = Upload.objects.count()
    again = services.acceptance_process(run_id=run.pk)
    assert again.indicators == run.indicators and Upload.objects.count() == uploads
    AcceptanceRun.objects.filter(pk=run.pk).update(
        status="queued", created_at=run.created_at.replace(year=2020)
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert services.acceptance_sweep() == 1
    assert AcceptanceRun.objects.get(pk=run.pk).status == "done"
