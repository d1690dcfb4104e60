"""An engine refusal that names its codes (`gpus_per_node`, `tp*pp*cp`) reads in a buyer's words on an
English page (a result, the run, the compare page, the planner form), and so do the answer's assumption
notes and explanation sentences (`workload.dropout`, `moe_dispatcher`) on the result and quote pages, while
the CLI and the API keep the engine's English with its codes exactly."""

from __future__ import annotations

import ast
import gettext as gettext_module
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from rest_framework.test import APIClient

from hardware.messages import _
from quotes.display import quote_view
from sizing import services
from sizing.engine.constants import OPTIMIZER_BYTES
from sizing.engine.errors import InputError
from sizing.engine_words import PAGE_NOTES, PAGE_REASONS, page_worded, page_worded_list
from sizing.input_errors import input_error_page_reason, input_error_text, refusal_shown
from tests.providers.factories import GPUModelFactory, UserFactory
from tests.sizing.test_input_error_messages import ENGINE, MO, engine_reasons
from tests.sizing.test_planner_answers import offering, run_all

# What a reason or a note must not name on a page: a key with an underscore, a product of degrees,
# `pp >= 2`, an input's dotted key (`workload.dropout`), the layout's key `etp` on its own, an optimizer-state
# convention by its code: a hyphenated one (`megatron-bf16-grads`), any one quoted ('megatron', also as a page
# escapes the quote).
HYPHENATED = "|".join(re.escape(name) for name in OPTIMIZER_BYTES if "-" in name)
CONVENTIONS = "|".join(re.escape(name) for name in OPTIMIZER_BYTES)
CODE = re.compile(
    r"\b[a-z]+_[a-z_]+\b|\b[a-z]{2,3}\*|\b(?:tp|pp|dp|cp|ep|etp)\s*(?:=|>=)|\b(?:workload|layout|offering)\.[a-z]"
    r"|\betp\b|\b(?:" + HYPHENATED + r")\b|(?:'|&#x27;)(?:" + CONVENTIONS + r")(?:'|&#x27;)"
)
# In a message id: a value the sentence quotes as code ('%(convention)s').
QUOTED_VALUE = re.compile(r"'%\(\w+\)s'")
ENGINE_REASON = "must be a multiple of gpus_per_node (8), got 12"
PAGE_REASON = "must be a whole multiple of the GPUs per node (8), got 12"


def _names_a_code(msgid: str) -> bool:
    """Whether the words of `msgid` (its placeholders left out) name one of the engine's codes, or it quotes
    a value as code."""
    return bool(CODE.search(re.sub(r"%\(\w+\)s", "", msgid)) or QUOTED_VALUE.search(msgid))


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


def engine_messages() -> set[str]:
    """Every message id the engine writes (a `_()` with a literal first argument, in sizing/engine/*.py): its
    refusals, its assumption notes (module-level constants such as DROPOUT_NOTES too), its explanation."""
    found: set[str] = set()
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
    return found


def _placeholders(msgid: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)s", msgid))


def test_every_engine_note_that_names_a_code_has_page_words_in_both_languages() -> None:
    catalog = gettext_module.GNUTranslations(MO.open("rb"))
    coded = {i for i in engine_messages() if _names_a_code(i)} - set(PAGE_REASONS)
    assert any("workload.dropout" in i for i in coded) and any("moe_dispatcher" in i for i in coded)
    assert coded <= set(PAGE_NOTES), sorted(coded - set(PAGE_NOTES))
    assert set(PAGE_NOTES) <= engine_messages(), sorted(set(PAGE_NOTES) - engine_messages())  # none stale
    for engine, page in PAGE_NOTES.items():
        assert not _names_a_code(page), page
        # the same values; a value that is itself a list of keys (`%(keys)s`) is left out
        assert _placeholders(page) == _placeholders(engine) - {"keys"}, page
        chinese = catalog.gettext(page)
        assert chinese != page and _placeholders(chinese) == _placeholders(page), page
        assert not _names_a_code(chinese), chinese


def test_a_stored_note_is_worded_for_the_page_and_anything_else_stays() -> None:
    note = _(
        "MoE token dispatcher not given: the all-to-all dispatcher assumed on %(gpu)s (one copy of a token "
        "per routed expert); set moe_dispatcher: deepep for a deduplicating dispatcher",
        gpu="H100",
    )
    worded = page_worded_list([note.as_json(), None])
    assert worded[1] is None and "moe_dispatcher" not in worded[0]["msgid"]
    assert worded[0]["params"] == {"gpu": "H100"}
    assert page_worded_list(None) is None


@pytest.fixture
def gpt3_on_a100(django_capture_on_commit_callbacks: Any) -> Any:
    """GPT-3 175B (a GELU model that does not say whether it has dropout) on an A100 offering ("auto"
    attention is unfused there): its answer assumes dropout and unfused attention, naming the keys to set."""
    user: Any = UserFactory()
    a100 = GPUModelFactory(
        key="A100-SXM-80GB", name="NVIDIA A100 SXM4 80GB", bf16_tflops=312.0, nvlink_gbytes_per_s=300.0
    )
    offering("a100", gpu=a100, max_nodes=64)
    wl = services.workload_create(owner=user, preset="gpt3-175b")
    return run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)


@pytest.mark.django_db
def test_a_results_notes_name_no_code_on_the_english_and_chinese_pages_and_the_api_keeps_them(
    client: Any, gpt3_on_a100: Any
) -> None:
    run = gpt3_on_a100
    result = run.results.get(offering__slug="a100")
    notes = (result.sizing or {}).get("assumptions") or []
    assert any("set workload.dropout to false" in n for n in notes), notes  # the engine's English, stored
    assert any("set workload.attention to 'flash'" in n for n in notes), notes
    client.force_login(run.owner)
    url = f"/plan/{run.pk}/a100/"
    client.cookies["django_language"] = "en"
    english = client.get(url).content.decode()
    assert "ask the provider, or state that the model trains without dropout" in english
    assert "choose the Attention “fused (FlashAttention)”" in english
    assert "workload.dropout" not in english and "workload.attention" not in english
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(url).content.decode()
    assert "或说明模型训练时不使用 dropout" in chinese and "“融合（FlashAttention）”" in chinese
    assert "workload.dropout" not in chinese and "workload.attention" not in chinese
    api = APIClient()
    api.force_authenticate(run.owner)
    body = str(api.get(f"/api/v1/runs/{run.pk}/").json())
    assert "state that the model trains" not in body  # the run's API shows no page words
    result.refresh_from_db()  # the engine's English, as it wrote it, stays stored with its codes
    assert any("set workload.dropout to false" in n for n in result.sizing["assumptions"])


@pytest.mark.django_db
def test_a_quote_shows_the_answers_notes_and_explanation_without_codes(gpt3_on_a100: Any) -> None:
    sizing = gpt3_on_a100.results.get(offering__slug="a100").sizing
    coded = [m for m in sizing["assumption_messages"] + sizing["explanation_messages"] if m]
    assert any(_names_a_code(m["msgid"]) for m in coded)  # the answer names codes; the quote does not
    for language in ("en", "zh-hans"):
        with translation.override(language):
            view = quote_view({"sizing": sizing})
        shown = view["sizing_assumptions"] + view["explanation"]
        assert shown and not any("workload." in line or "_" in line for line in shown), shown


@pytest.mark.django_db
def test_a_moe_answers_notes_name_no_code_on_the_english_and_chinese_result_page(
    client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """DeepSeek-V3 on an H100 offering: the dispatcher, the expert-parallel overlap, the load imbalance and
    the expert tensor parallelism are assumed, each note naming the key to set (`moe_dispatcher`, `etp`)."""
    user: Any = UserFactory()
    offering("h100", max_nodes=64)
    wl = services.workload_create(owner=user, preset="deepseek-v3-671b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    stored = " ".join(run.results.get().sizing["assumptions"])
    assert "set moe_dispatcher: alltoall" in stored and "does not state etp" in stored  # the engine's English
    client.force_login(user)
    for language, words in (
        ("en", "ask the provider whether its training settings send one copy per routed expert instead"),
        ("zh-hans", "请向服务商确认其训练设置是否改为每个路由专家发送一份副本"),
    ):
        client.cookies["django_language"] = language
        page = client.get(f"/plan/{run.pk}/h100/").content.decode()
        text = re.sub(r"<[^>]*>", " ", page)  # what a buyer reads, not the markup's names
        assert words in text, language
        assert not CODE.search(text), (language, CODE.search(text))
