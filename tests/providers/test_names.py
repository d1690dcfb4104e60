"""Every code a page can show has a name: each enum and list fact's choices, and the kind of every source the
shipped catalog and the reference data cite."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.facts import CHOICE_NAMES, FACTS, SOURCE_KIND_NAMES, choice_name, source_kind_name

ROOT = Path(__file__).resolve().parents[2]


def test_every_enum_and_list_code_has_a_name() -> None:
    named = [fact for fact in FACTS if fact.type in ("enum", "list")]
    assert {fact.name for fact in named} == set(CHOICE_NAMES)
    for fact in named:
        for code in fact.choices:
            assert code in CHOICE_NAMES[fact.name], (fact.name, code)
    assert choice_name("payment_terms", "net-30") == "Net 30 days"
    assert choice_name("schedulers", "not-a-code") == "not-a-code"


def _source_kinds(path: Path) -> set[str]:
    kinds: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if {"title", "kind"} <= node.keys() and isinstance(node["kind"], str):
                kinds.add(node["kind"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load(path.read_text()))
    return kinds


def test_every_source_kind_the_catalogs_cite_has_a_name() -> None:
    files = sorted((ROOT / "providers").rglob("*.yaml"))
    shared = ROOT.parent / "shared" / "data"
    files += sorted(shared.glob("*.yaml")) if shared.is_dir() else []
    kinds = set().union(*(_source_kinds(f) for f in files))
    if not kinds:
        pytest.fail("no catalog file with sources was found")
    assert kinds - set(SOURCE_KIND_NAMES) == set()
    assert source_kind_name("third_party_code") == "third-party code"
    assert source_kind_name("some_new_kind") == "some new kind"


def test_a_note_names_facts_by_their_labels_and_sources_as_the_page_cites_them() -> None:
    from providers.names import note_text

    note = (
        "'NVLink/NVSwitch full mesh' (ml-eng-network) -> nvswitch; nvlink_domain_gpus 8 derived; "
        "proprietary_fabric_plugin true. ml-eng-network-old is another source; the ml-eng-network table."
    )
    text = note_text(note, {"ml-eng-network": "[2]", "ml-eng-network-old": "[5]"})
    assert text == (
        "'NVLink/NVSwitch full mesh' ([2]) → full-mesh (NVSwitch); NVLink domain 8 derived; "
        "Needs a proprietary fabric plugin true. [5] is another source; the [2] table."
    )
    assert note_text("", {"a-b": "x"}) == ""
    # a key without a hyphen could be a word of the note: never replaced
    assert note_text("the aws table", {"aws": "[1]"}) == "the aws table"


@pytest.mark.django_db
def test_the_offering_page_shows_a_note_without_catalog_names(client: Any) -> None:
    from providers.models import Provenance, Source
    from tests.providers.factories import OfferingFactory

    offering = OfferingFactory(slug="noted")
    src = Source.objects.create(provider=offering.provider, key="ml-eng-network", title="ML engineering book")
    prov = Provenance.objects.create(
        offering=offering, group="hardware", note="full mesh (ml-eng-network); nvlink_domain_gpus 8 derived."
    )
    prov.sources.add(src)
    page = client.get("/offerings/noted/").content.decode()
    assert "full mesh (“ML engineering book”); NVLink domain 8 derived." in page
    shown = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style).*?</\1>", " ", page, flags=re.S)))
    assert "ml-eng-network" not in shown and "nvlink_domain_gpus" not in shown, shown


@pytest.mark.django_db
def test_the_sort_choices_are_words_in_every_language(client: Any) -> None:
    """The browse page's sort keys ("-gbps_per_gpu") are what the address takes; the list shows words."""
    from providers.filters import SORT_LABELS

    for lang, expected in (
        ("en", "network bandwidth per GPU, highest first"),
        ("zh-hans", "每 GPU 网络带宽"),
    ):
        client.cookies["django_language"] = lang
        page = client.get("/offerings/").content.decode()
        options = re.findall(r'<option value="(-?[a-z_]*)"[^>]*>([^<]*)</option>', page)
        sort = {value: html.unescape(label) for value, label in options if value in SORT_LABELS}
        assert set(sort) == set(SORT_LABELS) - {"provider"} or set(sort) == set(SORT_LABELS)
        assert expected in sort["-gbps_per_gpu"], sort
        assert all("_" not in label and not label.startswith("-") for label in sort.values()), sort


def test_the_nvlink_domain_is_a_scale_up_domain_on_other_vendors_gpus() -> None:
    """AMD and Huawei nodes join their GPUs by Infinity Fabric and HCCS: their domain is not an NVLink one."""
    from providers.facts import fact_label
    from providers.names import note_text

    assert fact_label("nvlink_domain_gpus") == "NVLink domain"
    assert fact_label("nvlink_domain_gpus", "nvidia") == "NVLink domain"
    assert fact_label("nvlink_domain_gpus", "amd") == "Scale-up domain"
    assert fact_label("nvlink_domain_gpus", "huawei") == "Scale-up domain"
    assert fact_label("gpus_per_node", "amd") == "GPUs per node"
    assert fact_label("not_a_fact", "amd") == "not_a_fact"
    assert note_text("nvlink_domain_gpus 8 derived", vendor="amd") == "Scale-up domain 8 derived"


@pytest.mark.django_db
def test_an_amd_offering_page_names_its_scale_up_domain_without_nvlink(client: Any) -> None:
    from tests.providers.factories import GPUModelFactory, OfferingFactory

    mi300x = GPUModelFactory(key="MI300X-192GB", name="AMD Instinct MI300X", vendor="AMD", hbm_gb=192.0)
    OfferingFactory(slug="amd-node", gpu=mi300x, nvlink_domain_gpus=8)
    OfferingFactory(slug="nvidia-node", nvlink_domain_gpus=8)
    row = re.compile(r'<tr id="fact-nvlink_domain_gpus"><th scope="row">([^<]*)</th>')
    assert row.findall(client.get("/offerings/amd-node/").content.decode()) == ["Scale-up domain"]
    assert row.findall(client.get("/offerings/nvidia-node/").content.decode()) == ["NVLink domain"]
    client.cookies["django_language"] = "zh-hans"
    (zh,) = row.findall(client.get("/offerings/amd-node/").content.decode())
    assert zh != "Scale-up domain" and "NVLink" not in zh


@pytest.mark.django_db
def test_the_browse_page_names_gpus_not_their_table_keys(client: Any) -> None:
    """The GPU column and the GPU menu show the GPU's name; the menu still sends the key the address takes."""
    from tests.providers.factories import GPUModelFactory, OfferingFactory

    gpu = GPUModelFactory(key="H100-SXM-80GB", name="NVIDIA H100 SXM5 80GB")
    OfferingFactory(slug="named-gpu", gpu=gpu)
    page = client.get("/offerings/").content.decode()
    assert '<option value="H100-SXM-80GB">NVIDIA H100 SXM5 80GB</option>' in page
    shown = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style).*?</\1>", " ", page, flags=re.S)))
    assert "NVIDIA H100 SXM5 80GB × 8" in shown and "H100-SXM-80GB" not in shown
    # the filter by the key still finds it
    assert "named-gpu" in client.get("/offerings/?gpu=H100-SXM-80GB").content.decode()
    # and the offering's own page names it in its facts
    page = client.get("/offerings/named-gpu/").content.decode()
    shown = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style).*?</\1>", " ", page, flags=re.S)))
    assert "NVIDIA H100 SXM5 80GB" in shown and "H100-SXM-80GB" not in shown


def test_a_note_names_a_gpu_by_its_name_not_its_table_key() -> None:
    from providers.names import note_text

    text = note_text(
        "Published name 'Huawei Ascend 910B' -> GPU table key Ascend-910B-64GB. Node size not published."
    )
    assert text == "Published name 'Huawei Ascend 910B' → Huawei Ascend 910B. Node size not published."
    assert "GB200-186GB" not in note_text("GB200 (GPU table key GB200-186GB).")
    # a key inside a longer word is not a key
    assert note_text("xH100-SXM-80GB-ish") == "xH100-SXM-80GB-ish"
