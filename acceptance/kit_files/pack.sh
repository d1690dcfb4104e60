#!/usr/bin/env bash
# Pack the results folder into one archive to upload at /benchmarks/acceptance/ (or POST /api/v1/acceptance/).
set -eu
cd "$(dirname "$0")"
# shellcheck source=config.sh
. ./config.sh
archive="${1:-acceptance-$KIT_OFFERING-$(date -u +%Y%m%dT%H%M%SZ).tar.gz}"
tar -czf "$archive" "$RESULTS"
printf 'Packed %s: upload it with the offering "%s".\n' "$archive" "$KIT_OFFERING"
