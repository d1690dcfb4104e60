from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from sizing.engine.calibration import SELENE
from sizing.engine.validation import CONTRACT_LAYOUT_KEYS

# a GB200 NVL72 rack row: 4 GPUs per tray, 72 in one NVLink domain (test_moe, test_sustained_rate,
# test_nvlink_domain)
GB200 = {
    "name": "GB200 NVL72",
    "gpu": "GB200-186GB",
    "gpus_per_node": 4,
    "nvlink_domain_gpus": 72,
    "intra_node": "nvswitch",
    "fabric": "infiniband",
    "nics_per_node": 4,
    "gbps_per_nic": 400,
    "topology": "rail-optimized",
    "nodes": 64,
}

# The layout keys the `size` command documents (DESIGN section 5, "L"; test_validation checks them against
# DESIGN.md's own text).
DOCUMENTED_LAYOUT_KEYS = set(CONTRACT_LAYOUT_KEYS)
# The top-level keys every `size --json` answer carries (DESIGN section 5), with or without a price; a priced
# offering's answer also carries "cost".
SIZE_ANSWER_KEYS = {
    "feasible",
    "reasons",
    "layout",
    "gpus",
    "params",
    "memory_gib_per_gpu",
    "iteration_time_s",
    "iteration_breakdown_s",
    "model_tflops_per_gpu",
    "hardware_tflops_per_gpu",
    "mfu",
    "tokens_per_s",
    "train_days",
    "goodput",
}


@pytest.fixture
def a100_ib() -> dict[str, Any]:
    """128 DGX A100 80GB nodes, 8 x 200 Gb/s HDR InfiniBand, fat-tree (Selene-like, cal §2)."""
    return {**SELENE, "name": "A100 IB", "nodes": 128, "price_usd_per_gpu_hour": 1.8}


@pytest.fixture
def h100_ib() -> dict[str, Any]:
    return {
        "name": "H100 IB",
        "slug": "h100-ib",
        "gpu": "H100-SXM-80GB",
        "gpus_per_node": 8,
        "intra_node": "nvswitch",
        "fabric": "infiniband",
        "nics_per_node": 8,
        "gbps_per_nic": 400,
        "topology": "rail-optimized",
        "oversubscription": 1.0,
        "nodes": 256,
        "price_usd_per_gpu_hour": 2.5,
        "auto_bad_node_detection": True,
        "auto_replacement": True,
        "replacement_time_min": 15,
        "auto_checkpoint_restart": True,
        "storage_write_gbytes_per_s": 200,
    }


# The planner's pages and API as a signed-in buyer sees them, in English or Chinese (workload field tests).
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture
def buyer(client: Client) -> Client:
    from tests.providers.factories import UserFactory

    client.force_login(UserFactory())
    return client


def plan_post(client: Client, language: dict[str, str], **fields: Any) -> Any:
    """The planner form posted with the 13b preset and `fields` over it."""
    return client.post("/plan/", {"preset": "13b", "objective": "cheapest", **fields}, **language)


def workload_api() -> APIClient:
    """An API client signed in as a new buyer."""
    from tests.providers.factories import UserFactory

    client = APIClient()
    client.force_authenticate(UserFactory())
    return client
