"""An engine refusal that names its codes (`gpus_per_node`, `tp*pp*cp`) reads in a buyer's words on an
English page (a result, the run, the compare page, the planner form), while the CLI and the API keep the
engine's English with its codes exactly."""

from __future__ import annotations

import gettext as gettext_module
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from rest_framework.test import APIClient

from hardware.messages import _
from sizing import services
from sizing.engine.errors import InputError
from sizing.engine_words import PAGE_REASONS, page_worded
from sizing.input_errors import input_error_page_reason, input_error_text, refusal_shown
from tests.providers.factories import UserFactory
from tests.sizing.test_input_error_messages import MO, engine_reasons
from tests.sizing.test_planner_answers import offering, run_all

# What a reason must not name on a page: a key with an underscore, a product of degrees, `pp >= 2`.
CODE = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]{2,3}\*|\b(?:tp|pp|dp|cp|ep|etp)\s*(?:=|>=)")
ENGINE_REASON = "must be a multiple of gpus_per_node (8), got 12"
PAGE_REASON = "must be a whole multiple of the GPUs per node (8), got 12"


def _names_a_code(msgid: str) -> bool:
    """Whether the words of `msgid` (its placeholders left out) name one of the engine's codes."""
    return bool(CODE.search(re.sub(r"%\(\w+\)s", "", msgid)))


def test_every_engine_reason_that_names_a_code_has_page_words_in_both_languages() -> None:
    catalog = gettext_module.GNUTranslations(MO.open("rb"))
    coded = {i for i in set().union(*engine_reasons().values()) if _names_a_code(i)}
    assert "%(gpus)s GPUs are not divisible by tp*pp*cp = %(used)s" in coded  # the scan sees them
    assert coded <= set(PAGE_REASONS), sorted(coded - set(PAGE_REASONS))
    for engine, page in PAGE_REASONS.items():
        names = set(re.findall(r"%\((\w+)\)s", engine))
        assert not _names_a_code(page), page
        assert set(re.findall(r"%\((\w+)\)s", page)) == names, page  # the same values
        chinese = catalog.gettext(page)
        assert chinese != page and set(re.findall(r"%\((\w+)\)s", chinese)) == names, page


def test_a_stored_reason_is_worded_for_the_page_inside_the_sentence_that_holds_it() -> None:
    reason = _("%(gpus)s GPUs are not divisible by tp*pp*cp = %(used)s", gpus=64, used=24)
    held = _("cannot size it at %(gpus)s GPUs: %(reason)s", gpus="64", reason=reason)
    assert str(held) == "cannot size it at 64 GPUs: 64 GPUs are not divisible by tp*pp*cp = 24"  # the API's
    worded = page_worded(held.as_json())
    assert worded["params"]["reason"]["msgid"] == "%(gpus)s GPUs are not divisible by TP × PP × CP = %(used)s"
    assert page_worded({"msgid": "no such reason", "params": {}})["msgid"] == "no such reason"
    assert page_worded(None) is None


def test_a_refusal_names_the_field_and_the_layout_degree_by_their_labels() -> None:
    err = InputError(
        "layout.dp", _("%(gpus)s GPUs are not divisible by tp*pp*cp = %(used)s", gpus=64, used=24)
    )
    assert str(err) == "layout.dp: 64 GPUs are not divisible by tp*pp*cp = 24"  # the CLI's, as before
    with translation.override("en"):
        assert input_error_text(err) == "Layout DP: 64 GPUs are not divisible by TP × PP × CP = 24"
    with translation.override("zh-hans"):
        assert "TP × PP × CP" in input_error_text(err) and "tp*pp*cp" not in input_error_text(err)


def test_the_planner_form_shows_the_engines_reason_in_the_pages_words() -> None:
    reason = _("must be a multiple of gpus_per_node (%(per_node)s), got %(got)s", per_node=8, got=12)
    refused = InputError("offering.nvlink_domain_gpus", reason)
    try:
        raise ValidationError({"heads": str(reason)}) from refused
    except ValidationError as exc:
        with translation.override("en"):
            assert refusal_shown(exc).message_dict == {"heads": [PAGE_REASON]}
            assert input_error_page_reason(refused) == PAGE_REASON
    missing = ValidationError({"layers": "needed"})
    missing.__cause__ = InputError("workload.layers", _("missing"))
    assert refusal_shown(missing) is missing  # the service's own words for a missing field stay
    plain = ValidationError({"gpus": "no"})
    assert refusal_shown(plain) is plain


@pytest.mark.django_db
def test_a_form_refused_by_the_engine_reads_on_the_english_page_and_the_api_keeps_its_words(
    client: Any,
) -> None:
    user: Any = UserFactory()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    form = {"name": "odd", "preset": "", "layers": 4, "hidden": 100, "heads": 7, "seq_len": 512}
    page = client.post("/plan/", {**form, "objective": "cheapest"}).content.decode()
    assert "7 heads do not divide hidden 100" in page
    api = APIClient()
    api.force_authenticate(user)
    body = api.post(
        "/api/v1/workloads/", {k: v for k, v in form.items() if k != "preset"}, format="json"
    ).json()
    assert "7 heads do not divide hidden 100" in str(body)


@pytest.fixture
def refused(django_capture_on_commit_callbacks: Any) -> Any:
    """A run over an offering whose scale-up domain is no whole number of its nodes, beside a sound one."""
    user: Any = UserFactory()
    offering("sound")
    offering("odd-domain", gpus_per_node=8, nvlink_domain_gpus=12)
    wl = services.workload_create(owner=user, preset="13b")
    return run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)


@pytest.mark.django_db
def test_a_results_reason_names_the_gpus_per_node_on_the_english_pages(client: Any, refused: Any) -> None:
    result = refused.results.get(offering__slug="odd-domain")
    assert not result.feasible and ENGINE_REASON in result.infeasible_reason  # stored English, the API's
    client.force_login(refused.owner)
    client.cookies["django_language"] = "en"
    for url in (f"/plan/{refused.pk}/odd-domain/", f"/plan/{refused.pk}/"):
        page = client.get(url).content.decode()
        assert "GPUs per node" in page and "gpus_per_node" not in page, url
    assert PAGE_REASON in client.get(f"/plan/{refused.pk}/odd-domain/").content.decode()
    api = APIClient()
    api.force_authenticate(refused.owner)
    body = api.get(f"/api/v1/runs/{refused.pk}/").json()
    assert ENGINE_REASON in str(body) and PAGE_REASON not in str(body)  # the API exactly as before


@pytest.mark.django_db
def test_the_compare_page_names_the_gpus_per_node_on_an_english_page(client: Any) -> None:
    offering("sound")
    offering("odd-domain", gpus_per_node=8, nvlink_domain_gpus=12)
    client.cookies["django_language"] = "en"
    page = client.get("/compare/?offerings=sound,odd-domain&workload=13b&gpus=64").content.decode()
    assert PAGE_REASON in page and "gpus_per_node" not in page
