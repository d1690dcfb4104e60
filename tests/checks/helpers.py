"""Offerings, workloads and evidence dicts for the rule tests (shapes of docs/FACTS.md and DESIGN 5/7)."""

from __future__ import annotations

from typing import Any

from checks.rules import run_rules


def good_offering(**overrides: Any) -> dict:
    """An HGX H100 InfiniBand offering that publishes everything a buyer should ask for."""
    facts: dict[str, Any] = {
        "slug": "good-h100",
        "name": "Good H100 cluster",
        "provider": "Good Cloud",
        "gpu": "H100-SXM-80GB",
        "gpu_label": "NVIDIA H100 SXM5 80GB",
        "gpus_per_node": 8,
        "hbm_gb_per_gpu": 80.0,
        "intra_node": "nvswitch",
        "intra_node_gbytes_per_s": 450.0,
        "nvlink_domain_gpus": 8,
        "fabric": "infiniband",
        "fabric_label": "NDR InfiniBand, GPUDirect RDMA",
        "nics_per_node": 8,
        "gbps_per_nic": 400.0,
        "topology": "rail-optimized",
        "oversubscription": 1.0,
        "nodes": 256,
        "bare_metal": True,
        "schedulers": ["slurm", "kubernetes"],
        "topology_aware_placement": True,
        "accelerator_stack": "cuda",
        "standard_containers": True,
        "proprietary_fabric_plugin": False,
        "health_checks": True,
        "auto_bad_node_detection": True,
        "auto_replacement": True,
        "replacement_time_min": 20.0,
        "auto_checkpoint_restart": True,
        "spare_node_pool": True,
        "exclusivity": "dedicated",
        "usable_gpu_guarantee_pct": 97.0,
        "usable_gpu_credit": "pro-rata credit per unusable GPU-hour",
        "uptime_sla_pct": 99.5,
        "sla_claim_window_days": 30,
        "storage_type": "Lustre",
        "storage_write_gbytes_per_s": 200.0,
        "storage_price_usd_per_gb_month": 0.07,
        "storage_included_gb": 0.0,
        "egress_price_usd_per_gb": 0.0,
        "traffic_price_usd_per_gb": 0.0,
        "support_fee_usd_per_month": 0.0,
        "setup_fee_usd": 0.0,
        "failure_rate_per_gpu_hour": None,
        "price_usd_per_gpu_hour": 3.0,
        "billing_plans": [
            {
                "kind": "on-demand",
                "name": "on demand",
                "price_usd_per_gpu_hour": 3.0,
                "term_months": None,
                "min_nodes": 1,
                "granularity": "hour",
                "cycle_days": None,
                "upfront_pct": None,
            },
            {
                "kind": "reserved",
                "name": "6 months",
                "price_usd_per_gpu_hour": 2.4,
                "term_months": 6,
                "min_nodes": 16,
                "granularity": "month",
                "cycle_days": None,
                "upfront_pct": 25,
            },
        ],
    }
    facts.update(overrides)
    return facts


WORKLOAD_175B = {
    "name": "gpt3-175b",
    "params": 175e9,
    "seq_len": 2048,
    "global_batch": 1536,
    "train_tokens": 300e9,
    "deadline_days": 60,
    "budget_usd": 20e6,
}
WORKLOAD_7B = {"name": "7b", "params": 7e9, "seq_len": 4096, "global_batch": 512, "train_tokens": 100e9}


def sizing_result(**overrides: Any) -> dict:
    """A sizing result in the shape of DESIGN section 5 'Output keys'."""
    out: dict[str, Any] = {
        "feasible": True,
        "reasons": [],
        "layout": {"tp": 8, "pp": 8, "dp": 16, "zero": 1, "micro_batch": 1},
        "gpus": 1024,
        "nodes": 128,
        "params": {"total": 175e9, "active": 175e9},
        "iteration_time_s": 10.0,
        "iteration_breakdown_s": {
            "compute": 7.0,
            "recompute": 0.0,
            "tp_comm": 1.0,
            "pp_comm": 0.2,
            "dp_comm": 0.8,
            "ep_comm": 0.0,
            "cp_comm": 0.0,
            "bubble": 1.0,
            "other": 0.0,
        },
        "mfu": 0.45,
        "train_days": 30.0,
        "goodput": {
            "mtbf_h": 49.6,
            "checkpoint_interval_min": 60.0,
            "checkpoint_write_s": 60.0,
            "restart_min": 15.0,
            "fraction": 0.97,
        },
        "cost": {"usd_per_gpu_hour": 3.0, "gpu_hours": 737280.0, "total_usd": 2211840.0},
    }
    out.update(overrides)
    return out


def ev(kind: str, summary: dict, filename: str = "upload.txt", **meta: Any) -> dict:
    item = {
        "upload_id": meta.pop("upload_id", 1),
        "filename": filename,
        "kind": kind,
        "summary": summary,
        "warnings": [],
        "errors": [],
        "nodes": meta.pop("nodes", None),
        "gpus": meta.pop("gpus", None),
    }
    item.update(meta)
    return item


def port(
    device: str, state: str = "Active", layer: str = "InfiniBand", rate: float = 400, line: int = 1
) -> dict:
    return {"device": device, "port": 1, "state": state, "link_layer": layer, "rate_gbps": rate, "line": line}


def ib_ports(n: int = 8, rate: float = 400, state: str = "Active") -> list[dict]:
    return [port(f"mlx5_{i}", state=state, rate=rate, line=10 + 17 * i) for i in range(n)]


def nccl_run(
    collective: str = "all_reduce", ranks: int = 16, nodes: int | None = 2, busbw: float = 380.0, **extra: Any
) -> dict:
    run = {
        "collective": collective,
        "ranks": ranks,
        "nodes": nodes,
        "peak_busbw_gbps": busbw,
        "busbw_at_max_size_gbps": busbw,
        "max_size_bytes": 8 << 30,
        "failed": False,
        "first_line": 20,
        "last_line": 60,
    }
    run.update(extra)
    return run


def codes(findings: list) -> dict[str, str]:
    return {f.code: f.severity for f in findings}


def find(findings: list, code: str):
    return next((f for f in findings if f.code == code), None)


def rules_for(code: str, offering: dict, **kwargs: Any) -> list:
    return run_rules(offering, codes=[code], **kwargs)
