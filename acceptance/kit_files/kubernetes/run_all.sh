#!/usr/bin/env bash
# Acceptance test of @OFFERING_NAME@ on @NODES@ node(s) under Kubernetes (needs kubectl, the Kubeflow MPI
# Operator and Training Operator, and the nodes of one fabric labelled @FABRIC_LABEL@=@FABRIC_VALUE@).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=config.sh
. ./config.sh
NS="${NAMESPACE:-default}"
# Container images: nccl-tests with MPI, torchtitan with PyTorch, and DCGM with the InfiniBand tools.
for var in IMAGE_NCCL IMAGE_PROBE IMAGE_DCGM; do
  if [ -z "${!var:-}" ]; then
    printf 'Set %s to the image to use (see README.md).\n' "$var" >&2
    exit 2
  fi
done
manifest() {
  sed -e "s|__IMAGE_NCCL__|$IMAGE_NCCL|g" -e "s|__IMAGE_PROBE__|$IMAGE_PROBE|g" \
    -e "s|__IMAGE_DCGM__|$IMAGE_DCGM|g" "$1" | kubectl -n "$NS" apply -f -
}
mkdir -p "$RESULTS/nccl" "$RESULTS/probe" "$RESULTS/nodes"
log_step "start" @NODES@ 0
kubectl -n "$NS" create configmap cs-node-report-lib --from-file=lib/node_report.sh \
  --dry-run=client -o yaml | kubectl -n "$NS" apply -f -
manifest kubernetes/node-reports-daemonset.yaml
for n in $KIT_NODE_COUNTS; do
  rc=0
  manifest "kubernetes/nccl-mpijob-${n}n.yaml"
  kubectl -n "$NS" wait --for=condition=Succeeded --timeout=3h "mpijob/cs-nccl-${n}n" || rc=$?
  kubectl -n "$NS" logs "job/cs-nccl-${n}n-launcher" >"$RESULTS/nccl/all_collectives_${n}n.log" 2>&1 || rc=$?
  log_step "nccl" "$n" "$rc"
  rc=0
  manifest "kubernetes/probe-pytorchjob-${n}n.yaml"
  kubectl -n "$NS" wait --for=condition=Succeeded --timeout=1h "pytorchjob/cs-probe-${n}n" || rc=$?
  kubectl -n "$NS" logs "cs-probe-${n}n-master-0" >"$RESULTS/probe/train_${n}n.log" 2>&1 || rc=$?
  log_step "probe" "$n" "$rc"
done
if [ "$STABILITY_HOURS" -gt 0 ] 2>/dev/null; then
  mkdir -p "$RESULTS/stability"
  rc=0
  manifest kubernetes/stability-mpijob.yaml
  kubectl -n "$NS" wait --for=condition=Succeeded --timeout="$((STABILITY_HOURS + 2))h" mpijob/cs-stability || rc=$?
  kubectl -n "$NS" logs job/cs-stability-launcher >"$RESULTS/stability/all_reduce_loop.log" 2>&1 || rc=$?
  log_step "stability" @NODES@ "$rc"
fi
./collect.sh
./pack.sh "${1:-}"
