"""Every threshold and reference number the pitfall rules use, each with its source (docs/CHECKS.md).

The hardware numbers themselves (GPU peaks, HBM, NVLink and NIC rates, efficiencies) are the hardware
package's, shared with the sizing model; these are the rules' own judgement calls.
"""

from __future__ import annotations

from hardware import PCIE_GEN5_PRACTICAL_GBYTES_PER_S

# The default failure rate is hardware.reliability's (Llama 3, calibration.md section 4), as in the model.
# "More than a few" expected failures (DESIGN section 6). Llama 3 needed manual work for 3 of 466
# interruptions; past ~3 a manual-only recovery process is the normal case, not the exception.
FAILURES_CRITICAL = 3.0
# Restart after a failure. Automatic detect-and-replace: minutes (DESIGN section 5); we take 15 min
# (Crusoe health checks every 5 min + requeue, provider-catalog.md section 2). Manual ticket: hours
# (OPT-175B chronicles: replacement through the cloud API "can take hours", calibration.md section 4);
# we take 4 h as the middle of "hours" including someone noticing the hang out of office hours.
AUTO_RESTART_MIN = 15.0
MANUAL_RESTART_H = 4.0
# Checkpoint write time used for Young's interval when the sizing result gives none: 5 min, the
# test-vector delta of calibration.md section 4.
DEFAULT_CHECKPOINT_WRITE_MIN = 5.0

# Reference job when no workload is given: the portal exists for 100B+ training (DESIGN section 1),
# 2T tokens as in DESIGN section 1's example, at 40% MFU (Megatron-Core H100 weak scaling reports
# 41-48%, calibration.md section 2), on 1,024 GPUs (a typical 100B run: ~34 days at that MFU).
REFERENCE_PARAMS = 100e9
REFERENCE_TOKENS = 2e12
REFERENCE_MFU = 0.40
REFERENCE_GPUS = 1024

# Seed thresholds of DESIGN section 6: under 30B one node; 30-70B >= 200 Gb/s per port; 100B+ 400 Gb/s
# per port. "Per port" assumes one port per GPU; we compare Gb/s per GPU (NICs x Gb/s / GPUs per node)
# so that AWS EFA's 32 x 100 Gb/s counts as the 400 Gb/s per GPU it is.
SINGLE_NODE_MAX_PARAMS = 30e9
LARGE_MODEL_PARAMS = 100e9
GBPS_PER_GPU_MID = 200.0
GBPS_PER_GPU_LARGE = 400.0
# Share of the iteration spent in inter-node communication (DP + PP + EP + CP) above which the fabric,
# not the GPUs, sets the pace (issue 6 guidance); past half the step the job is network-bound.
COMM_SHARE_WARNING = 0.25
COMM_SHARE_CRITICAL = 0.50

# Measured vs expected bandwidth: FORMATS.md (benchlogs) section 8 "flag anything below ~80% of the
# expected figure"; InfiniBand and tuned RoCE reach 0.92-0.96 of line rate (calibration.md section 5),
# so half the line rate is a broken or TCP-bound fabric.
MEASURED_WARNING_RATIO = 0.80
MEASURED_CRITICAL_RATIO = 0.50
# What a healthy fabric reaches of its line rate, and a healthy node of its NVLink rate, are the
# hardware package's figures (the sizing model uses the same ones): hardware.fabric_efficiency and
# hardware.intra_node_busbw_efficiency. We flag measurements under 80% of them.
# Runs with smaller largest messages measure latency, not bandwidth (1 node H200: 40 GB/s at 1 MiB,
# 436 at 256 MiB, calibration.md section 5).
MIN_BANDWIDTH_MESSAGE_BYTES = 64 * 2**20

# Usable-GPU guarantee below this is a warning (DESIGN section 6).
USABLE_GPU_MIN_PCT = 90.0

# A job larger than hardware.NODES_PER_LEAF (one DGX SuperPOD scalable unit) crosses the spine, where
# oversubscription and a ring/chain topology start to cost.
OVERSUBSCRIPTION_CRITICAL = 2.0
# DESIGN section 6: topology-aware scheduling matters from 64 GPUs.
TOPOLOGY_AWARE_MIN_GPUS = 64

# Model states: 16 bytes/param (ZeRO mixed-precision Adam 2+2+12, calibration.md section 3) fully sharded
# is the least memory any layout can use; 10% of HBM goes to CUDA context, NCCL buffers and fragmentation.
MIN_BYTES_PER_PARAM = 16.0
HBM_USABLE_FRACTION = 0.90

# Unpublished fees at or above this share of the full bill turn hidden-fees critical: a tenth of the
# budget with no published price (Mercatus: headline GPU rate ~60-70% of the real bill, hidden-costs.md
# section 4, so the unpriced part is routinely that large).
UNPUBLISHED_SHARE_CRITICAL_PCT = 10.0

# PCIe GB/s per GPU, one direction, for TP over a slow bus: hardware.PCIE_GEN5_PRACTICAL_GBYTES_PER_S
# (50, the generous case: Gen4 boxes are half that).
PCIE_GBYTES_PER_S = PCIE_GEN5_PRACTICAL_GBYTES_PER_S
