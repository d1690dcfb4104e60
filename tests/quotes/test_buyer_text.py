"""What a buyer reads names no internal document or code: every main page, its chart data and the quote
PDF are free of design-document references ("DESIGN §6", "cal §4", "hidden-costs.md") and of pitfall rule
codes written as prose."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client

from checks.rules import rule_catalog
from checks.services import findings_refresh
from hardware import GPUS
from quotes.models import Quote
from sizing import services as sizing_services
from tests.quotes.conftest import make_offering
from tests.quotes.helpers import pdf_bytes, pdf_text

pytestmark = pytest.mark.django_db

# Our design documents (DESIGN.md and its sections, docs/, STYLE.md, the calibration notes) and our Python
# constants (ALL_CAPS names with an underscore, such as DEFAULT_DEADLINE_DAYS). The outside tools' settings
# a buyer is told to use keep their names: NCCL's variables (NCCL_ALGO=Ring) and the acceptance kit's.
OUTSIDE_CAPS = r"NCCL_\w+|STABILITY_(?:HOURS|LIMIT)|IMAGE_(?:NCCL|PROBE|DCGM)|GPUS_PER_NODE|NODE_COUNTS"
INTERNAL = re.compile(
    r"DESIGN|§|\bcal\b \d|calibration\.md|hidden-costs|peer-portals|FORMATS\.md|\w\.md\b|docs/|STYLE"
    rf"|\b(?!(?:{OUTSIDE_CAPS})\b)[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b"
)


def visible_text(page: str) -> str:
    """The words of a page as shown: tags, styles and scripts other than chart data removed."""
    page = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
    page = re.sub(r'<script(?! id="fig-).*?</script>', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def rule_codes() -> list[str]:
    return [rule["code"] for rule in rule_catalog()]


def assert_no_internal_reference(where: str, text: str) -> None:
    found = INTERNAL.search(text)
    assert found is None, (
        f"{where}: internal reference {text[max(0, found.start() - 60) : found.end() + 60]!r}"
    )


def assert_clean(where: str, text: str) -> None:
    """No internal reference, and no rule code or GPU key (which the API takes, but a page never shows)."""
    assert_no_internal_reference(where, text)
    for code in rule_codes():
        assert re.search(rf"(?<![\w/#-]){re.escape(code)}(?![\w-])", text) is None, (
            f"{where}: rule code {code}"
        )
    for key in GPUS:  # a GPU by its name, never the hardware table's key
        assert re.search(rf"(?<![\w/#-]){re.escape(key)}(?![\w-])", text) is None, f"{where}: GPU key {key}"


@pytest.fixture
def pages(
    buyer: Any, offering: Any, workload: Any, quote: Quote, django_capture_on_commit_callbacks: Any
) -> dict[str, str]:
    """Every main page a buyer opens, rendered from a small catalog with findings, a run and a quote."""
    cheap = make_offering(provider_name="Budget Cloud", name="Ethernet box", slug="budget-eth")
    cheap.fabric, cheap.nics_per_node, cheap.gbps_per_nic = "ethernet", 2, 100
    cheap.save()
    for o in (offering, cheap):
        findings_refresh(offering=o)
    with django_capture_on_commit_callbacks(execute=True):
        run = sizing_services.plan_run_create(owner=buyer, workload=workload)
    client = Client()
    client.force_login(buyer)
    urls = {
        "home": "/",
        "planner": "/plan/",
        "workloads": "/plan/workloads/",
        "browse": "/offerings/",
        "offering": offering.get_absolute_url(),
        "offering-eth": cheap.get_absolute_url(),
        "compare": f"/compare/?offerings={offering.slug},{cheap.slug}&workload={workload.pk}&gpus=64",
        "checklist": f"/checks/checklist/?offering={cheap.slug}",
        "run": f"/plan/{run.pk}/",
        "result": f"/plan/{run.pk}/{cheap.slug}/",
        "quote": f"/quotes/{quote.pk}/",
    }
    out = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        out[name] = visible_text(response.content.decode())
    return out


def test_no_page_names_an_internal_reference_or_a_rule_code(pages: dict[str, str]) -> None:
    for name, text in pages.items():
        assert_clean(name, text)


def test_the_quote_pdf_names_no_internal_reference(quote: Quote) -> None:
    from quotes import services

    services.quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    assert_clean("quote PDF", pdf_text(pdf_bytes(quote)))


def test_the_checker_catches_what_it_looks_for() -> None:
    with pytest.raises(AssertionError):
        assert_clean("sample", "a 100B+ job needs ~400 Gb/s (DESIGN 6)")
    with pytest.raises(AssertionError):
        assert_clean("sample", "OPT-175B chronicles, cal §4")
    with pytest.raises(AssertionError):
        assert_clean("sample", f"finding {rule_codes()[0]} (warning)")
    with pytest.raises(AssertionError):
        assert_clean("sample", "GPU model = H100-SXM-80GB")
    with pytest.raises(AssertionError):
        assert_clean("sample", "the stated default (DEFAULT_DEADLINE_DAYS) applies")
    with pytest.raises(AssertionError):
        assert_clean("sample", "materialised scores (docs/MODEL.md)")
    assert_clean("sample", 'id="finding-x" Storage and egress prices not published')
    assert_clean("sample", "rerun with NCCL_ALGO=Ring; STABILITY_HOURS=24 ./run_all.sh")


# Keys inside the answer's objects that the schema describes in words (an object typed as a dict): names a
# client reads in the JSON, not Python's.
DOCUMENTED_KEYS = {
    "retry_after_seconds",
    "answer_used",
    "ready_in_days",
    "deadline_met",
    "iteration_time_s_low",
    "train_days_low",
    "gpu_architecture_measured",
    # the keys of a workload's `sized_as.moe`, as the workload's own moe object has them
    "top_k",
    "expert_ffn_hidden",
    "shared_experts",
    "dense_layers",
}


def schema_texts(schema: Any) -> tuple[list[tuple[str, str]], set[str]]:
    """Every description, summary and title of the schema with where it is, and every name it defines."""
    texts: list[tuple[str, str]] = []
    names: set[str] = set()

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}) if isinstance(node.get("properties"), dict) else ())
            if isinstance(node.get("name"), str):
                names.add(node["name"])
            for key, value in node.items():
                if key in ("description", "summary", "title") and isinstance(value, str):
                    texts.append((f"{where}/{key}", value))
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    walk(schema, "")
    return texts, names


def test_the_api_schema_names_no_internal_document_or_code_name(db: Any) -> None:
    """The schema behind /api/docs/ is read by buyers' engineers: its words cite no design document and
    name no Python constant or function, only the API's own fields and parameters."""
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    texts, names = schema_texts(schema)
    assert len(texts) > 100  # the walk found the descriptions
    for where, text in texts:
        assert_no_internal_reference(f"schema {where}", text)
        for word in re.findall(r"(?<![\w.`/])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(])|\b\w+\(", text):
            assert word in names or word in DOCUMENTED_KEYS, f"schema {where}: {word!r} in {text!r}"


def test_an_incomplete_bill_names_its_unknown_fees_and_shows_its_range() -> None:
    from quotes.display import bill_range, unknown_fees

    bill = {
        "complete": False,
        "lines": [
            {"item": "compute", "usd": "100.00"},
            {"item": "support", "usd": None},
            {"item": "setup", "usd": None},
        ],
    }
    assert unknown_fees(bill) == ["Support", "Setup fee"]
    assert bill_range({"cost_low_usd": "100", "cost_high_usd": "2500"}, bill) == "$100.00 to $2,500.00"
    assert bill_range({}, bill) == ""  # a bill without its range says only what is unknown
    assert bill_range({"cost_low_usd": 1, "cost_high_usd": 2}, dict(bill, complete=True)) == ""


def test_the_step_breakdown_follows_the_engine_order_whatever_the_stored_order() -> None:
    """jsonb keeps no key order: the quote puts the parts back in the engine's order, the straggler wait
    (`sync`) with the other parts rather than after them, and a part it does not know last."""
    from quotes.display import iteration_items

    stored = {"other": 0.5, "zz_new": 0.1, "sync": 0.2, "bubble": 1.0, "compute": 9.0, "dp_comm": 0.4}
    assert [k for k, _ in iteration_items({"iteration_breakdown_s": stored})] == [
        "compute", "dp_comm", "bubble", "sync", "other", "zz_new"
    ]  # fmt: skip


def test_a_quote_cites_its_sources_by_number_never_by_their_catalog_key(quote: Quote) -> None:
    """A source's catalog key ("acme-h100-hw") is an internal name: the page and the PDF cite "[1]", listed
    with its title and address at the end, numbered in the order the quote first cites it."""
    from quotes import services

    client = Client()
    client.force_login(quote.owner)
    page = visible_text(client.get(f"/quotes/{quote.pk}/").content.decode())
    services.quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    pdf = pdf_text(pdf_bytes(quote))
    for where, text in (("page", page), ("PDF", pdf)):
        for key in ("acme-h100-hw", "acme-h100-pricing"):
            assert key not in text, (where, key)
        # the hardware group is shown first and cites the datasheet; the fees group and the plans the pricing
        assert re.search(r"sources: \[1\]", text), where
        assert re.search(r"sources: \[2\]", text), where
        assert re.search(r"\[1\]\s+Hardware datasheet", text), where
        assert re.search(r"\[2\]\s+Acme GPU Cloud pricing", text), where


def test_sources_are_numbered_once_each_in_the_order_first_cited() -> None:
    from quotes.display import quote_view

    hw = {"key": "x-hw", "title": "Datasheet", "url": "https://a", "date_text": "2026"}
    price = {"key": "x-price", "title": "Prices", "url": "https://b", "date_text": "2026"}
    other = {"key": "x-other", "title": "Blog", "url": "", "date_text": ""}
    snapshot = {
        "provenance": [
            {"group": "fees", "sources": [price]},
            {"group": "hardware", "sources": [other, hw]},
        ],
        "plans": [{"name": "On-demand", "sources": [price, other]}, {"name": "Spot", "sources": []}],
    }
    view = quote_view(snapshot)
    assert [(s["ref"], s["title"]) for s in view["sources"]] == [
        ("[1]", "Blog"), ("[2]", "Datasheet"), ("[3]", "Prices")
    ]  # fmt: skip
    groups = {g["label"]: g["sources"] for g in view["fact_groups"]}
    assert groups["Hardware"] == "[1], [2]"
    # a group's note names a source by its number and a fact by its label, never by their catalog names
    snapshot["provenance"][1]["note"] = "mesh per x-hw, priced in x-price; nvlink_domain_gpus 8 derived."
    notes = {g["label"]: g["note"] for g in quote_view(snapshot)["fact_groups"]}
    assert notes["Hardware"] == "mesh per [2], priced in [3]; NVLink domain 8 derived."
    assert groups["Fees"] == "[3]"
    assert [p["sources"] for p in view["plan_sources"]] == ["[1], [3]", "—"]


def test_an_unpriced_offering_s_quote_names_no_plan_kind_or_bill_line_code(buyer: Any, workload: Any) -> None:
    """Without a published plan the bill runs on a stand-in plan whose kind is "none": the quote shows the
    stand-in's name alone and "—" for its kind, and the unpriced lines by their names, never their keys."""
    from quotes import services

    unpriced = make_offering(name="Unpriced box", slug="unpriced")
    unpriced.plans.all().delete()
    findings_refresh(offering=unpriced)
    quote = services.quote_create_for_offering(owner=buyer, offering_slug="unpriced", workload_id=workload.pk)
    client = Client()
    client.force_login(buyer)
    raw = client.get(f"/quotes/{quote.pk}/").content.decode()
    page = visible_text(raw)
    assert "no published plan" in page and "(none," not in page
    # no GPU price: no total and no per-token figure, never a "$0.00" headline
    assert "No total: the provider publishes no GPU price" in page
    assert re.search(r'id="quote-total">\s*no price\s*<', raw), raw[raw.find("quote-total") - 200 :][:400]
    assert "$0.00 per billion tokens" not in page and "— per billion tokens" not in page
    assert re.search(r"<td[^>]*>\s*none\s*</td>", raw) is None
    assert re.search(r"<td[^>]*>\s*—\s*</td>", raw) is not None
    for key in ("failure_overhead", "checkpoint_storage", "dataset_storage"):
        assert key not in page, key
    client.cookies["django_language"] = "zh-hans"
    zh = visible_text(client.get(f"/quotes/{quote.pk}/").content.decode())
    assert "no published plan" not in zh


def test_the_open_facts_of_an_amd_quote_name_a_scale_up_domain() -> None:
    from quotes.display import _open

    fact = {"fact": "nvlink_domain_gpus", "label": "NVLink domain", "group": "Hardware", "unit": "GPUs"}
    amd = _open({"facts": {"gpu": "MI300X-192GB"}, "open_questions": {"facts": [fact]}})
    nvidia = _open({"facts": {"gpu": "H100-SXM-80GB"}, "open_questions": {"facts": [fact]}})
    assert [f["label"] for f in amd["facts"]] == ["Scale-up domain"]
    assert [f["label"] for f in nvidia["facts"]] == ["NVLink domain"]


def test_an_incomplete_quote_states_the_central_bill_the_planner_ranks_by(
    buyer: Any, offering: Any, workload: Any, quote: Quote, django_capture_on_commit_callbacks: Any
) -> None:
    # the ranking shows "about $X" (unpublished fees at the middle of their typical range) for an offering;
    # its quote showed only the published lines and the low-high range, never that figure
    from quotes.display import bill_central
    from sizing.models import PlanResult

    bill = quote.snapshot["bill"]
    assert not bill["complete"] and bill["cost_central_usd"] is not None
    with django_capture_on_commit_callbacks(execute=True):
        run = sizing_services.plan_run_create(owner=buyer, workload=workload, offering_slugs=[offering.slug])
    ranked = PlanResult.objects.get(run=run, offering=offering).cost_total_usd
    central = bill_central(bill)
    assert central == f"${ranked:,.2f}"
    client = Client()
    client.force_login(buyer)
    page = visible_text(client.get(f"/quotes/{quote.pk}/").content.decode())
    assert f"Likely bill with the unpublished fees: about {central}" in " ".join(page.split())
    client.cookies["django_language"] = "zh-hans"
    zh = visible_text(client.get(f"/quotes/{quote.pk}/").content.decode())
    assert f"约 {central}" in " ".join(zh.split())
    from quotes import services as quote_services

    quote_services.quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    assert f"about {central}" in pdf_text(pdf_bytes(quote))
    assert bill_central(dict(bill, complete=True)) == ""


def test_a_quote_names_its_workload_s_preset_by_name_never_by_its_code() -> None:
    from quotes.display import preset_note

    # a workload made from a preset is named after it ("Llama 3 70B"): the preset is not said twice
    assert preset_note({"name": "Llama 3 70B", "preset": "llama3-70b"}) == ""
    # one the buyer named gets the preset's name beside it, not "llama3-70b"
    assert preset_note({"name": "our 70B run", "preset": "llama3-70b"}) == "Llama 3 70B"
    assert preset_note({"name": "tiny", "preset": "13b"}) == "13B dense (Llama 2 13B shape)"
    assert preset_note({"name": "custom", "preset": ""}) == ""
    # named on a Chinese page, quoted in English: not repeated either
    assert preset_note({"name": "DeepSeek-V3 671B MoE（激活 37B）", "preset": "deepseek-v3-671b"}) == ""


def test_a_workload_made_from_a_preset_is_named_after_it(buyer: Any) -> None:
    from django.utils import translation

    assert sizing_services.workload_create(owner=buyer, preset="llama3-70b").name == "Llama 3 70B"
    with translation.override("zh-hans"):
        named = sizing_services.workload_create(owner=buyer, preset="deepseek-v3-671b").name
    assert named.startswith("DeepSeek-V3 671B") and "MoE" in named and named != "deepseek-v3-671b"
    assert sizing_services.workload_create(owner=buyer, preset="13b", name="mine").name == "mine"
