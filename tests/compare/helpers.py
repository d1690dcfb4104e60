"""Catalog, evidence, findings and stored sizing results for the compare tests (no sizing is run here)."""

from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal
from typing import Any

from benchmarks.models import Blob, Upload
from checks.models import Finding
from compare.models import PresetRun
from compare.services import catalog_user
from providers.models import Offering, PricePoint
from sizing.models import PlanResult, PlanRun, Workload
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory

XSS_NAME = "<script>alert(1)</script>"
XSS_NOTES = "<img src=x onerror=alert(1)>"


def offering(**overrides: Any) -> Offering:
    price = overrides.pop("price", "3.50")
    o = OfferingFactory(**overrides)
    plan = PlanFactory(offering=o, price_usd_per_gpu_hour=price, name="On-demand")
    PricePoint.objects.create(plan=plan, price_usd_per_gpu_hour=Decimal(price) + 1, as_of=date(2025, 6, 1))
    PricePoint.objects.create(plan=plan, price_usd_per_gpu_hour=Decimal(price), as_of=date(2026, 3, 1))
    return o


def small_catalog() -> list[Offering]:
    """Six offerings that differ where a buyer looks: fabric, guarantee, fault tolerance, fees."""
    return [
        offering(
            slug="good-ib",
            name="H100 InfiniBand cluster",
            provider=ProviderFactory(name="Good Cloud"),
            usable_gpu_guarantee_pct=99.0,
            exclusivity="dedicated",
            uptime_sla_pct=99.9,
            sla_claim_window_days=30,
            usable_gpu_credit="service credit of 10% of the monthly fee",
            health_checks=True,
            auto_bad_node_detection=True,
            auto_replacement=True,
            replacement_time_min=30,
            auto_checkpoint_restart=True,
            spare_node_pool=True,
            storage_type="Lustre",
            max_nodes=64,
            price="3.10",
        ),
        offering(
            slug="cheap-eth",
            name="Cheap Ethernet box",
            provider=ProviderFactory(name="Budget Cloud"),
            fabric="ethernet",
            nics_per_node=2,
            gbps_per_nic=100,
            exclusivity="shared",
            auto_replacement=False,
            max_nodes=16,
            price="1.90",
        ),
        offering(
            slug="roce-mid",
            name="RoCE pods",
            provider=ProviderFactory(name="Middle Cloud"),
            fabric="roce",
            gbps_per_nic=200,
            usable_gpu_guarantee_pct=95.0,
            exclusivity="dedicated",
            health_checks=True,
            max_nodes=32,
            price="2.60",
        ),
        offering(
            slug="xss-offering",
            name=XSS_NAME,
            provider=ProviderFactory(name=XSS_NOTES, notes=XSS_NAME),
            fabric="efa",
            nics_per_node=32,
            gbps_per_nic=100,
            usable_gpu_credit=XSS_NOTES,
            max_nodes=32,
            price="4.20",
        ),
        offering(slug="plain-a", name="Plain A", provider=ProviderFactory(name="Plain Cloud"), max_nodes=8),
        offering(slug="plain-b", name="Plain B", provider=ProviderFactory(name="Other Cloud"), max_nodes=8),
    ]


def findings_for(offerings: list[Offering]) -> None:
    for i, o in enumerate(offerings):
        Finding.objects.create(
            offering=o,
            code="hidden-fees",
            severity="warning",
            title="Storage and egress prices not published",
        )
        if i % 2:
            Finding.objects.create(
                offering=o,
                code="fabric-not-rdma",
                severity="critical",
                title=f"{o.name} is sold without RDMA",
            )


def public_upload(o: Offering, *, owner: Any = None, verdict: str = "warn") -> Upload:
    owner = owner or UserFactory()
    sha = hashlib.sha256(f"{o.slug}-{owner.pk}".encode()).hexdigest()
    blob = Blob.objects.create(sha256=sha, size_bytes=100, storage_name=Blob.storage_name_for(sha))
    rows = [{"size_bytes": 2**k, "busbw_oop": min(2**k / 2**22, 1.0) * 40.0} for k in range(10, 31, 2)]
    summary = {
        "runs": [
            {
                "collective": "all_reduce",
                "ranks": 16,
                "nodes": 2,
                "size_rows": rows,
                "first_line": 3,
                "last_line": 30,
            }
        ]
    }
    verdicts = [
        {
            "claim": "inter-node bandwidth (NICs x Gb/s)",
            "expected": 46.0,
            "measured": 40.0,
            "percent_of_expected": 87.0,
            "verdict": verdict,
            "detail": "2 nodes",
            "file": f"{o.slug}-nccl.log",
            "lines": [3, 30],
        },
        {
            "claim": "intra-node bandwidth (NVLink) per GPU",
            "expected": 360.0,
            "measured": 350.0,
            "percent_of_expected": 97.2,
            "verdict": "pass",
            "detail": "1 node",
            "file": f"{o.slug}-nccl.log",
            "lines": [3, 30],
        },
    ]
    return Upload.objects.create(
        owner=owner,
        offering=o,
        blob=blob,
        original_filename=f"{o.slug}-nccl.log",
        visibility="public",
        status="parsed",
        kind="nccl-tests",
        summary=summary,
        verdicts=verdicts,
    )


def bill_json(price: float, gpus: int, days: float, *, complete: bool = True) -> dict[str, Any]:
    hours = days * 24
    compute = price * gpus * hours * 0.9
    lines = [
        ("compute", compute),
        ("failure_overhead", compute * 0.08),
        ("spares", compute * 0.02),
        ("checkpoint_storage", 1200.0),
        ("dataset_storage", 0.0),
        ("egress", 300.0 if complete else None),
        ("traffic", 0.0),
        ("support", 500.0),
        ("setup", 0.0),
    ]
    out = [
        {
            "item": item,
            "quantity": str(round(gpus * hours * 0.08, 2)) if item == "failure_overhead" else "1",
            "unit": "GPU-hour",
            "usd": None if usd is None else str(round(usd, 2)),
            "published": usd is not None,
        }
        for item, usd in lines
    ]
    total = sum(float(x["usd"]) for x in out if x["usd"] is not None)
    return {
        "lines": out,
        "complete": complete,
        "total_usd": str(round(total, 2)),
        "usd_per_billion_tokens": str(round(total / 15000, 2)),
        "plan": {"name": "On-demand", "kind": "on-demand"},
    }


def stored_preset_run(offerings: list[Offering], preset: str = "llama3-70b") -> PlanRun:
    """A finished catalog run of `preset` with a stored result per offering, mapped in PresetRun."""
    owner = catalog_user()
    workload = Workload.objects.create(owner=owner, name=preset, preset=preset, params=70e9)
    run = PlanRun.objects.create(
        workload=workload,
        owner=owner,
        status="done",
        progress_done=len(offerings),
        progress_total=len(offerings),
    )
    run.offerings.set(offerings)
    results = []
    for i, o in enumerate(offerings):
        price = float(o.plans.all()[0].price_usd_per_gpu_hour) if o.plans.all() else 3.0
        days = 20.0 + (i * 7) % 23
        feasible = i % 7 != 5
        bill = bill_json(price, 1024, days, complete=i % 3 != 1) if feasible else {}
        results.append(
            PlanResult(
                run=run,
                offering=o,
                feasible=feasible,
                layout={"tp": 8, "pp": 4, "dp": 32, "zero": 1},
                gpus=1024 if feasible else None,
                nodes=128 if feasible else None,
                train_days=days if feasible else None,
                mfu=0.4,
                goodput=0.9 - (i % 5) * 0.05 if feasible else None,
                sizing={
                    "goodput": {
                        "fraction": 0.9,
                        "expected_failures": 12.5,
                        "mtbf_h": 30.2,
                        "restart_min": 20.0,
                    }
                },
                bill=bill,
                cost_total_usd=Decimal(bill["total_usd"]) if feasible else None,
                cost_complete=bool(bill.get("complete")),
                plan_name="On-demand",
                rank=i + 1,
            )
        )
    PlanResult.objects.bulk_create(results)
    PresetRun.objects.update_or_create(preset=preset, defaults={"run": run})
    return run
