#!/usr/bin/env bash
# Copy every node report out of the DaemonSet pods once each has written /results/done.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=config.sh
. ./config.sh
NS="${NAMESPACE:-default}"
pods="$(kubectl -n "$NS" get pods -l clusterscout-acceptance=node-reports -o name)"
for pod in $pods; do
  for _ in $(seq 1 360); do
    kubectl -n "$NS" exec "${pod#pod/}" -- test -f /results/done 2>/dev/null && break
    sleep 10
  done
  node="$(kubectl -n "$NS" get "$pod" -o jsonpath='{.spec.nodeName}')"
  mkdir -p "$RESULTS/nodes/$node"
  kubectl -n "$NS" cp "${pod#pod/}:/results/nodes/" "$RESULTS/nodes/$node/" || log_step "collect:$node" 1 1
done
