#!/usr/bin/env bash
# Hardware reports of the node this runs on, one file per tool, into $RESULTS/nodes/<host>/.
# A tool that is missing or fails is recorded in steps.tsv and skipped; nothing here changes the node.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=config.sh
. ./config.sh
host="$(hostname -s 2>/dev/null || hostname)"
out="$RESULTS/nodes/$host"
mkdir -p "$out"

report() {
  local name="$1"
  shift
  if ! command -v "$1" >/dev/null 2>&1; then
    log_step "$name@$host" 1 "missing:$1"
    return 0
  fi
  local rc=0
  timeout 3600 "$@" >"$out/$name.txt" 2>"$out/$name.err" || rc=$?
  [ -s "$out/$name.err" ] || rm -f "$out/$name.err"
  [ -s "$out/$name.txt" ] || rm -f "$out/$name.txt"
  log_step "$name@$host" 1 "$rc"
}

mode="${1:-full}"
if [ "$mode" = "full" ]; then
  report nvidia-smi-q nvidia-smi -q
  report nvidia-smi-topo nvidia-smi topo -m
  report nvidia-smi-nvlink nvidia-smi nvlink -s
  report ibstat ibstat
  report ibv_devinfo ibv_devinfo
  report ibdev2netdev ibdev2netdev
  report lspci lspci
  report dcgmi-diag dcgmi diag -r 3
fi
# The NVIDIA driver's kernel messages (Xid faults, GPUs fallen off the bus, multi-line reports kept whole);
# none found is also a result.
rc=0
dmesg 2>/dev/null | grep -E 'NVRM|Xid|fallen off the bus' >"$out/dmesg-xid-$mode.txt" || rc=$?
if [ -s "$out/dmesg-xid-$mode.txt" ]; then
  log_step "dmesg-xid@$host" 1 0
else
  rm -f "$out/dmesg-xid-$mode.txt"
  log_step "dmesg-xid@$host" 1 "none:$rc"
fi
