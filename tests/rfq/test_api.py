"""Requests for quote through /api/v1/rfqs/ (issue 19 item 1): the flow, the access rules, the refusals,
the comparison over the answers, the quote, the notifications and the audit log."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core import mail
from rest_framework.test import APIClient

from providers.models import Offering
from quotes.models import Quote
from rfq.models import Answer, RfqEvent

SOURCE = "https://fast.example/offers/rfq-answer.pdf"


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _send(world: dict[str, Any], **overrides: Any) -> Any:
    body = {
        "workload": world["workload"].pk,
        "offerings": ["fast-ib", "slow-eth"],
        "gpus": 64,
        "questions": ["Is the fabric non-blocking?", "Can you deliver by January?"],
        **overrides,
    }
    return _client(world["buyer"]).post("/api/v1/rfqs/", body, format="json")


def _answer(world: dict[str, Any], rfq_id: int, rep: str = "fast_rep", **overrides: Any) -> Any:
    body = {
        "offering": "fast-ib",
        "price_usd_per_gpu_hour": "2.40",
        "term_months": 3,
        "delivery_weeks": 2,
        "payment_terms": "net-30",
        "min_nodes": 4,
        "facts": {"usable_gpu_guarantee_pct": 98, "auto_replacement": True},
        "source_url": SOURCE,
        "as_of": "2026-11-20",
        **overrides,
    }
    return _client(world[rep]).post(f"/api/v1/rfqs/{rfq_id}/answers/", body, format="json")


@pytest.fixture
def rfq_id(world: dict[str, Any]) -> int:
    response = _send(world)
    assert response.status_code == 201, response.json()
    return int(response.json()["id"])


def test_the_whole_flow_request_answers_comparison_and_quote(world: dict[str, Any], rfq_id: int) -> None:
    assert _answer(world, rfq_id).status_code == 201
    slow = _answer(
        world, rfq_id, rep="slow_rep", offering="slow-eth", price_usd_per_gpu_hour="1.80", facts={}
    )
    assert slow.status_code == 201, slow.json()
    data = _client(world["buyer"]).get(f"/api/v1/rfqs/{rfq_id}/").json()
    assert data["gpus"] == 64 and data["workload"] == world["workload"].pk
    assert data["questions"] == ["Is the fabric non-blocking?", "Can you deliver by January?"]
    assert {a["offering"] for a in data["answers"]} == {"fast-ib", "slow-eth"}
    comparison = data["comparison"]
    assert comparison["status"] == "done" and comparison["unanswered"] == []
    rows = {r["offering"]: r for r in comparison["results"]}
    assert sorted(r["rank"] for r in comparison["results"]) == [1, 2]
    for row in rows.values():
        # the run result fields, the answer used and the deadline
        for key in (
            "feasible",
            "layout",
            "gpus",
            "train_days",
            "mfu",
            "goodput",
            "cost_total_usd",
            "findings",
        ):
            assert key in row
        assert row["gpus"] == 64
        assert row["deadline_days"] == 60
        assert row["ready_in_days"] == pytest.approx(
            row["answer_used"]["delivery_weeks"] * 7 + row["train_days"], abs=0.1
        )
        assert row["deadline_met"] is (row["ready_in_days"] <= 60)
    assert rows["fast-ib"]["answer_used"]["source_url"] == SOURCE
    assert rows["fast-ib"]["answer_used"]["price_usd_per_gpu_hour"] == "2.4000"
    # the buyer turns the winner into a quote whose prices are the answer's
    made = _client(world["buyer"]).post(f"/api/v1/rfqs/{rfq_id}/quote/", {}, format="json")
    assert made.status_code == 201, made.json()
    quote = Quote.objects.get(pk=made.json()["id"])
    winner = comparison["results"][0]
    assert quote.snapshot["offering"]["slug"] == winner["offering"]
    assert quote.snapshot["proposal"]["id"] == winner["answer_used"]["id"]
    # the quote totals the published lines (the range and the unknown fees are stated beside it)
    assert str(quote.total_usd) == (winner["cost_low_usd"] or winner["cost_total_usd"])
    assert _client(world["buyer"]).get(f"/api/v1/quotes/{quote.pk}/").status_code == 200
    pdf = _client(world["buyer"]).get(f"/api/v1/quotes/{quote.pk}/pdf")
    assert pdf.status_code in (200, 202)


def test_the_comparison_uses_the_answers_facts_and_price_not_the_catalogs(
    world: dict[str, Any], rfq_id: int
) -> None:
    # Slow Cloud first answers with its catalog facts (one 100 Gb/s NIC per node) ...
    _answer(world, rfq_id, rep="slow_rep", offering="slow-eth", price_usd_per_gpu_hour="2.00", facts={})
    before = _client(world["buyer"]).get(f"/api/v1/rfqs/{rfq_id}/").json()["comparison"]["results"][0]
    # ... then offers an InfiniBand fabric with eight 400 Gb/s NICs at a lower price: the later answer counts.
    better = {"fabric": "infiniband", "nics_per_node": 8, "gbps_per_nic": 400}
    assert (
        _answer(
            world, rfq_id, rep="slow_rep", offering="slow-eth", price_usd_per_gpu_hour="1.50", facts=better
        ).status_code
        == 201
    )
    after = _client(world["buyer"]).get(f"/api/v1/rfqs/{rfq_id}/").json()["comparison"]["results"][0]
    assert after["answer_used"]["facts"]["gbps_per_nic"] == 400
    assert after["train_days"] < before["train_days"]
    assert Decimal(after["cost_total_usd"]) < Decimal(before["cost_total_usd"])
    # the catalog itself is unchanged
    slow = Offering.objects.get(slug="slow-eth")
    assert (slow.fabric, slow.nics_per_node, slow.gbps_per_nic) == ("ethernet", 1, 100.0)
    assert Answer.objects.filter(offering=slow).count() == 2


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"source_url": None}, "source_url"),
        ({"as_of": None}, "as_of"),
        ({"source_url": ""}, "source_url"),
        ({"as_of": "2999-01-01"}, "as_of"),
        ({"facts": {"usable_gpu_guarantee_pct": 120}}, "facts.usable_gpu_guarantee_pct"),
        ({"facts": {"gbps_per_nic": -1}}, "facts.gbps_per_nic"),
        ({"facts": {"warp_drive": True}}, "facts.warp_drive"),
        ({"facts": {"fees_note": "a\x00b"}}, "facts.fees_note"),
        ({"facts": {"fees_note": "x" * 6000}}, "facts.fees_note"),
        ({"payment_terms": "net-90"}, "payment_terms"),
        ({"price_usd_per_gpu_hour": "-1"}, "price_usd_per_gpu_hour"),
        ({"delivery_weeks": 500}, "delivery_weeks"),
        ({"offering": "slow-eth"}, None),  # not theirs: 403 below
    ],
)
def test_an_answer_without_source_and_date_or_outside_the_bounds_is_refused(
    world: dict[str, Any], rfq_id: int, overrides: dict[str, Any], field: str | None
) -> None:
    body = {k: v for k, v in overrides.items() if v is not None}
    missing = [k for k, v in overrides.items() if v is None]
    response = _answer(world, rfq_id, **body) if not missing else _answer_without(world, rfq_id, missing[0])
    if field is None:
        assert response.status_code == 403
    else:
        assert response.status_code == 400, response.json()
        assert field in response.json()["extra"]["fields"], response.json()
        assert response.json()["message"].startswith(field)
    assert not Answer.objects.exists()


def _answer_without(world: dict[str, Any], rfq_id: int, key: str) -> Any:
    body = {
        "offering": "fast-ib",
        "price_usd_per_gpu_hour": "2.40",
        "delivery_weeks": 2,
        "payment_terms": "monthly",
        "source_url": SOURCE,
        "as_of": "2026-11-20",
    }
    body.pop(key)
    return _client(world["fast_rep"]).post(f"/api/v1/rfqs/{rfq_id}/answers/", body, format="json")


def test_access_rules(world: dict[str, Any], rfq_id: int) -> None:
    # only the addressed providers' representatives see the request, and only their own offerings in it
    other = Offering.objects.create(provider=world["fast"].provider, slug="fast-other", name="Not asked")
    not_addressed = _send(world, offerings=["slow-eth"]).json()["id"]
    fast_list = _client(world["fast_rep"]).get("/api/v1/rfqs/").json()
    assert [r["id"] for r in fast_list] == [rfq_id]
    assert fast_list[0]["offerings"] == ["fast-ib"]
    assert _client(world["fast_rep"]).get(f"/api/v1/rfqs/{not_addressed}/").status_code == 404
    assert _answer(world, not_addressed, offering="slow-eth").status_code == 404
    # a representative cannot answer for another provider's offering, nor for one not asked
    assert _answer(world, rfq_id, offering="slow-eth").status_code == 403
    assert _answer(world, rfq_id, offering=other.slug).status_code == 400
    # buyers and staff do not answer
    assert _answer(world, rfq_id, rep="buyer").status_code == 403
    assert _answer(world, rfq_id, rep="staff").status_code == 403
    # another buyer sees nothing; a representative does not send requests
    assert _client(world["other_buyer"]).get("/api/v1/rfqs/").json() == []
    assert _client(world["other_buyer"]).get(f"/api/v1/rfqs/{rfq_id}/").status_code == 404
    rep_sends = _client(world["fast_rep"]).post(
        "/api/v1/rfqs/",
        {"workload": world["workload"].pk, "offerings": ["fast-ib"], "gpus": 8},
        format="json",
    )
    assert rep_sends.status_code == 403
    # nobody anonymous
    assert APIClient().get("/api/v1/rfqs/").status_code in (401, 403)
    # a representative never sees a competitor's answer or the comparison
    assert _answer(world, rfq_id).status_code == 201
    assert _answer(world, rfq_id, rep="slow_rep", offering="slow-eth").status_code == 201
    seen = _client(world["slow_rep"]).get(f"/api/v1/rfqs/{rfq_id}/").json()
    assert [a["offering"] for a in seen["answers"]] == ["slow-eth"]
    assert seen["comparison"] is None
    # only the buyer turns an answer into a quote
    assert (
        _client(world["fast_rep"]).post(f"/api/v1/rfqs/{rfq_id}/quote/", {}, format="json").status_code == 403
    )
    assert _client(world["staff"]).post(f"/api/v1/rfqs/{rfq_id}/quote/", {}, format="json").status_code == 403
    assert len(_client(world["staff"]).get("/api/v1/rfqs/").json()) == 2


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"offerings": []}, "offerings"),
        ({"offerings": ["no-such-offering"]}, "offerings"),
        ({"gpus": 0}, "gpus"),
        ({"gpus": 10**9}, "gpus"),
        ({"questions": ["x" * 3000]}, "questions"),
        ({"workload": 999999}, "workload"),
    ],
)
def test_a_bad_request_is_refused_naming_the_field(
    world: dict[str, Any], overrides: dict[str, Any], field: str
) -> None:
    response = _send(world, **overrides)
    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]


def test_another_buyers_workload_cannot_be_used(world: dict[str, Any]) -> None:
    response = _client(world["other_buyer"]).post(
        "/api/v1/rfqs/",
        {"workload": world["workload"].pk, "offerings": ["fast-ib"], "gpus": 8},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["workload"] == ["no such workload of yours"]


def test_notifications_go_to_the_addressed_representatives_and_to_the_buyer(world: dict[str, Any]) -> None:
    rfq_id = _send(world, offerings=["fast-ib"]).json()["id"]
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["rep@fast.example"]
    assert f"#{rfq_id}" in mail.outbox[0].subject
    assert "Fast IB cluster" in mail.outbox[0].body and "Is the fabric non-blocking?" in mail.outbox[0].body
    assert _answer(world, rfq_id).status_code == 201
    assert len(mail.outbox) == 2
    assert mail.outbox[1].to == ["buyer@example.com"]
    assert "Fast Cloud" in mail.outbox[1].subject and "2.4" in mail.outbox[1].body


def test_the_audit_log_says_who_saw_and_answered_what_when(world: dict[str, Any], rfq_id: int) -> None:
    _client(world["fast_rep"]).get(f"/api/v1/rfqs/{rfq_id}/")
    _answer(world, rfq_id)
    _client(world["buyer"]).get(f"/api/v1/rfqs/{rfq_id}/")
    events = list(RfqEvent.objects.filter(rfq_id=rfq_id).order_by("at", "id"))
    seen = [(e.username, e.action, e.offering.slug if e.offering else None) for e in events]
    assert seen == [
        ("buyer", "created", None),
        ("buyer", "notified", None),
        ("fast-rep", "viewed", None),
        ("fast-rep", "answered", "fast-ib"),
        ("fast-rep", "notified", "fast-ib"),
        ("buyer", "viewed", None),
    ]
    assert all(e.at is not None for e in events)
    assert "rep@fast.example" in events[1].detail and "rep@slow.example" in events[1].detail
    assert SOURCE in events[3].detail
    assert events[4].detail == "mail to buyer@example.com"


def test_a_mail_server_that_is_down_never_loses_the_answer(
    world: dict[str, Any], rfq_id: int, settings: Any
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2  # nothing listens
    assert _answer(world, rfq_id).status_code == 201
    assert Answer.objects.count() == 1
    notified = RfqEvent.objects.filter(rfq_id=rfq_id, action="notified").last()
    assert notified is not None and "not reachable" in notified.detail
    assert notified.detail == "mail to nobody (the buyer is not reachable by e-mail)"


def test_removing_a_buyer_removes_their_requests_and_keeps_the_providers(
    world: dict[str, Any], rfq_id: int
) -> None:
    assert _answer(world, rfq_id).status_code == 201
    world["buyer"].delete()
    assert not Answer.objects.exists() and not RfqEvent.objects.exists()
    assert Offering.objects.filter(slug="fast-ib").exists()


@pytest.mark.parametrize(
    "facts",
    [
        {"nics_per_node": 10**12, "gbps_per_nic": 1e300},
        {"failure_rate_per_gpu_hour": 1e300},
        {"intra_node_gbytes_per_s": 1e-300},
        {"max_nodes": 10**30},
    ],
)
def test_values_the_planner_cannot_size_are_refused_or_stated_never_a_500(
    world: dict[str, Any], rfq_id: int, facts: dict[str, Any]
) -> None:
    response = _answer(world, rfq_id, facts=facts)
    if response.status_code == 400:
        # refused by the fact bounds (naming the fact and its range) or by the planner, never a 500
        message = response.json()["message"]
        named = f"facts.{next(iter(facts))}:"
        assert message.startswith((named, "facts: the planner cannot size this proposal")), message
        assert not Answer.objects.exists()
    else:
        assert response.status_code == 201
        row = _client(world["buyer"]).get(f"/api/v1/rfqs/{rfq_id}/").json()["comparison"]["results"][0]
        assert row["feasible"] is False and row["infeasible_reason"]


def test_a_request_for_quote_turned_into_a_quote_honours_the_currency(world: dict[str, Any]) -> None:
    rfq_id = _send(world).json()["id"]
    assert _answer(world, rfq_id).status_code == 201
    buyer = _client(world["buyer"])
    refused = buyer.post(f"/api/v1/rfqs/{rfq_id}/quote/?currency=GBP", {}, format="json")
    assert refused.status_code == 400 and refused.json()["message"].startswith("currency: ")
    made = buyer.post(f"/api/v1/rfqs/{rfq_id}/quote/?currency=CNY", {}, format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    assert body["currency"] == "CNY" and body["fx"]["currency"] == "CNY" and {"id", "number"} <= set(body)
    assert Quote.objects.get(pk=body["id"]).snapshot["fx"]["currency"] == "CNY"
