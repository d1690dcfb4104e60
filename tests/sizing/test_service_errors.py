"""The planner service's refusals (GPU count, offerings, objective, workload): the API keeps its English
exactly; the planner page shows each in the page's language, in a buyer's words (an offering by its name,
the form's checkbox by its label, never a parameter's code)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext
from rest_framework.test import APIClient

from sizing import services
from sizing.engine_words import SERVICE_PAGE_REASONS
from sizing.input_errors import refusal_shown
from sizing.models import Workload
from tests.providers.factories import OfferingFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def sample() -> Any:
    return OfferingFactory(
        slug="teach-ib", name="Teaching cluster", fictional=True, provider=ProviderFactory(name="Acme GPU")
    )


def _refusal(**kwargs: Any) -> ValidationError:
    user = UserFactory()
    workload = kwargs.pop("workload", None) or services.workload_create(owner=user, preset="13b")
    with pytest.raises(ValidationError) as caught:
        services.plan_run_create(owner=kwargs.pop("owner", user), workload=workload, **kwargs)
    return caught.value


@pytest.mark.parametrize(
    ("kwargs", "field", "english", "chinese"),
    [
        (
            {"gpus": 0},
            "gpus",
            "must be a whole number from 1 to {most}, got “0”",
            "必须是 1 到 {most} 之间的整数",
        ),
        (
            {"objective": "slowest"},
            "objective",
            "must be cheapest or fastest, got “slowest”",
            "“预算内最快”，实际为“slowest”",
        ),
        ({"offering_slugs": ["nope"]}, "offerings", "unknown offering(s): nope", "未知产品：nope"),
        ({"owner": "other"}, "workload", "no such workload", "没有这个工作负载"),
    ],
)
def test_each_refusal_keeps_its_english_and_is_shown_in_chinese(
    kwargs: dict[str, Any], field: str, english: str, chinese: str
) -> None:
    if kwargs.get("owner") == "other":
        kwargs["owner"] = UserFactory()
    most = f"{services.MAX_RUN_GPUS:,}"
    exc = _refusal(**kwargs)
    assert exc.message_dict == {field: [english.format(most=most)]}  # the API's text, as before
    with translation.override("zh-hans"):
        shown = refusal_shown(exc).message_dict[field][0]
    assert chinese.format(most=most) in shown, shown


def test_the_catalog_without_offerings_is_said_in_chinese() -> None:
    exc = _refusal()
    assert exc.message_dict == {"offerings": ["the catalog has no offering to size"]}
    with translation.override("zh-hans"):
        assert refusal_shown(exc).message_dict["offerings"] == ["目录中没有可测算的产品"]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            "sample offerings (Acme GPU: Teaching cluster) are sized only when “Include the fictional sample",
        ),
        ("zh-hans", "虚构示例产品（Acme GPU：Teaching cluster）仅在勾选“包含虚构示例产品”时测算"),
    ],
)
def test_the_planner_page_names_a_fictional_sample_and_the_checkbox_not_their_codes(
    client: Client, sample: Any, language: str, words: str
) -> None:
    client.force_login(UserFactory())
    client.cookies["django_language"] = language
    page = client.post("/plan/", {"preset": "13b", "objective": "cheapest", "offerings": [sample.slug]})
    assert page.status_code == 200
    error = page.context["form"].errors["offerings"][0]
    assert words in error, error
    assert "include_samples" not in error and "teach-ib" not in error
    assert not Workload.objects.filter(runs__isnull=False).exists()


@pytest.mark.parametrize(
    ("language", "names"),
    [
        ("en", "(Zeta Cloud: Another sample, Acme GPU: Teaching cluster)"),  # by slug, as the API's
        ("zh-hans", "（阿里云 · Zeta Cloud：Another sample、Acme GPU：Teaching cluster）"),
    ],
)
def test_the_planner_page_lists_the_samples_by_their_shown_names_in_the_pages_words(
    client: Client, sample: Any, language: str, names: str
) -> None:
    other = OfferingFactory(
        slug="teach-eth",
        name="Another sample",
        fictional=True,
        provider=ProviderFactory(name="Zeta Cloud", native_name="阿里云"),
    )
    client.force_login(UserFactory())
    client.cookies["django_language"] = language
    asked = {"preset": "13b", "objective": "cheapest", "offerings": [sample.slug, other.slug]}
    error = client.post("/plan/", asked).context["form"].errors["offerings"][0]
    assert names in error, error


def test_the_planner_forms_offerings_are_named_with_the_pages_colon_and_a_translated_sample_mark(
    client: Client, sample: Any
) -> None:
    client.force_login(UserFactory())
    chinese = client.get("/plan/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert ">Acme GPU：Teaching cluster（虚构示例）</option>" in chinese, chinese
    assert "(fictional sample)" not in chinese and "Acme GPU: " not in chinese
    english = client.get("/plan/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert ">Acme GPU: Teaching cluster (fictional sample)</option>" in english


def test_the_api_keeps_the_english_whatever_the_language(sample: Any) -> None:
    user = UserFactory()
    workload = services.workload_create(owner=user, preset="13b")
    api = APIClient()
    api.force_authenticate(user)
    body = api.post(
        "/api/v1/runs/",
        {"workload": workload.pk, "offerings": [sample.slug]},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).json()
    assert body["extra"]["fields"]["offerings"] == [
        "teach-ib: fictional sample(s); set include_samples to size them"
    ]


def test_every_service_page_wording_names_no_code_and_has_chinese() -> None:
    for api, page in SERVICE_PAGE_REASONS.items():
        assert "include_samples" in api or "cheapest or fastest" in api
        assert "include_samples" not in page and "cheapest or" not in page, page
        with translation.override("zh-hans"):
            assert gettext(page) != page, page
