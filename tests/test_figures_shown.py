"""Figures on the result page and in the bill's notes read with thousands separators in every language, as
the quote and its PDF show them (portal.formats.figure): "5,681.9 GB", "8,192 GPUs × 1,304.80 h", never
"5681.9" beside "$74,715,561.98"."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.template import Context, Template
from django.utils import translation

from portal.formats import figure
from quotes.display import number
from sizing import services
from sizing.models import PlanRun
from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (5681.9, 1, "5,681.9"),
        (Decimal("1304.80"), 2, "1,304.8"),
        (0.0, 3, "0"),
        (0.20501, 3, "0.205"),
        (12345678, 0, "12,345,678"),
        ("2048", 0, "2,048"),
    ],
)
def test_a_figure_has_separators_and_at_most_its_places(value: Any, places: int, text: str) -> None:
    assert figure(value, places) == text
    assert number(value, places) == text  # the quote's figures are the same function's


@pytest.mark.parametrize("nothing", [None, "", "n/a", float("nan"), True])
def test_no_figure_is_a_dash(nothing: Any) -> None:
    assert figure(nothing) == "—"


def test_the_template_filter_writes_the_same_figure_in_both_languages() -> None:
    template = Template("{% load units %}{{ v|figure:1 }} {{ n|figure:0 }}")
    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert template.render(Context({"v": 5681.94, "n": 8192})) == "5,681.9 8,192"


@pytest.fixture
def big_run(db: Any, django_capture_on_commit_callbacks: Any) -> PlanRun:
    """Llama 3 405B on one H100 InfiniBand offering of up to 256 nodes: a checkpoint past a thousand GB and
    a GPU count past a thousand (the run sized at 1,024 GPUs)."""
    offering = OfferingFactory(slug="big-h100", max_nodes=256)
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.5"))
    user = UserFactory(username="figures-buyer")
    workload = services.workload_create(
        owner=user, preset="llama3-405b", train_tokens=2e12, deadline_days=3650
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=user, workload=workload, gpus=1024)
    run.refresh_from_db()
    assert run.status == "done"
    return run


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_result_page_and_the_bill_notes_group_thousands(
    client: Any, big_run: PlanRun, language: str
) -> None:
    result = big_run.results.get(offering__slug="big-h100")
    assert result.feasible
    goodput = result.sizing["goodput"]
    assert result.gpus is not None and result.nodes is not None
    assert goodput["checkpoint_gb"] >= 1000 and result.gpus >= 1000  # the figures the test is about
    client.force_login(big_run.owner)
    page = client.get(f"/plan/{big_run.pk}/big-h100/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f"{figure(goodput['checkpoint_gb'], 1)} GB" in page
    assert f">{goodput['checkpoint_gb']} GB<" not in page
    assert f"{figure(goodput['mtbf_h'], 1)} h" in page
    assert f"{result.gpus:,} / {result.nodes:,}" in page
    memory_total = result.sizing["memory_gib_per_gpu"]["total"]
    assert f">{figure(memory_total, 3)}<" in page
    # the compute line's note: the GPUs and hours as the line's quantity reads them
    compute = next(line for line in result.bill["lines"] if line["item"] == "compute")
    assert re.search(r"\d,\d{3} GPUs × [\d,]+\.\d+ h", compute["note"]), compute["note"]
    assert f"{result.gpus:,} GPUs" in compute["note"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (8192, "8,192"),
        (Decimal("1304.80"), "1,304.80"),
        (Decimal("1E+3"), "1,000"),
        (Decimal("91.2"), "91.2"),
    ],
)
def test_a_bill_note_writes_its_counts_with_separators_and_their_own_decimals(value: Any, text: str) -> None:
    from sizing.bill import _count

    assert _count(value) == text


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_gpu_count_in_a_sentence_groups_its_thousands_in_both_languages(client: Any, language: str) -> None:
    """A request for quote of 1,024 GPUs, to the buyer and to the provider's representative, reads
    "1,024 GPUs" in both languages (Django's intcomma grouped them in English only, and these pages did not
    group them at all)."""
    from rfq import services as rfq_services
    from tests.providers.factories import ProviderFactory

    offering = OfferingFactory(slug="rfq-big", max_nodes=256, provider=ProviderFactory(slug="bigcloud"))
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.5"))
    buyer = UserFactory(username="rfq-figures-buyer")
    rep = UserFactory(username="rfq-figures-rep", role="provider", provider=offering.provider)
    rfq = rfq_services.rfq_create(
        buyer=buyer, offering_slugs=["rfq-big"], gpus=1024, questions=["When?"], preset="13b"
    )
    client.force_login(buyer)
    detail = client.get(f"/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert "1,024" in detail and "1024 " not in detail
    client.force_login(rep)
    answer = client.get(f"/rfqs/{rfq.pk}/answer/rfq-big/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert "1,024" in answer and "1024 " not in answer
