"""The acceptance kit: both schedulers for an 8-node offering unpack, every script passes `bash -n` (and
shellcheck), every manifest parses, and the Slurm kit runs end to end against stub tools
that replay real logs, producing a folder the portal reads back as a bundle."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from acceptance import kit
from benchmarks.parsers import parse
from tests.acceptance.stubs import make_stub_bin, stub_env
from tests.benchmarks._shared import require_shared

FACTS: dict[str, Any] = {
    "slug": "trial-h100",
    "name": "Trial H100 cluster",
    "gpus_per_node": 8,
    "nodes": 32,
    "fabric": "infiniband",
    "nics_per_node": 8,
    "gbps_per_nic": 400.0,
    "price_usd_per_gpu_hour": 2.5,
}


def _unpack(data: bytes, into: Path) -> Path:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        names = archive.getnames()
        archive.extractall(into, filter="data")
    tops = {name.split("/")[0] for name in names}
    assert len(tops) == 1, tops
    return into / tops.pop()


@pytest.fixture(params=kit.SCHEDULERS)
def unpacked(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    return request.param, _unpack(kit.build_kit(FACTS, 8, request.param), tmp_path)


def test_both_kits_for_8_nodes_cover_every_step(unpacked: tuple[str, Path]) -> None:
    scheduler, root = unpacked
    names = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert {"README.md", "config.sh", "pack.sh", "run_all.sh", "lib/node_report.sh"} <= names
    report = (root / "lib/node_report.sh").read_text()
    for command in ("nvidia-smi -q", "nvidia-smi topo -m", "nvidia-smi nvlink -s", "ibstat", "ibv_devinfo",
                    "ibdev2netdev", "lspci", "dcgmi diag -r 3", "NVRM|Xid"):  # fmt: skip
        assert command in report, command
    assert (root / "config.sh").read_text().count('KIT_NODE_COUNTS="1 2 4 8"') == 1
    if scheduler == "slurm":
        for n in (1, 2, 4, 8):
            nccl = (root / f"slurm/nccl_{n}n.sbatch").read_text()
            assert f"#SBATCH --nodes={n}\n" in nccl and "#SBATCH --ntasks-per-node=8\n" in nccl
            assert "srun --mpi=pmix" in nccl and '-b "$MIN_BYTES" -e "$MAX_BYTES"' in nccl
            assert f"#SBATCH --nodes={n}\n" in (root / f"slurm/probe_{n}n.sbatch").read_text()
        assert 'MIN_BYTES="${MIN_BYTES:-8}"' in (root / "config.sh").read_text()
        assert 'MAX_BYTES="${MAX_BYTES:-16G}"' in (root / "config.sh").read_text()
        assert "#SBATCH --nodes=8\n" in (root / "slurm/stability.sbatch").read_text()
    else:
        assert {f"kubernetes/nccl-mpijob-{n}n.yaml" for n in (1, 2, 4, 8)} <= names
        assert {
            "kubernetes/node-reports-daemonset.yaml",
            "kubernetes/stability-mpijob.yaml",
            "collect.sh",
        } <= names
    readme = (root / "README.md").read_text()
    # 8 nodes x 8 GPUs x 20 min of node reports at $2.50 per GPU-hour.
    assert "| node reports |" in readme and "$53.33" in readme and "$2.50 per GPU-hour" in readme


def test_every_script_passes_bash_n_and_shellcheck(unpacked: tuple[str, Path]) -> None:
    _, root = unpacked
    scripts = sorted(p for p in root.rglob("*") if p.suffix in (".sh", ".sbatch"))
    assert len(scripts) >= 5
    for script in scripts:
        result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert result.returncode == 0, f"{script.name}: {result.stderr}"
    assert shutil.which("shellcheck"), "`make setup` installs shellcheck"
    result = subprocess.run(
        ["shellcheck", "-x", "-s", "bash", *map(str, scripts)], capture_output=True, text=True, cwd=root
    )
    assert result.returncode == 0, result.stdout


def test_the_kubernetes_manifests_parse_and_stay_inside_one_fabric(tmp_path: Path) -> None:
    root = _unpack(kit.build_kit(FACTS, 8, "kubernetes"), tmp_path)
    docs = {}
    for path in sorted((root / "kubernetes").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            docs[(path.name, doc["kind"])] = doc
    mpijob = docs[("nccl-mpijob-8n.yaml", "MPIJob")]
    worker = mpijob["spec"]["mpiReplicaSpecs"]["Worker"]
    assert worker["replicas"] == 8 and mpijob["spec"]["slotsPerWorker"] == 8
    terms = worker["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == kit.FABRIC_LABEL
    launcher = mpijob["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["args"][0]
    assert "-np 64" in launcher and all(
        c in launcher for c in ("all_reduce", "all_gather", "reduce_scatter", "alltoall")
    )
    probe = docs[("probe-pytorchjob-8n.yaml", "PyTorchJob")]["spec"]["pytorchReplicaSpecs"]
    assert probe["Master"]["replicas"] == 1 and probe["Worker"]["replicas"] == 7
    assert "Worker" not in docs[("probe-pytorchjob-1n.yaml", "PyTorchJob")]["spec"]["pytorchReplicaSpecs"]
    assert ("node-reports-daemonset.yaml", "DaemonSet") in docs and (
        "stability-mpijob.yaml",
        "MPIJob",
    ) in docs


@pytest.mark.parametrize(
    ("nodes", "scheduler", "stability", "field"),
    [
        (0, "slurm", 0, "nodes"),
        (33, "slurm", 0, "nodes"),
        (8, "pbs", 0, "scheduler"),
        (8, "slurm", 169, "stability_hours"),
    ],
)
def test_requests_out_of_range_name_the_field(nodes: int, scheduler: str, stability: int, field: str) -> None:
    with pytest.raises(kit.KitError) as caught:
        kit.build_kit(FACTS, nodes, scheduler, stability)
    assert caught.value.field == field
    if field == "nodes":
        assert "from 1 to 32" in caught.value.message


def test_without_a_published_size_the_kit_allows_up_to_1024_nodes() -> None:
    facts = {**FACTS, "nodes": None}
    assert kit.max_nodes_for(facts) == 1024
    assert kit.node_counts(1024)[-3:] == [256, 512, 1024] and kit.node_counts(6) == [1, 2, 4, 6]
    with pytest.raises(kit.KitError):
        kit.check_request(facts, 1025, "slurm")


def run_slurm_kit_with_stubs(tmp_path: Path, stability_hours: int = 0) -> tuple[Path, Path]:
    """Run the 8-node Slurm kit against the stubs; returns (the packed archive, the stub trace)."""
    corpus = require_shared()
    root = _unpack(kit.build_kit(FACTS, 8, "slurm", stability_hours), tmp_path / "kit")
    make_stub_bin(tmp_path / "bin")
    trace = tmp_path / "trace.log"
    result = subprocess.run(
        ["bash", "run_all.sh", "bundle.tar.gz"],
        cwd=root,
        env=stub_env(tmp_path / "bin", corpus, trace),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return root / "bundle.tar.gz", trace


def test_the_slurm_kit_runs_against_stub_tools_and_packs_one_folder(tmp_path: Path) -> None:
    archive, trace = run_slurm_kit_with_stubs(tmp_path)
    calls = trace.read_text()
    for n in (1, 2, 4, 8):
        assert f"sbatch slurm/nccl_{n}n.sbatch nodes={n}" in calls
    assert "srun --mpi=pmix --ntasks-per-node=8 all_reduce_perf -b 8 -e 16G -f 2 -g 1" in calls
    with tarfile.open(archive) as packed:
        names = set(packed.getnames())
        steps = packed.extractfile("results/steps.tsv").read().decode()  # type: ignore[union-attr]
        nccl_8 = packed.extractfile("results/nccl/all_reduce_8n.log").read().decode()  # type: ignore[union-attr]
    assert {f"results/nodes/node0{i}/ibstat.txt" for i in range(1, 9)} <= names
    assert (
        "results/nodes/node01/dcgmi-diag.txt" in names and "results/nodes/node01/dmesg-xid-full.txt" in names
    )
    assert "17179869184" in nccl_8 and "350.84" in nccl_8
    # the log states the algorithm the kit forces, so a 2-node all_reduce can be judged (no tree inflation)
    assert "# NCCL_ALGO=Ring" in nccl_8
    runs = parse(nccl_8.encode(), "x.log").as_dict()["summary"]["runs"]
    assert [r["algorithm_hint"] for r in runs] == ["ring"]
    # Failures are recorded, not fatal: the stub lspci fails, torchrun is missing, all_gather has no log.
    assert "lspci@node01\t1\t1" in steps and "probe\t8\t127" in steps and "nccl:all_gather\t8\t1" in steps


def test_the_stability_loop_runs_one_timed_pass_against_the_stubs(tmp_path: Path) -> None:
    corpus = require_shared()
    root = _unpack(kit.build_kit(FACTS, 8, "slurm", 1), tmp_path / "kit")
    make_stub_bin(tmp_path / "bin")
    env = {**stub_env(tmp_path / "bin", corpus, tmp_path / "trace.log"), "STABILITY_HOURS": "0"}
    result = subprocess.run(
        ["sbatch", "--wait", "slurm/stability.sbatch"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    timeline = (root / "results/stability/timeline.tsv").read_text().splitlines()
    assert timeline[0] == "# clusterscout-acceptance stability v1" and len(timeline) == 3
    assert timeline[2].startswith("1\t") and timeline[2].endswith("\t0")
    assert "350.84" in (root / "results/stability/all_reduce_iter0001.log").read_text()
    assert "stability-probe\t8\t127" in (root / "results/steps.tsv").read_text()
