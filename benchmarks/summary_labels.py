"""What the upload page calls each summary entry the parsers emit, in the page's language.

One place for the labels: the parsers (pure code, DESIGN section 7) name their summary keys for the JSON
contract; the page shows each key by its label here, a key without one readably (underscores as spaces).
Values that are the parser's own words (how a figure was found, yes or no) are translated too; values read
from the log (versions, device and test names) are shown as they are.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from portal.formats import percent_text

SUMMARY_LABELS: dict[str, Promise] = {
    # nccl-tests, rccl-tests, hccl_test
    "tool": _("Tool"),
    "collectives": _("Collectives"),
    "failed_runs": _("Failed runs"),
    "nccl_version": _("NCCL version"),
    # perftest
    "test": _("Test"),
    "banner": _("Banner"),
    "device": _("Device"),
    "transport": _("Transport"),
    "connection": _("Connection type"),
    "link_layer": _("Link layer"),
    "mtu": _("MTU (bytes)"),
    "qps": _("Queue pairs"),
    "gid_index": _("GID index"),
    "bidirectional": _("Bidirectional"),
    "latency": _("Latency test"),
    "duration_mode": _("Run for a fixed duration"),
    "unit_reported": _("Unit in the log"),
    "rows": _("Result rows"),
    "size_rows": _("Rows by message size"),
    "failed": _("Failed"),
    "min_size_bytes": _("Smallest message (bytes)"),
    "max_size_bytes": _("Largest message (bytes)"),
    "peak_gbps": _("Peak bandwidth (Gb/s)"),
    "average_gbps": _("Average bandwidth (Gb/s)"),
    "bw_peak_column_max_gbps": _("Highest value of the peak column (Gb/s)"),
    "latency_usec_at_min_size": _("Latency at the smallest message (µs)"),
    "latency_typical_usec": _("Typical latency (µs)"),
    "latency_avg_usec": _("Average latency (µs)"),
    "failure_reason": _("Failure reason"),
    "failed_after_bytes": _("Failed after the row of (bytes)"),
    "errors_after_results": _("Errors after the results (the run not stopped)"),
    "failure_line": _("Failure line"),
    # training logs
    "source_format": _("Log format"),
    "world_size": _("World size (GPUs)"),
    "seq_length": _("Sequence length"),
    "iterations": _("Iterations logged"),
    "steady_iterations": _("Steady iterations"),
    "total_iterations_planned": _("Iterations planned"),
    "warmup_iterations_excluded": _("Warm-up iterations excluded"),
    "median_iteration_s": _("Median iteration time (s)"),
    "median_iteration_s_source": _("Iteration time from"),
    "median_tflops_per_gpu": _("Median TFLOPS per GPU"),
    "median_tflops_per_gpu_source": _("TFLOPS per GPU from"),
    "median_tokens_per_s_per_gpu": _("Median tokens/s per GPU"),
    "tokens_per_s_per_gpu_source": _("Tokens/s per GPU from"),
    "median_samples_per_s": _("Median samples/s"),
    "deepspeed_samples_per_s_median": _("Median DeepSpeed samples/s"),
    "deepspeed_samples_per_s_running_average_only": _("DeepSpeed samples/s is the running average only"),
    "deepspeed_skipped_steps": _("DeepSpeed skipped steps"),
    "deepspeed_profiler_step": _("DeepSpeed flops profiler: profiled step"),
    "deepspeed_profiler_samples_per_s": _("DeepSpeed flops profiler: samples/s"),
    "runs_in_log": _("Runs in the log (the last is summarised)"),
    "mfu": _("MFU"),
    "skipped_iterations": _("Skipped iterations"),
    "nan_iterations": _("NaN iterations"),
    "nan_grad_norm_iterations": _("Iterations with a NaN grad norm"),
    "stalls": _("Stalls"),
    # dcgmi
    "dcgm_version": _("DCGM version"),
    "driver_version": _("Driver version"),
    "level": _("Diagnostic level"),
    "passed": _("Passed"),
    "failed_tests": _("Failed tests"),
    "warned_tests": _("Tests with warnings"),
    "skipped_tests": _("Skipped tests"),
    "errors": _("Errors"),
    "gpu_ids": _("GPU device IDs"),
    "sections": _("Sections shown"),
    "missing_sections": _("Sections of the level missing"),
    "levels_skipped": _("Every test of the level skipped"),
    "truncated": _("Cut (incomplete report)"),
    "cut_after_line": _("Last test row before the cut"),
    # nvidia-smi, NVLink status, topology
    "source": _("Source"),
    "cuda_version": _("CUDA version"),
    "attached_gpus": _("Attached GPUs"),
    "gpus": _("GPUs"),
    "gpus_per_host": _("GPUs per host"),
    "gpu_blocks": _("GPU blocks shown"),
    "gpu_list": _("GPUs listed"),
    "gpu_models": _("GPU models"),
    "lost_gpus": _("Unreachable GPUs"),
    "mig_devices": _("MIG devices"),
    "mig_device_list": _("MIG devices listed"),
    "driver_versions": _("Driver versions"),
    "active_links_per_gpu": _("Active links per GPU"),
    "max_active_links_per_gpu": _("Most active links on a GPU"),
    "inactive_links": _("Inactive links"),
    "no_nvlink_gpus": _("GPUs without NVLink"),
    "link_gbps": _("Link speed (GB/s)"),
    "min_link_gbps": _("Slowest link (GB/s)"),
    "link_speed_unit": _("Link speed unit"),
    "traffic_counter_links": _("Links with traffic counters (no link status)"),
    "header_line": _("Header line"),
    "header_missing": _("Column header missing"),
    "full_nvlink_mesh": _("Full NVLink mesh"),
    "min_nvlinks_per_pair": _("Fewest NVLinks between two GPUs"),
    "max_nvlinks_per_pair": _("Most NVLinks between two GPUs"),
    "pairs_not_nvlink": _("GPU pairs without NVLink"),
    "nics": _("NICs"),
    "nic_names": _("NIC names"),
    "rail_nics": _("Rail NICs"),
    "nic_details": _("NIC details"),
    # perftest: every test of a file holding several
    "tests": _("Tests in the file"),
    # InfiniBand / RDMA port reports
    "devices": _("Devices"),
    "total_ports": _("Ports"),
    "active_infiniband_ports": _("Active InfiniBand ports"),
    "active_ethernet_ports": _("Active Ethernet (RoCE) ports"),
    "active_iwarp_ports": _("Active iWARP ports"),
    "inactive_ports": _("Inactive ports"),
    "unknown_state_ports": _("Ports of unknown state (listing cut)"),
    "infiniband_ports": _("InfiniBand ports"),
    "ethernet_ports": _("Ethernet ports"),
    "netdev_up": _("Network devices up"),
    "netdev_down": _("Network devices down"),
    "hosts": _("Hosts"),
    "host": _("Host judged (the weakest)"),
    # lspci, dmesg
    "gpu_functions": _("GPU functions"),
    "rdma_nics": _("RDMA NICs"),
    "rdma_nic_functions": _("RDMA NIC functions"),
    "nvswitches": _("NVSwitches"),
    "nvlink_management_bridges": _("NVLink management bridges"),
    "bridge_functions": _("PCI bridge functions"),
    "unresponsive_functions": _("Functions not responding"),
    "elided_lines": _("Lines left out by the author"),
    "read_to_line": _("Read to line (the rest skipped)"),
    "stated_totals": _("Totals the author's notes state"),
    "xid_codes": _("Xid codes"),
    "xid_events": _("Xid events"),
    "gpus_fallen_off_bus": _("GPUs fallen off the bus"),
    "gpus_probe_failed": _("GPUs whose driver probe failed"),
    "probe_failed_devices": _("Devices the driver's probe failed for"),
    "xids_needing_reset": _("Xids needing a GPU reset"),
    "gpus_in_error": _("GPUs reading ERR!"),
    "gpus_probe_recovered": _("GPUs a later driver load took after a failed probe"),
    "xids_recovered": _("Xids whose recovery action went back to None"),
    "xids_referenced": _("Xids named as the cause of later Xids"),
    "gpu_rows_missing": _("GPU rows cut from the matrix"),
    "probe_failures": _("Probe failures"),
    "nic_errors": _("NIC driver failures"),
    "nic_pcie_limited": _("NICs limited by their PCIe link"),
    "nic_firmware_errors": _("NIC firmware failures"),
    "nvswitch_sxid_events": _("NVSwitch errors (SXid)"),
    "nvrm_lines": _("NVIDIA driver (NVRM) lines"),
    # several kinds
    "lines": _("Lines"),
    "first_line": _("First line"),
    "last_line": _("Last line"),
}

# Keys whose value the parsers keep as a fraction of one (an MFU of 0.5348): shown as a percentage.
PERCENT_KEYS = frozenset({"mfu"})

# Values that are the parsers' own words rather than text read from the log (English message ids).
SUMMARY_WORDS = {
    "printed": gettext_noop("printed in the log"),
    "computed: global batch x seq length / iteration time / world size": gettext_noop(
        "computed: global batch x seq length / iteration time / world size"
    ),
    "computed: tokens per train step / (tokens/s per GPU x world size)": gettext_noop(
        "computed: tokens per train step / (tokens/s per GPU x world size)"
    ),
    "computed: DeepSpeed samples/s x seq length / world size": gettext_noop(
        "computed: DeepSpeed samples/s x seq length / world size"
    ),
    "computed: batch per GPU x data parallel size x seq length / iter latency / world size": gettext_noop(
        "computed: batch per GPU x data parallel size x seq length / iter latency / world size"
    ),
    "DeepSpeed flops profiler: iter latency of the profiled step": gettext_noop(
        "DeepSpeed flops profiler: iter latency of the profiled step"
    ),
    # a training log's `source_format`: which framework's lines the figures were read from
    "megatron": gettext_noop("Megatron-LM iteration lines"),
    "nemo": gettext_noop("NeMo (Megatron-Core) iteration lines"),
    "megatron-bridge": gettext_noop("Megatron-Bridge Step Time lines"),
    "torchtitan": gettext_noop("torchtitan step lines"),
    "deepspeed-timer": gettext_noop("DeepSpeed timer lines"),
    "deepspeed-flops-profiler": gettext_noop("DeepSpeed flops profiler block"),
}


def summary_label(key: str) -> str:
    """The label of a summary key in the active language; an unknown key readably, as the parser names it."""
    label = SUMMARY_LABELS.get(key)
    return str(label) if label is not None else key.replace("_", " ")


def _shown_value(value: Any) -> Any:
    if value is True:
        return gettext("yes")
    if value is False:
        return gettext("no")
    if isinstance(value, str) and value in SUMMARY_WORDS:
        return gettext(SUMMARY_WORDS[value])
    return value


def summary_value(value: Any, key: str = "") -> Any:
    """A scalar summary value for the page: a list joined, yes/no and the parser's own words translated, a
    fraction the parser keeps (`PERCENT_KEYS`) as the percentage every page shows."""
    if key in PERCENT_KEYS and isinstance(value, int | float) and not isinstance(value, bool):
        return percent_text(value)
    if isinstance(value, list):
        return gettext(", ").join("—" if v is None else str(_shown_value(v)) for v in value) or "—"
    if isinstance(value, dict):  # a count per name (`gpus_per_host`)
        return gettext(", ").join(f"{name}: {count}" for name, count in value.items()) or "—"
    return _shown_value(value)
