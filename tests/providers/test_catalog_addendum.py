"""The published facts of ../shared/data/provider-catalog-addendum.yaml are in the demo catalog, each with its
source and as-of date, and "not published" stays null (with where it was looked for)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo" / "catalog.yaml"
# Offerings the addendum describes inside one entry (several GPU models) -> the demo offering of each model.
NESTED = {
    ("lambda-1cc", "h100"): "lambda-1cc",
    ("lambda-1cc", "b200"): "lambda-1cc-b200",
    ("nebius-gb200-gb300", "gb200"): "nebius-gb200-gb300",
    ("nebius-gb200-gb300", "gb300"): "nebius-gb300-nvl72",
    ("crusoe-b200-gb200", "gb200"): "crusoe-gb200-nvl72",
    ("crusoe-b200-gb200", "b200"): "crusoe-b200-gb200",
}
# Addendum entries whose `not_published` is about one fact of the catalog -> that fact.
NOT_PUBLISHED_FACT = {
    "inter_node": "nics_per_node",
    "hbm_per_gpu_gb": "hbm_gb_per_gpu",
    "max_fabric_size": "max_nodes",
    "max_cluster_size": "max_nodes",
    "intra_node": "intra_node",
    "gpu_model": "gpu",
    "regions": "regions",
    "terms": "lead_time_weeks",
}
GPU_COUNT = re.compile(r"([\d,]+) (?:H100|H200|B200|GB200|GB300|MI355X)\b")


def _iso(text: Any) -> str | None:
    """The latest full-day date a source's date text gives (the catalog's as-of rule), else None."""
    if not text:
        return None
    found = re.findall(r"\b(\d{4})-(\d{2})-(\d{2})\b", str(text))
    found += [(y, m, d) for m, d, y in re.findall(r"\b(\d{2})/(\d{2})/(\d{4})\b", str(text))]
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
    for mon, d, y in re.findall(r"\b([A-Z][a-z]{2}) (\d{1,2}), (\d{4})\b", str(text)):
        if mon in months:
            found.append((y, f"{months.index(mon) + 1:02d}", f"{int(d):02d}"))
    return "-".join(max(found)) if found else None


class Demo:
    """The demo catalog file with provider defaults applied as the import applies them."""

    def __init__(self) -> None:
        data = yaml.safe_load(DEMO.read_text())
        self.providers = {p["slug"]: p for p in data["providers"]}
        self.offerings: dict[str, dict[str, Any]] = {}
        self.provider_of: dict[str, str] = {}
        for provider in data["providers"]:
            defaults = (provider.get("defaults") or {}).get("groups") or {}
            for offering in provider["offerings"]:
                self.offerings[offering["slug"]] = {**defaults, **(offering.get("groups") or {})}
                self.provider_of[offering["slug"]] = provider["slug"]

    def fact(self, slug: str, name: str) -> Any:
        for group in self.offerings[slug].values():
            if name in (group.get("facts") or {}):
                return group["facts"][name]
        return None

    def fact_source(self, slug: str, name: str) -> dict[str, Any] | None:
        for group in self.offerings[slug].values():
            entry = (group.get("fact_sources") or {}).get(name)
            if entry is not None:
                return dict(entry)
        return None

    def source_key(self, provider: str, source: dict[str, Any]) -> str | None:
        """The demo key of an addendum source: the same id, or the source with the same address."""
        for known in self.providers[provider]["sources"]:
            if known["key"] == source["id"] or (source["url"] and known.get("url") == source["url"]):
                return str(known["key"])
        return None


@pytest.fixture(scope="module")
def addendum() -> dict[str, Any]:
    from tests.conftest import shared_dir

    path = shared_dir()
    if path is None:
        pytest.skip("../shared is not present")
    return dict(yaml.safe_load((path / "data" / "provider-catalog-addendum.yaml").read_text()))


@pytest.fixture(scope="module")
def demo() -> Demo:
    return Demo()


def _entries(addendum: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], dict[str, dict[str, Any]]]]:
    """(provider, demo offering slug, addendum entry, the provider's addendum sources by id)."""
    out = []
    for provider in addendum["providers"]:
        sources = {s["id"]: s for s in provider["sources"]}
        for offering in provider.get("offerings") or []:
            nested = [key for (slug, key) in NESTED if slug == offering["id"] and key in offering]
            if nested:
                for key in nested:
                    out.append((provider["id"], NESTED[(offering["id"], key)], offering[key], sources))
            else:
                out.append((provider["id"], offering["id"], offering, sources))
    return out


def _assert_sourced(demo: Demo, provider: str, slug: str, fact: str, src: Any, sources: dict) -> None:
    entry = demo.fact_source(slug, fact)
    assert entry is not None, f"{slug}.{fact} has no source of its own"
    keys = [demo.source_key(provider, sources[s]) for s in src]
    assert set(keys) <= set(entry["sources"]), (slug, fact, keys, entry["sources"])
    dates = [d for d in (_iso(sources[s]["date"]) for s in src) if d]
    # the fact's date is the latest day its sources give, null when none of them gives a day
    assert entry["as_of"] == (max(dates) if dates else None), (slug, fact, entry["as_of"], dates)


def test_every_addendum_source_is_a_demo_source_with_its_address_and_date(
    addendum: dict[str, Any], demo: Demo
) -> None:
    for provider in addendum["providers"]:
        for source in provider["sources"]:
            key = demo.source_key(provider["id"], source)
            assert key is not None, (provider["id"], source["id"])
            stored = next(s for s in demo.providers[provider["id"]]["sources"] if s["key"] == key)
            assert stored.get("url") == source["url"]
            if key == source["id"]:
                assert stored["date"] == source["date"] and stored["title"] == source["title"]


def test_every_published_port_count_and_speed_is_in_the_demo_with_its_source(
    addendum: dict[str, Any], demo: Demo
) -> None:
    published = [
        (provider, slug, inter, sources, inter.get("src") or entry.get("src"))
        for provider, slug, entry, sources in _entries(addendum)
        if isinstance(inter := entry.get("inter_node"), dict) and isinstance(inter.get("ports_per_node"), int)
    ]
    for provider, slug, inter, sources, src in published:
        assert demo.fact(slug, "nics_per_node") == inter["ports_per_node"], slug
        if inter.get("gbps_per_port") is not None:
            assert demo.fact(slug, "gbps_per_nic") == inter["gbps_per_port"], slug
        _assert_sourced(demo, provider, slug, "nics_per_node", src, sources)
    assert len(published) >= 9  # Azure x2, OCI H200, CoreWeave x3, Lambda H100, Nebius H200, Crusoe GB200


def test_every_demonstrated_run_size_is_the_largest_demonstrated_gpus_fact(
    addendum: dict[str, Any], demo: Demo
) -> None:
    sizes: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
        (p, slug, e["max_demonstrated_size"], src)
        for p, slug, e, src in _entries(addendum)
        if e.get("max_demonstrated_size")
    ]
    for provider, slug, size, sources in sizes:
        gpus = int(GPU_COUNT.findall(size["value"])[-1].replace(",", ""))
        assert demo.fact(slug, "largest_demonstrated_gpus") == gpus, slug
        _assert_sourced(demo, provider, slug, "largest_demonstrated_gpus", size["src"], sources)
        # a demonstrated run is not a published maximum
        assert demo.fact(slug, "max_nodes") is None, slug
    assert len(sizes) >= 8


def test_not_published_stays_null_and_records_where_it_was_looked_for(
    addendum: dict[str, Any], demo: Demo
) -> None:
    checked = 0
    for _provider, slug, entry, _sources in _entries(addendum):
        for key, fact in NOT_PUBLISHED_FACT.items():
            item = entry.get(key)
            if not isinstance(item, dict) or "not_published" not in item or item.get("value"):
                continue
            if key == "inter_node" and any(item.get(k) for k in ("ports_per_node", "fabric")):
                continue
            assert demo.fact(slug, fact) in (None, []), (slug, fact, demo.fact(slug, fact))
            recorded = demo.fact_source(slug, fact)
            assert recorded is not None and recorded["sources"], (slug, fact)
            assert "not published" in (recorded.get("note") or "").lower(), (slug, fact)
            checked += 1
    assert checked >= 12


def test_intra_node_links_the_addendum_names_are_sourced(addendum: dict[str, Any], demo: Demo) -> None:
    for provider, slug, entry, sources in _entries(addendum):
        intra = entry.get("intra_node")
        if not isinstance(intra, dict) or not intra.get("value"):
            continue
        if "NVSwitch" in intra["value"] or "XGMI" in intra["value"]:
            expected = "nvswitch" if "NVSwitch" in intra["value"] else "nvlink-mesh"
            assert demo.fact(slug, "intra_node") == expected, slug
            _assert_sourced(demo, provider, slug, "intra_node", intra["src"], sources)
        else:  # aggregate NVLink figures are kept beside the fact, not turned into a per-GPU number
            assert demo.fact_source(slug, "intra_node") or demo.fact_source(slug, "intra_node_gbytes_per_s")


def test_regions_and_compliance_of_the_chinese_clouds_are_sourced(demo: Demo) -> None:
    assert "Singapore ap-southeast-1" in demo.fact("ali-lingjun", "regions")
    assert "ECCN 3A090" in demo.fact("tencent-hcc-h800", "compliance")
    assert demo.fact("tencent-hcc-h800", "regions") is None
    assert demo.fact_source("tencent-hcc-h800", "regions") is not None
    assert "Ulanqab" in demo.fact("huawei-cloudmatrix384", "regions")
    assert demo.fact_source("huawei-cloudmatrix384", "regions")["as_of"] == "2026-06-17"  # type: ignore[index]
    assert "cn-beijing-a" in demo.fact("volc-rdma-gpu", "regions")
