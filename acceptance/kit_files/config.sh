#!/usr/bin/env bash
# Settings of this acceptance kit for @OFFERING_NAME@ (@OFFERING@). Every value can be overridden from
# the environment, e.g. `NCCL_TESTS_DIR=/opt/nccl-tests/build ./run_all.sh`.
# shellcheck disable=SC2034  # this file is sourced; the variables are read by the other scripts
KIT_OFFERING="@OFFERING@"
KIT_NODES=@NODES@
KIT_GPUS_PER_NODE=@GPUS_PER_NODE@
KIT_NODE_COUNTS="@NODE_COUNTS@"
# nccl-tests binaries (all_reduce_perf, ...): a directory, or empty to take them from PATH.
NCCL_TESTS_DIR="${NCCL_TESTS_DIR:-}"
# Message sizes: 8 B to 16 GiB, doubling (nccl-tests -b/-e/-f).
MIN_BYTES="${MIN_BYTES:-8}"
MAX_BYTES="${MAX_BYTES:-16G}"
# Ring keeps 2-node all_reduce from being inflated by tree algorithms.
export NCCL_ALGO="${NCCL_ALGO:-Ring}"
# Training probe: torchtitan's small debug model, a few dozen steps per node count.
PROBE_STEPS="${PROBE_STEPS:-40}"
PROBE_CONFIG="${PROBE_CONFIG:-./torchtitan/models/llama3/train_configs/debug_model.toml}"
# Stability loop (collective plus probe repeated with timestamps); 0 skips it.
STABILITY_HOURS="${STABILITY_HOURS:-@STABILITY_HOURS@}"
# Where everything is written; pack.sh turns it into one archive to upload.
RESULTS="${RESULTS:-results}"
COLLECTIVES="all_reduce all_gather reduce_scatter alltoall"

nccl_bin() {
  if [ -n "$NCCL_TESTS_DIR" ]; then
    printf '%s/%s_perf\n' "$NCCL_TESTS_DIR" "$1"
  else
    printf '%s_perf\n' "$1"
  fi
}

stamp() {
  date -u +%Y-%m-%dT%H:%M:%SZ
}

# One line per step: what ran, when, and its exit code (read back by the portal).
log_step() {
  mkdir -p "$RESULTS"
  if [ ! -s "$RESULTS/steps.tsv" ]; then
    printf '# clusterscout-acceptance steps v1\nutc\tstep\tnodes\texit_code\n' >"$RESULTS/steps.tsv"
  fi
  printf '%s\t%s\t%s\t%s\n' "$(stamp)" "$1" "$2" "$3" >>"$RESULTS/steps.tsv"
}
