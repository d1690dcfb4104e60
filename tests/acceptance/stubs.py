"""Stub cluster tools for running the Slurm kit on this machine: each replays a real log of the shared
corpus (../shared/benchlogs, ../shared/evidence) the way the real tool would print it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# What each stub prints, from the shared corpus (real logs, see their SOURCES.md).
REPLAY = {
    "nccl": "benchlogs/rccl-tests/aac11-mi325x-allreduce-1-2-4-8node-grep-excerpt.txt",
    "nvidia-smi-q": "evidence/nvidia-smi/nebius-8x-h100-sxm-driver535.txt",
    "topo": "evidence/nvidia-smi-topo-m/h20-8gpu-nv18-8nic-pix.txt",
    "nvlink": "evidence/nvidia-smi-nvlink-s/aws-p5-8x-h100-18-links-all-up.txt",
    "ibstat": "evidence/ibstat/gpud-h100-8x400-ib-all-active-plus-bond-eth.txt",
    "ibv_devinfo": "evidence/ibv_devinfo/deepep-issue55-h100-ib-vf-active-FRAGMENT.txt",
    "ibdev2netdev": (
        "evidence/ibdev2netdev/imbue-cluster-health-issue4-h100-8x-cx7-ib-2x-cx6-eth-ANNOTATED.txt"
    ),
    "dcgmi": "evidence/dcgmi-diag/meta-gcm-r4-all-pass-dcgm2x.txt",
    "dmesg": "evidence/dmesg/nvsentinel-issue155-gpu-fallen-off-bus-no-xid.txt",
}

SBATCH = """#!/usr/bin/env bash
# stub sbatch: runs the batch script here with the Slurm variables its #SBATCH lines ask for
while [ "${1#-}" != "$1" ]; do shift; done
script="$1"
shift
nodes="$(sed -n 's/^#SBATCH --nodes=\\([0-9]*\\).*/\\1/p' "$script" | head -n 1)"
echo "sbatch $script nodes=$nodes" >>"$STUB_TRACE"
SLURM_NNODES="$nodes" SLURM_SUBMIT_DIR="$PWD" SLURM_JOB_NODELIST="node[01-$nodes]" bash "$script" "$@"
"""

SRUN = """#!/usr/bin/env bash
# stub srun: one task per node runs the command once per node (with that node's host name), otherwise
# once (nccl-tests print from rank 0 only)
per_node=""
args=""
while [ "${1#-}" != "$1" ]; do
  args="$args $1"
  [ "$1" = "--ntasks-per-node=1" ] && per_node=1
  shift
done
echo "srun$args $*" >>"$STUB_TRACE"
if [ -n "$per_node" ]; then
  rc=0
  for i in $(seq 1 "${SLURM_NNODES:-1}"); do
    STUB_HOST="node$(printf %02d "$i")" "$@" || rc=$?
  done
  exit "$rc"
fi
exec "$@"
"""

NCCL = """#!/usr/bin/env bash
# stub all_reduce_perf: the rows of the recorded run at $SLURM_NNODES nodes
echo "all_reduce_perf $*" >>"$STUB_TRACE"
awk -v want="====== ${SLURM_NNODES:-1}-node ======" '
  /^====== / { on = ($0 == want); next }
  on { print }' "$STUB_CORPUS/@nccl@"
"""

NO_LOG = """#!/usr/bin/env bash
echo "stub: no recorded log for $(basename "$0")" >&2
exit 1
"""

CAT = """#!/usr/bin/env bash
cat "$STUB_CORPUS/@file@"
"""

NVIDIA_SMI = """#!/usr/bin/env bash
case "$1" in
  -q) cat "$STUB_CORPUS/@nvidia-smi-q@" ;;
  topo) cat "$STUB_CORPUS/@topo@" ;;
  nvlink) cat "$STUB_CORPUS/@nvlink@" ;;
  *) exit 2 ;;
esac
"""


def _write(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _fill(text: str) -> str:
    for key, rel in REPLAY.items():
        text = text.replace(f"@{key}@", rel)
    return text


def make_stub_bin(bin_dir: Path) -> None:
    """sbatch, srun, scontrol, hostname, nvidia-smi, ib*, dcgmi, dmesg, *_perf; lspci fails, no torchrun."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    _write(bin_dir / "sbatch", SBATCH)
    _write(bin_dir / "srun", SRUN)
    _write(bin_dir / "scontrol", "#!/usr/bin/env bash\necho node01\n")
    _write(bin_dir / "hostname", '#!/usr/bin/env bash\necho "${STUB_HOST:-node01}"\n')
    _write(bin_dir / "nvidia-smi", _fill(NVIDIA_SMI))
    _write(bin_dir / "all_reduce_perf", _fill(NCCL))
    for name in ("all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "lspci"):
        _write(bin_dir / name, NO_LOG)
    for tool in ("ibstat", "ibv_devinfo", "ibdev2netdev", "dcgmi", "dmesg"):
        _write(bin_dir / tool, CAT.replace("@file@", REPLAY[tool]))


def stub_env(bin_dir: Path, corpus: Path, trace: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    # The stubs first, then only the basic system tools (no torchrun: the probe step fails, recorded).
    env["PATH"] = f"{bin_dir}:/usr/bin:/bin"
    env.update({"STUB_CORPUS": str(corpus), "STUB_TRACE": str(trace), "LC_ALL": "C"})
    return env
