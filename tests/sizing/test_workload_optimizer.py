"""A workload's optimizer-state convention (Adam's or Muon's, with their gradient precisions): chosen on the
planner's form in the page's language with its bytes per parameter, stored (null: not stated), taken by the
API, refused when unknown on the form, the API, in the database and by the engine, sent to the engine's
search and to the pessimistic evaluation of the same layout, shown on the run page and the workloads list.
Not stated, every answer is what it was and states the default it took."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.test import Client

from sizing import services
from sizing.engine.api import evaluate
from sizing.engine.calibration import SELENE
from sizing.engine.constants import OPTIMIZER_BYTES
from sizing.engine.errors import InputError
from sizing.engine.search import search
from sizing.engine_words import OPTIMIZER_NAMES
from sizing.models import OPTIMIZERS, PlanRun, Workload
from tests.providers.factories import OfferingFactory, UserFactory
from tests.sizing.conftest import EN, ZH, plan_post, workload_api

pytestmark = pytest.mark.django_db

FACTS = {**SELENE, "nodes": 64}
NOT_GIVEN = "optimizer-state convention not given"


def _answer(**fields: Any) -> dict[str, Any]:
    workload = services.workload_create(owner=UserFactory(), preset="13b", **fields)
    return services.size_offering(workload=workload, facts=FACTS, objective="fastest")["sizing"]


def _messages(answer: dict[str, Any]) -> str:
    return " ".join(str(a.get("msgid", a)) if isinstance(a, dict) else str(a) for a in answer["assumptions"])


def test_the_stored_and_named_conventions_are_the_engines() -> None:
    assert OPTIMIZERS == tuple(OPTIMIZER_BYTES)
    assert set(OPTIMIZER_NAMES) == set(OPTIMIZER_BYTES)


def test_a_stated_convention_reaches_the_search_and_changes_the_memory_it_answers() -> None:
    default = _answer()
    muon = _answer(optimizer="muon-bf16-grads")
    assert NOT_GIVEN in _messages(default) and NOT_GIVEN not in _messages(muon)
    assert "Muon optimizer" in _messages(muon)
    # the answer's layout evaluated under each convention: the search's memory is Muon's, 8 bytes of state
    # per parameter where Adam keeps 12
    engine = services.workload_create(owner=UserFactory(), preset="13b").to_engine_dict()
    layout, gpus = muon["layout"], muon["gpus"]
    under = {
        c: evaluate(engine, FACTS, layout=layout, gpus=gpus, optimizer=c)
        for c in ("muon-bf16-grads", "megatron")
    }
    assert muon["memory_gib_per_gpu"] == under["muon-bf16-grads"]["memory_gib_per_gpu"]
    ratio = muon["memory_gib_per_gpu"]["optimizer"] / under["megatron"]["memory_gib_per_gpu"]["optimizer"]
    assert ratio == pytest.approx(8 / 12, rel=1e-2)


def test_the_pessimistic_evaluation_keeps_the_stated_convention() -> None:
    owner = UserFactory()
    workload = services.workload_create(owner=owner, preset="13b", optimizer="muon")
    facts = {k: v for k, v in FACTS.items() if k not in ("fabric", "gbps_per_nic")}  # unpublished: assumed
    sizing = services.size_offering(workload=workload, facts=facts, objective="fastest")["sizing"]
    worse = services.pessimistic_answer(workload=workload, facts=facts, sizing=sizing)
    assert worse is not None
    from sizing.engine.unpublished import Assumed, pessimistic_facts

    assumed = [Assumed(**a) for a in sizing["assumed_facts"] if a.get("fact") != "max_nodes"]
    worse_facts = pessimistic_facts(facts, assumed)
    assert worse_facts is not None
    engine = workload.to_engine_dict()
    layout, gpus = sizing["layout"], sizing["gpus"]
    as_muon = evaluate(engine, worse_facts, layout=layout, gpus=gpus, optimizer="muon")
    as_default = evaluate(engine, worse_facts, layout=layout, gpus=gpus)
    assert worse["train_days"] == as_muon["train_days"] != as_default["train_days"]


def test_the_engine_refuses_an_unknown_convention_by_name() -> None:
    with pytest.raises(InputError) as error:
        search({"params": 13e9, "train_tokens": 1e11}, FACTS, optimizer="lion")
    assert error.value.field == "optimizer" and "muon" in error.value.reason


def test_the_database_refuses_an_unknown_convention() -> None:
    workload = Workload(owner=UserFactory(), name="raw", layers=4, hidden=256, heads=4, optimizer="lion")
    with pytest.raises(IntegrityError), transaction.atomic():
        workload.save()


def test_the_form_offers_each_convention_in_words_with_its_bytes_in_both_languages(buyer: Client) -> None:
    english = buyer.get("/plan/", **EN).content.decode()
    for text in (
        "Optimizer",
        "by GPU: Adam, as its frameworks keep it",
        "Adam, fp32 gradients (Megatron-LM) · 18 bytes per parameter",
        "Adam, bf16 gradients (NVIDIA&#x27;s recipes) · 16 bytes per parameter",
        "Adam in bf16, no fp32 master copy · 8 bytes per parameter",
        "Muon, fp32 gradients · 14 bytes per parameter",
        "Muon, bf16 gradients · 12 bytes per parameter",
    ):
        assert text in english, text
    chinese = buyer.get("/plan/", **ZH).content.decode()
    assert "优化器" in chinese and "Muon，bf16 梯度 · 每个参数 12 字节" in chinese
    assert "bytes per parameter" not in chinese and "by GPU: Adam" not in chinese


def test_the_form_stores_the_choice_and_the_pages_show_it(buyer: Client) -> None:
    OfferingFactory(slug="optimizer-0")  # a catalog to size on (the run stays queued: no worker in this test)
    response = plan_post(buyer, EN, optimizer="muon")
    assert response.status_code == 302, response.context["form"].errors
    workload = Workload.objects.get()
    assert workload.optimizer == "muon"
    run = PlanRun.objects.get()
    shown = "Muon, fp32 gradients · 14 bytes per parameter"
    assert shown in buyer.get(f"/plan/{run.pk}/", **EN).content.decode()
    assert shown in buyer.get("/plan/workloads/", **EN).content.decode()
    assert "Muon，fp32 梯度 · 每个参数 14 字节" in buyer.get(f"/plan/{run.pk}/", **ZH).content.decode()


def test_the_form_left_as_it_is_states_none_and_the_page_names_none(buyer: Client) -> None:
    OfferingFactory(slug="optimizer-1")
    response = plan_post(buyer, EN)
    assert response.status_code == 302, response.context["form"].errors
    assert Workload.objects.get().optimizer is None
    page = buyer.get(f"/plan/{PlanRun.objects.get().pk}/", **EN).content.decode()
    assert "bytes per parameter" not in page


def test_the_form_refuses_an_unknown_convention_on_its_field(buyer: Client) -> None:
    response = plan_post(buyer, EN, optimizer="lion")
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["optimizer"]
    assert not Workload.objects.exists()


def test_the_api_takes_and_returns_the_convention() -> None:
    api = workload_api()
    response = api.post("/api/v1/workloads/", {"preset": "13b", "optimizer": "Muon"}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["optimizer"] == "muon"
    plain = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()
    assert plain["optimizer"] is None
    refused = api.post("/api/v1/workloads/", {"preset": "13b", "optimizer": "lion"}, format="json")
    assert refused.status_code == 400 and refused.json()["message"].startswith("optimizer: ")
    assert Workload.objects.count() == 2
