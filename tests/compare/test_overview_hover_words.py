"""The overview and findings charts' hover text is written in the page's language: the page's colon ("：" in
Chinese), its list separator ("、"), the offering named as the rest of the page names it (the provider's
native name beside the English one on a Chinese page), no English words left in a Chinese hover."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.utils import translation

from compare.charts.fault_tolerance import FT_FEATURES, fault_tolerance_panel
from compare.charts.findings import _traces
from compare.charts.overview import overview_fabric_panel, overview_findings_panel, overview_price_panel

FT_KEYS = [key for key, _label in FT_FEATURES if key != "checkpoint_storage"]
COUNTS = [
    {"code": "hidden_fees", "severity": "critical", "n": 3},
    {"code": "hidden_fees", "severity": "warning", "n": 1},
    {"code": "no_auto_recovery", "severity": "warning", "n": 2},
]


def _row(**overrides: Any) -> dict[str, Any]:
    return {
        "provider__name": "Alibaba Cloud",
        "provider__native_name": "阿里云",
        "name": "H100 cluster",
        "fabric": "infiniband",
        "nics_per_node": 8,
        "gbps_per_nic": 400.0,
        "gpus_per_node": 8,
        "gpu__name": "H100 SXM 80GB",
        "gpu__key": "H100-SXM-80GB",
        "on_demand_price": 2.5,
        **overrides,
    }


def _hovers(panel: dict) -> list[str]:
    return [text for trace in panel["figure"]["data"] for text in trace.get("hovertext") or []]


def test_the_per_pitfall_hover_uses_the_pages_colon() -> None:
    english = _hovers(overview_findings_panel(COUNTS))
    assert any(text.endswith(": 3 critical") for text in english), english
    with translation.override("zh-hans"):
        chinese = _hovers(overview_findings_panel(COUNTS))
    assert chinese and all("：" in text and ": " not in text for text in chinese), chinese


def test_an_offering_in_the_overview_hovers_is_named_as_the_page_names_it() -> None:
    rows = [_row()]
    english = _hovers(overview_fabric_panel(rows)) + _hovers(overview_price_panel(rows))
    assert all("<b>Alibaba Cloud: H100 cluster</b>" in text for text in english), english
    assert "8 × 400 Gb/s ÷ 8 GPUs = 400 Gb/s per GPU" in english[0]
    with translation.override("zh-hans"):
        chinese = _hovers(overview_fabric_panel(rows)) + _hovers(overview_price_panel(rows))
    assert len(chinese) == 2
    assert all("<b>阿里云 · Alibaba Cloud：H100 cluster</b>" in text for text in chinese), chinese
    assert "8 × 400 Gb/s ÷ 8 块 GPU = 每 GPU 400 Gb/s" in chinese[0], chinese
    assert "GPUs" not in chinese[0] and "per GPU" not in chinese[0]


def test_the_findings_hover_lists_an_offerings_pitfalls_with_the_pages_separator() -> None:
    provider = SimpleNamespace(shown_name="Good Cloud", name="Good Cloud")
    offering = SimpleNamespace(pk=1, provider=provider, name="H100 cluster", slug="h1", fictional=False)
    codes = {1: {"critical": ["Hidden fees", "No recovery"], "warning": [], "info": []}}
    [critical, *_] = _traces([offering], codes)
    assert critical["hovertext"][0].endswith("<br>Critical: Hidden fees, No recovery")
    with translation.override("zh-hans"):
        [critical, *_] = _traces([offering], codes)
    assert critical["hovertext"][0].endswith("<br>严重：Hidden fees、No recovery"), critical["hovertext"]


def test_the_fault_tolerance_hover_and_cells_use_the_pages_colon_and_separator() -> None:
    provider = SimpleNamespace(shown_name="Good Cloud", name="Good Cloud")
    facts = dict.fromkeys(FT_KEYS, True)
    offering = SimpleNamespace(
        pk=1, provider=provider, name="H100 cluster", slug="h1", fictional=False, storage_type="Lustre",
        replacement_time_min=30, get_absolute_url=lambda: "/offerings/h1/", **facts,
    )  # fmt: skip
    english = fault_tolerance_panel([offering])["figure"]["data"][0]
    assert english["hovertemplate"] == "%{y}<br>%{x}: %{text}<extra></extra>"
    assert "✔ yes, 30 min" in english["text"][0]
    with translation.override("zh-hans"):
        chinese = fault_tolerance_panel([offering])["figure"]["data"][0]
    assert chinese["hovertemplate"] == "%{y}<br>%{x}：%{text}<extra></extra>"
    replacement = chinese["text"][0][[key for key, _label in FT_FEATURES].index("auto_replacement")]
    assert "、30" in replacement and ", " not in replacement, replacement
