#!/usr/bin/env bash
# Acceptance test of @OFFERING_NAME@ on @NODES@ node(s) under Slurm: run from a directory every node can
# read (home or a shared file system). Each job waits for the previous one (sbatch --wait), then
# everything is packed into one archive to upload.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=config.sh
. ./config.sh
mkdir -p "$RESULTS"
log_step "start" @NODES@ 0
submit() {
  local rc=0
  sbatch --wait "$@" || rc=$?
  log_step "sbatch:$(basename "${@: -1}")" @NODES@ "$rc"
}
submit slurm/node_reports.sbatch
for n in $KIT_NODE_COUNTS; do
  submit "slurm/nccl_${n}n.sbatch"
  submit "slurm/probe_${n}n.sbatch"
done
if [ "$STABILITY_HOURS" -gt 0 ] 2>/dev/null; then
  submit slurm/stability.sbatch
fi
# After the load: the Xids the runs may have caused show in the kernel log.
submit slurm/node_reports.sbatch xid-only
./pack.sh "${1:-}"
