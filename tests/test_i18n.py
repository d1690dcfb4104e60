"""Pages in English and Simplified Chinese; prices in US dollars or yuan at a dated, sourced rate."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from checks.checklist import _value_words
from portal.i18n import shown
from providers import currency
from providers.models import Currency, ExchangeRate
from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

PO = Path(__file__).resolve().parents[1] / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def test_every_message_has_a_chinese_translation_and_the_catalog_compiles(tmp_path: Path) -> None:
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "gettext's msgfmt is installed by `make setup`"
    out = subprocess.run(
        [msgfmt, "--check", "--statistics", "-o", str(tmp_path / "django.mo"), str(PO)],
        capture_output=True,
        text=True,
        check=True,
    )
    stats = out.stderr
    assert re.match(r"\d+ translated messages?\.\s*$", stats), stats  # no fuzzy, no untranslated


def test_the_compiled_catalog_is_current() -> None:
    mo = PO.with_suffix(".mo")
    assert mo.exists() and mo.stat().st_mtime >= PO.stat().st_mtime, "run `make setup` to compile the catalog"


@pytest.mark.django_db
def test_pages_follow_accept_language_and_the_switcher(client: Client) -> None:
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'lang="en"' in english and ">Offerings</a>" in english
    chinese = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert 'lang="zh-hans"' in chinese and ">产品</a>" in chinese and ">规划训练任务</a>" in chinese
    # the switcher (POST) wins over the browser's language
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    assert ">产品</a>" in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.fixture
def yuan_rate(db: Any) -> ExchangeRate:
    ExchangeRate.objects.all().delete()
    return ExchangeRate.objects.create(
        currency=Currency.CNY,
        per_usd=Decimal("7.2000"),
        as_of=date(2026, 11, 30),
        source_name="Test central parity",
        source_url="https://example.org/rate",
    )


def test_an_offering_page_in_cny_shows_yuan_with_the_rate_and_its_date(
    client: Client, yuan_rate: Any
) -> None:
    plan = PlanFactory(price_usd_per_gpu_hour=Decimal("2.50"))
    url = reverse("providers:offering", args=[plan.offering.slug])
    page = client.get(url + "?currency=CNY").content.decode()
    assert "¥18.000" in page  # 2.50 x 7.2
    assert "7.2000" in page and "2026-11-30" in page and "Test central parity" in page
    assert client.cookies["currency"].value == "CNY"
    # the choice sticks for the browser; ?currency=USD goes back
    assert "¥18.000" in client.get(url).content.decode()
    back = client.get(url + "?currency=USD").content.decode()
    assert "$2.500" in back and "¥" not in back


def test_an_offering_page_in_chinese_shows_its_fact_groups_labels_and_plan_terms_in_chinese(
    client: Client, yuan_rate: Any
) -> None:
    plan = PlanFactory(price_usd_per_gpu_hour=Decimal("2.50"), term_months=12)
    url = reverse("providers:offering", args=[plan.offering.slug])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "<h2>容错</h2>" in page and "自动坏节点检测" in page and "12 个月" in page
    assert "Fault tolerance" not in page and "Automatic bad-node detection" not in page
    assert "12 months" not in page and ">Source" not in page
    # the section is cached per language: English is still English
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<h2>Fault tolerance</h2>" in english and "12 months" in english and "容错" not in english


def test_a_users_setting_chooses_the_currency_and_a_bad_code_says_so(client: Client, yuan_rate: Any) -> None:
    plan = PlanFactory(price_usd_per_gpu_hour=Decimal("1.00"))
    url = reverse("providers:offering", args=[plan.offering.slug])
    user = UserFactory(username="yuan-buyer")
    client.force_login(user)
    client.post(reverse("accounts:preferences"), {"currency": "CNY"})
    user.refresh_from_db()
    assert user.currency == "CNY"
    assert "¥7.200" in client.get(url).content.decode()
    page = client.get(url + "?currency=EUR").content.decode()
    assert "EUR is not offered (USD or CNY); prices are in US dollars." in page and "$1.000" in page
    assert client.post(reverse("accounts:preferences"), {"currency": "EUR"}).status_code == 200
    user.refresh_from_db()
    assert user.currency == "CNY"


@pytest.mark.django_db
def test_without_a_recorded_rate_prices_stay_in_dollars_and_say_why(client: Client) -> None:
    ExchangeRate.objects.all().delete()
    plan = PlanFactory(price_usd_per_gpu_hour=Decimal("2.00"))
    url = reverse("providers:offering", args=[plan.offering.slug])
    page = client.get(url + "?currency=CNY").content.decode()
    assert "No CNY exchange rate is recorded yet" in page and "$2.000" in page


def test_a_price_published_in_yuan_keeps_its_own_figure(client: Client, yuan_rate: Any) -> None:
    offering = OfferingFactory()
    plan = currency.plan_price_set(PlanFactory.build(offering=offering), Decimal("14.40"), Currency.CNY)
    plan.save()
    assert plan.price_usd_per_gpu_hour == Decimal("2.0000")
    assert "14.40 CNY/GPU-hour" in plan.note and "7.2" in plan.note and "2026-11-30" in plan.note
    url = reverse("providers:offering", args=[offering.slug])
    assert "¥14.400" in client.get(url + "?currency=CNY").content.decode()
    dollars = client.get(url + "?currency=USD").content.decode()
    assert "$2.000" in dollars and "converted from CNY" in dollars


@pytest.mark.django_db
def test_pricing_in_yuan_without_a_rate_is_refused_not_guessed() -> None:
    ExchangeRate.objects.all().delete()
    with pytest.raises(ValueError, match="no CNY exchange rate is recorded"):
        currency.plan_price_set(PlanFactory.build(offering=OfferingFactory()), Decimal("10"), Currency.CNY)


@pytest.mark.django_db
def test_a_fresh_install_has_a_sourced_yuan_rate() -> None:
    rate = currency.latest_rate(Currency.CNY)
    assert rate is not None and rate.source_url.startswith("https://") and rate.as_of.year >= 2024


@pytest.mark.django_db
def test_the_plan_page_in_chinese_has_its_labels_in_chinese(client: Client) -> None:
    client.force_login(UserFactory(username="zh-buyer"))
    page = client.get("/plan/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for label in (
        "规划训练任务",
        "层数",
        "隐藏层维度",
        "截止期限（天）",
        "GPU 数量",
        "全局批大小",
        "在产品目录上测算",
    ):
        assert label in page, label
    assert "介于 1 与 1,280  之间" in page or "介于 1 与 1,280 之间" in page  # the layer range, in words
    for english in ("Hidden size", "Deadline (days)", "Size it on the catalog", "Plan a training job"):
        assert english not in page, english
    # the same page in English keeps its English labels
    assert "Hidden size" in client.get("/plan/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.django_db
def test_a_quote_issued_in_chinese_gives_a_chinese_pdf() -> None:
    from django.utils import translation

    from quotes.pdf import render_quote_pdf
    from quotes.services import quote_create_for_offering
    from sizing.services import workload_create
    from tests.quotes.conftest import make_offering
    from tests.quotes.helpers import pdf_text

    buyer = UserFactory(username="zh-pdf-buyer")
    offering = make_offering()
    workload = workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    with translation.override("zh-hans"):
        quote = quote_create_for_offering(owner=buyer, offering_slug=offering.slug, workload_id=workload.pk)
    assert quote.language == "zh-hans"
    data, _charts = render_quote_pdf(quote)
    text = pdf_text(data)
    assert f"报价单 {quote.number}" in text or "报价单" in text
    assert "账单" in text and "截至" in text
    # the page footer too (a CSS content value with the page counters)
    assert "第 1 页，共" in text and "Page 1 of" not in text
    # rendering in Chinese leaves the caller's language alone
    assert translation.get_language() in ("en", "en-us")


def test_a_quote_issued_in_yuan_shows_yuan_with_the_frozen_rate_in_its_pdf(yuan_rate: Any) -> None:
    from django.utils import translation

    from quotes.display import quote_view
    from quotes.pdf import render_quote_pdf
    from quotes.services import quote_create_for_offering
    from sizing.services import workload_create
    from tests.quotes.conftest import make_offering
    from tests.quotes.helpers import pdf_text

    buyer = UserFactory(username="yuan-pdf-buyer", currency="CNY")
    offering = make_offering()
    workload = workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    with translation.override("zh-hans"):
        quote = quote_create_for_offering(owner=buyer, offering_slug=offering.slug, workload_id=workload.pk)
    assert quote.snapshot["fx"]["currency"] == "CNY" and Decimal(quote.snapshot["fx"]["per_usd"]) == Decimal(
        "7.2"
    )
    total_usd = Decimal(quote.snapshot["bill"]["total_usd"])
    yuan = f"¥{total_usd * Decimal('7.2'):,.2f}"
    view = quote_view(quote.snapshot)
    assert view["total"] == yuan
    # a later rate changes nothing: the quote keeps the rate it was issued with
    ExchangeRate.objects.create(
        currency=Currency.CNY,
        per_usd=Decimal("8"),
        as_of=date(2026, 12, 1),
        source_name="x",
        source_url="https://x",
    )
    text = pdf_text(render_quote_pdf(quote)[0])
    assert yuan in text and f"${total_usd:,.2f}" not in text
    assert "7.2000" in text and "2026-11-30" in text and "Test central parity" in text
    assert "账单以美元计算；汇率为报价单签发时记录的汇率。" in text.replace("\n", "")
    # the same buyer's quote in US dollars, when the page asked for them, stays in dollars
    dollars = quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk, currency="USD"
    )
    assert "fx" not in dollars.snapshot and quote_view(dollars.snapshot)["total"] == f"${total_usd:,.2f}"


def test_the_compare_cost_charts_follow_the_language_and_the_currency(client: Client, yuan_rate: Any) -> None:
    import json

    from tests.compare import helpers

    helpers.small_catalog()
    url = "/compare/?offerings=good-ib,cheap-eth&workload=13b&gpus=64"

    def figure(page: str, key: str) -> dict[str, Any]:
        body = re.search(rf'<script id="fig-{key}" type="application/json">(.*?)</script>', page, re.S)
        assert body, key
        return dict(json.loads(body.group(1)))

    english = client.get(url + "&currency=USD", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    dollars = figure(english, "cost")
    assert dollars["layout"]["xaxis"]["title"]["text"] == "full bill (USD)"
    assert dollars["layout"]["xaxis"]["tickprefix"] == "$"
    chinese = client.get(url + "&currency=CNY", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    yuan = figure(chinese, "cost")
    assert yuan["layout"]["xaxis"]["title"]["text"] == "完整账单 (CNY)"
    assert yuan["layout"]["xaxis"]["tickprefix"] == "¥"
    # the same bars, 7.2 times longer: converted as drawn, stored in dollars
    compute = [t for t in dollars["data"] if t.get("type") == "bar"][0]
    compute_yuan = [t for t in yuan["data"] if t.get("type") == "bar"][0]
    assert compute_yuan["x"] == pytest.approx([x * 7.2 for x in compute["x"]])
    assert compute_yuan["name"] == "计算" and "¥" in compute_yuan["hovertext"][0]
    per_token = figure(chinese, "cost-per-token")
    assert per_token["data"][0]["name"] == "CNY 每十亿 token"
    assert "7.2000" in chinese and "2026-11-30" in chinese  # the rate and its date beside the figures
    assert "每十亿训练 token 的成本" in chinese
    # the claim and evidence tables: captions, column heads and the cells built in Python
    assert "<caption>容错功能</caption>" in chinese and "检测（健康检查）" in chinese
    assert "<caption>可用 GPU 保证、独占性与 SLA</caption>" in chinese and "索赔期限" in chinese
    assert "节点内（宣称）" in chinese and "Fault-tolerance features" not in chinese
    assert "<caption>Fault-tolerance features</caption>" in english and "Detection (health checks)" in english


@pytest.mark.django_db
def test_chinese_providers_carry_their_native_name_with_its_source(client: Client) -> None:
    import yaml

    from providers.models import Provider

    demo = yaml.safe_load((PO.parents[3] / "providers" / "demo" / "catalog.yaml").read_text())
    native = {p["slug"]: p for p in demo["providers"] if p.get("native_name")}
    assert {slug: p["native_name"] for slug, p in native.items()} == {
        "alibaba": "阿里云",
        "tencent": "腾讯云",
        "huawei": "华为云",
        "volcengine": "火山引擎",
    }
    assert all(p["native_name_source"].startswith("https://") for p in native.values())
    plan = PlanFactory()
    Provider.objects.filter(pk=plan.offering.provider_id).update(
        name="Alibaba Cloud", native_name="阿里云", native_name_source="https://www.aliyun.com/"
    )
    url = reverse("providers:offering", args=[plan.offering.slug])
    assert "阿里云 · Alibaba Cloud" in client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Alibaba Cloud" in english and "阿里云" not in english
    # an added API field; `name` keeps the English name
    body = client.get(f"/api/v1/offerings/{plan.offering.slug}/").json()
    assert body["provider_name"] == "Alibaba Cloud" and body["provider_native_name"] == "阿里云"
    provider = client.get(f"/api/v1/providers/?slug={plan.offering.provider.slug}").json()
    rows = provider["results"] if isinstance(provider, dict) else provider
    assert rows[0]["name"] == "Alibaba Cloud" and rows[0]["native_name"] == "阿里云"
    assert rows[0]["native_name_source"] == "https://www.aliyun.com/"


@pytest.mark.django_db
def test_a_finding_built_in_python_is_shown_in_chinese_and_the_api_follows_accept_language(
    client: Client,
) -> None:
    from checks import services as checks_services

    offering = OfferingFactory(fabric="ethernet", usable_gpu_guarantee_pct=80)
    checks_services.findings_refresh(offering=offering)
    url = reverse("providers:offering", args=[offering.slug])
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "节点间网络是普通 TCP 以太网，不是 RDMA" in chinese
    assert "可用 GPU 保证仅 80%" in chinese  # a value inside the sentence
    assert "Inter-node fabric is plain TCP Ethernet" not in chinese
    # the evidence names each fact in words, never as a key with a list repr or "not published"
    assert "公布的事实" in chinese and "项发现。" in chinese
    assert "= not published" not in chinese and "['" not in chinese
    # advice whose every sentence is marked is shown translated, percent signs and all
    assert "争取至少 90-95% 并约定补偿或更换期限" in chinese
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert (
        "Inter-node fabric is plain TCP Ethernet, not RDMA" in english
        and "Usable-GPU guarantee only 80%" in english
    )
    # the API keeps its codes and keys; the human-readable title follows Accept-Language
    api = f"/api/v1/findings/?offering={offering.slug}"
    zh_rows = {f["code"]: f for f in client.get(api, HTTP_ACCEPT_LANGUAGE="zh-hans").json()}
    en_rows = {f["code"]: f for f in client.get(api, HTTP_ACCEPT_LANGUAGE="en").json()}
    assert zh_rows.keys() == en_rows.keys() and "fabric-not-rdma" in zh_rows
    assert zh_rows["fabric-not-rdma"]["title"].startswith("节点间网络是普通 TCP 以太网")
    assert en_rows["fabric-not-rdma"]["title"].startswith("Inter-node fabric is plain TCP Ethernet")
    assert zh_rows["fabric-not-rdma"]["severity"] == en_rows["fabric-not-rdma"]["severity"]
    assert zh_rows["usable-gpus-short"]["advice"].startswith("争取至少 90-95% ")
    assert en_rows["usable-gpus-short"]["advice"].startswith("Negotiate at least 90-95% with")


@pytest.mark.django_db
def test_a_sourced_edit_refused_in_chinese_names_the_missing_field_in_chinese(client: Client) -> None:
    from rest_framework.test import APIClient

    offering = OfferingFactory()
    rep = UserFactory(username="zh-rep", role="provider", provider=offering.provider)
    api = APIClient()
    api.force_authenticate(rep)
    response = api.patch(
        f"/api/v1/offerings/{offering.slug}/", {"max_nodes": 8}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 400
    fields = response.json()["extra"]["fields"]
    assert "请给出这些数值所依据文件的地址" in str(fields["source_url"]) and "as_of" in fields


def test_the_cached_overview_is_kept_per_language_and_currency(client: Client, yuan_rate: Any) -> None:
    PlanFactory(price_usd_per_gpu_hour=Decimal("2.00"))
    english = client.get("/?currency=USD", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "On-demand price per GPU-hour, by GPU" in english and "USD per GPU-hour, on demand" in english
    chinese = client.get("/?currency=CNY", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "按 GPU 型号的按需每 GPU 小时价格" in chinese and "按需每 GPU 小时 CNY" in chinese
    assert "\\u00a514.40" in chinese  # 2.00 x 7.2 in the hover text (the figure's JSON escapes the ¥)


def test_the_bill_line_labels_have_message_ids() -> None:
    from quotes.display import LINE_ITEM_MSGIDS
    from sizing.bill import LINE_ITEM_LABELS

    assert set(LINE_ITEM_MSGIDS) == set(LINE_ITEM_LABELS.values())


def test_the_plan_headline_is_written_in_the_page_language_and_currency() -> None:
    """The sentence above a plan result is built in Python: in Chinese with yuan on a zh/CNY page, in
    English with dollars otherwise, from the same result."""
    from types import SimpleNamespace

    from django.utils import translation

    from portal.money import Money, shown_in
    from sizing.summary import winner_sentence
    from tests.plan_results import plan_result

    result = plan_result()
    offering = result.offering
    with translation.override("en"):
        english = winner_sentence("70b", result)
    assert english.startswith("70b fits 16 nodes of 8 full-mesh (NVSwitch) GPUs on HGX H100")
    assert "about $1,000,000 ($900,000 to $1,100,000: some fees are not published)." in english
    yuan = Money(code="CNY", per_usd=Decimal("7.2"), rate_as_of="2026-11-30")
    with translation.override("zh-hans"), shown_in(yuan):
        chinese = winner_sentence("70b", result)
    assert "16 个节点" in chinese and "8 路张量并行" in chinese and "InfiniBand 网络" in chinese
    assert chinese.endswith("约 ¥7,200,000（¥6,480,000 至 ¥7,920,000：部分费用未公布）。")
    assert "$" not in chinese and "fits" not in chinese
    # a direct mesh is named by its GPU's link: Infinity Fabric on an AMD node
    amd = SimpleNamespace(**{**vars(offering), "name": "MI300X", "intra_node": "nvlink-mesh"})
    amd.gpu = SimpleNamespace(vendor="amd")
    with translation.override("en"):
        english = winner_sentence("70b", SimpleNamespace(**{**vars(result), "offering": amd}))
    assert english.startswith("70b fits 16 nodes of 8 full-mesh (Infinity Fabric) GPUs on MI300X")


def test_dollar_figures_inside_finding_sentences_follow_the_page_currency(
    client: Client, yuan_rate: Any
) -> None:
    """A finding's impact is written in US dollars when it is stored; a yuan page shows each figure in yuan
    (at the dated rate it names), a dollar page unchanged."""
    from django.template import Context, Template

    from providers.currency import display_for

    template = Template("{% load money %}{% dollars_shown text %}")
    text = "Each costs $356,328 of restart, and $12.50 per hour; 3 GPUs."
    yuan = template.render(Context({"text": text, "currency_display": display_for("CNY")}))
    assert yuan == "Each costs ¥2,565,562 of restart, and ¥90.00 per hour; 3 GPUs."
    dollars = template.render(Context({"text": text, "currency_display": display_for("USD")}))
    assert dollars == text
    escaped = template.render(Context({"text": "<b>$1</b>", "currency_display": display_for("CNY")}))
    assert escaped == "&lt;b&gt;¥7&lt;/b&gt;"


@pytest.mark.django_db
def test_rule_advice_impact_sentences_and_checklist_answers_are_shown_in_chinese(client: Client) -> None:
    """The fault-tolerance advice, every impact sentence and the checklist's answers are built in Python:
    in Chinese on a zh page, byte-for-byte the English ones on an English page and in the API."""
    from checks import services as checks_services

    offering = OfferingFactory(
        auto_bad_node_detection=False, auto_checkpoint_restart=False, fabric="ethernet"
    )
    checks_services.findings_refresh(offering=offering)
    finding = offering.findings.get(code="no-fault-tolerance")
    english_impact = finding.impact["text"]
    assert english_impact.startswith("Expected ") and "would be saved by automatic recovery" in english_impact
    url = reverse("providers:offering", args=[offering.slug])
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "请询问：故障的 GPU 或节点如何被检测到" in chinese  # the fault-tolerance advice
    assert "可通过约 15 分钟内的自动恢复省下" in chinese and "每 GPU 小时" in chinese  # its impact sentence
    assert "梯度 all-reduce 将决定步时" in chinese  # the fabric rule's impact sentence
    assert "Ask: how is a failed GPU" not in chinese and "would be saved by automatic" not in chinese
    # the impact numbers' labels
    assert re.search(r"[0-9.]+ 损失的 GPU 小时", chinese) and "GPU-hours lost" not in chinese
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Ask: how is a failed GPU or node detected" in english
    assert english_impact.split(" (")[0] in english and "请询问" not in english
    # the API keeps the English impact text whatever the language; the advice follows Accept-Language
    api = f"/api/v1/findings/?offering={offering.slug}"
    for language in ("en", "zh-hans"):
        rows = {f["code"]: f for f in client.get(api, HTTP_ACCEPT_LANGUAGE=language).json()}
        assert rows["no-fault-tolerance"]["impact"]["text"] == english_impact
    en_rows = {f["code"]: f for f in client.get(api, HTTP_ACCEPT_LANGUAGE="en").json()}
    assert en_rows["no-fault-tolerance"]["advice"].startswith("Ask: how is a failed GPU or node detected")
    # the checklist: an answer built from facts, in Chinese, and the same answer in English
    checklist_url = reverse("checks:checklist") + f"?offering={offering.slug}"
    chinese = client.get(checklist_url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "自动坏节点检测 否" in chinese and "Health checks " not in chinese
    english = client.get(checklist_url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "automatic bad-node detection no;" in english and "自动坏节点检测" not in english


@pytest.mark.django_db
def test_the_plan_result_explains_its_layout_and_assumptions_in_chinese(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    from django.utils.html import escape

    from sizing import services

    offering = OfferingFactory(slug="zh-explained")  # no published cap: room for spare nodes
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.00"))
    buyer = UserFactory(username="zh-explain-buyer")
    workload = services.workload_create(owner=buyer, preset="gpt3-175b")
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=buyer, workload=workload, objective="fastest")
    sizing = run.results.get().sizing
    # the English sentences are stored as they always were, their message ids beside them
    assert len(sizing["explanation_messages"]) == len(sizing["explanation"])
    assert all(m and m["msgid"] for m in sizing["explanation_messages"])
    spare = next(a for a in sizing["assumptions"] if re.match(r"\d+ spare nodes? \(", a))
    assert "(s)" not in " ".join(sizing["assumptions"] + sizing["explanation"])  # counts in words
    client.force_login(buyer)
    url = f"/plan/{run.pk}/{offering.slug}/"
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    from hardware.messages import Msg
    from sizing.engine_words import page_worded

    stored = zip(
        sizing["explanation"] + sizing["assumptions"],
        sizing["explanation_messages"] + sizing["assumption_messages"],
        strict=True,
    )
    for sentence, message in stored:  # in the page's words where the engine's name its codes
        assert escape(str(Msg.from_json(page_worded(message), sentence))) in english, sentence
    assert "workload.dropout" not in english and "overlap_grad_reduce" not in english
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "预测每 GPU 模型算力" in chinese and "Predicted" not in chinese
    assert "ZeRO-" in chinese and "keeps the full optimizer state" not in chinese
    assert "个备用节点" in chinese and escape(spare) not in chinese
    assert "未公布：假设为" in chinese  # the fault model's and the class norms' assumptions
    assert "failure rate not published" not in chinese
    # the "Assumed: not published" table: the class norm's basis and the value in Chinese
    basis = "产品目录 33 个产品中只有 3 个公布自动节点更换"
    assert basis in chinese and "only 3 of 33 catalog offerings publish automatic node replacement" in english
    assert "自动节点更换未公布：假设为 否" in chinese


def test_engine_sentences_print_their_english_text_in_the_cli_json() -> None:
    import json
    import pickle

    from hardware.messages import Msg
    from sizing.engine.api import evaluate
    from sizing.engine.calibration import SELENE
    from sizing.engine.search import search

    facts = {**SELENE, "name": "A100 IB", "nodes": 128}
    result = search("13b", facts, objective="fastest", top=1)
    plain = json.loads(json.dumps(result))
    assert plain["explanation"] == [str(s) for s in result["explanation"]]
    assert any(isinstance(s, Msg) for s in result["explanation"])
    tflops, mfu, goodput = (
        result["model_tflops_per_gpu"],
        100 * result["mfu"],
        100 * result["goodput"]["fraction"],
    )
    speed = (
        f"Predicted {tflops:.0f} model TFLOP/s per GPU (MFU {mfu:.1f}%), "
        f"{result['train_days']:.1f} days including failures (goodput {goodput:.1f}%)."
    )
    assert speed in plain["explanation"]
    # the run's memo pickles answers: a sentence comes back with its id, values and English text
    again = pickle.loads(pickle.dumps(result["explanation"]))
    assert again == result["explanation"] and [m.msgid for m in again] == [
        m.msgid for m in result["explanation"]
    ]
    answer = evaluate("13b", facts, {"tp": 2, "pp": 4, "dp": 2, "virtual_stages": 2})
    micro = answer["micro_batches_per_iteration"]
    bubble = f"with {micro} micro-batches per replica the bubble (p-1)/(v m) costs "
    assert any(bubble in s and s.endswith(", cut by 2 virtual stages.") for s in answer["explanation"])


@pytest.mark.django_db
def test_a_quote_explains_its_layout_in_its_language() -> None:
    from django.utils import translation

    from quotes.display import quote_view
    from quotes.services import quote_create_for_offering
    from sizing.services import workload_create
    from tests.quotes.conftest import make_offering

    buyer = UserFactory(username="zh-quote-explained")
    offering = make_offering()
    workload = workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    quote = quote_create_for_offering(owner=buyer, offering_slug=offering.slug, workload_id=workload.pk)
    sizing = quote.snapshot["sizing"]
    from hardware.messages import Msg
    from sizing.engine_words import page_worded

    # English as stored, in the page's words where the engine's name its codes (sizing.engine_words)
    assert quote_view(quote.snapshot)["explanation"] == [
        str(Msg.from_json(page_worded(m), s))
        for s, m in zip(sizing["explanation"], sizing["explanation_messages"], strict=True)
    ]
    with translation.override("zh-hans"):
        view = quote_view(quote.snapshot)
    assert any(line.startswith("预测每 GPU 模型算力") for line in view["explanation"])
    assert not any(line.startswith("Predicted") for line in view["explanation"])
    assert len(view["sizing_assumptions"]) == len(sizing["assumptions"])
    assert any("未公布" in line for line in view["sizing_assumptions"])


# --- The last English on Chinese pages: sentences built in Python, stored, shown in the page's language ---

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
# English sentences (or their fixed parts) this change translates: none may be left on a Chinese page.
ENGLISH_TRANSLATED = (
    "How many GPUs will we actually be able to use",
    "usually count as 'up' under uptime SLAs",
    "not published. What is it for this offering?",
    "typical for this class of offering",
    "the same layout on",
    "Ask the provider for these facts before you sign",
    "no automatic replacement: a support ticket",
    "hot spare swapped in",
    "bad node replaced automatically",
    "held in the cluster while the failed node is out",
    "usable-GPU guarantee not published: no spare nodes assumed",
    "storage included in the price not published",
    "no feasible layout among",
    "does not fit memory",
    "GiB needed per GPU",
    "needs more nodes than the offering has",
    "<th>tp_comm</th>",
    "<th>weights</th>",
    "<th>gathered_params</th>",
    "expected goodput",
    "expected failures; job MTBF",
    "no public parsed upload judges this claim",
    "effective usable GPUs",
    "exclusivity not published",
    "No automatic fault tolerance",
    "active InfiniBand ports below the claimed rate",
    "inter-node bandwidth (NICs x Gb/s)",
    "not published by the offering.",
    "Speed per NIC",
    "per billion tokens;",
)


def english_left(page: str) -> list[str]:
    return [sentence for sentence in ENGLISH_TRANSLATED if sentence in page]


def paragraph(page: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</(p|ul)>', page, re.S)
    assert found, element_id
    return found.group(1)


@pytest.fixture
def zh_run(yuan_rate: Any, django_capture_on_commit_callbacks: Any) -> Any:
    """A done run of Llama 3 70B over two offerings: one that publishes neither its NICs nor a usable-GPU
    guarantee nor the storage it includes (assumptions, a pessimistic case, bill assumptions), and one of a
    single node (no layout fits its memory)."""
    from sizing import services

    user = UserFactory(username="zh-run-buyer")
    unpublished = {
        "nics_per_node": None,
        "gbps_per_nic": None,
        "usable_gpu_guarantee_pct": None,
        "storage_price_usd_per_gb_month": Decimal("0.05"),
        "storage_included_gb": None,
    }
    for slug, kw in (("zh-silent", {"max_nodes": 16, **unpublished}), ("zh-small", {"max_nodes": 1})):
        PlanFactory(offering=OfferingFactory(slug=slug, **kw), price_usd_per_gpu_hour=Decimal("2.50"))
    workload = services.workload_create(owner=user, preset="llama3-70b", train_tokens=300e9)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=user, workload=workload)
    run.refresh_from_db()
    assert run.status == "done"
    return run


def test_the_run_page_in_yuan_says_the_rate_beside_its_figures(client: Client, zh_run: Any) -> None:
    client.force_login(zh_run.owner)
    page = client.get(f"/plan/{zh_run.pk}/?currency=CNY", **ZH).content.decode()
    assert "¥" in page and 'class="fx-note"' in page and "7.2000" in page and "2026-11-30" in page
    assert 'class="fx-note"' not in client.get(f"/plan/{zh_run.pk}/?currency=USD", **EN).content.decode()


def test_the_plan_result_in_chinese_translates_what_python_built_and_prices_it_in_yuan(
    client: Client, zh_run: Any
) -> None:
    client.force_login(zh_run.owner)
    url = f"/plan/{zh_run.pk}/zh-silent/"
    page = client.get(url + "?currency=CNY", **ZH).content.decode()
    # the pessimistic case: in Chinese, its figures in yuan
    pessimistic = paragraph(page, "pessimistic")
    assert "若悲观值成立" in pessimistic and "同样的布局在 64 块 GPU 上需要" in pessimistic
    assert "签约前请向供应商索取这些事实" in pessimistic
    # its facts listed as Chinese lists them, never with an ASCII comma
    facts = pessimistic[pessimistic.index("（") : pessimistic.index("）")]
    assert ", " not in facts and "、" in facts, facts
    # how close the estimate is, measured on published runs, in Chinese
    accuracy = paragraph(page, "accuracy")
    # Llama 3 70B's shape has a band of its own (its published runs'), stated in Chinese
    assert "估算的可信程度：在 " in accuracy and "个已公开的 Llama 2 70B / Llama 3 70B 训练运行上" in accuracy
    assert "个出版物或版本" in accuracy and "同样这些运行平均偏差" in accuracy
    assert "本次运行：约 " in accuracy and "天。" in accuracy and accuracy.endswith("。")
    assert "费用约 ¥" in pessimistic and "$" not in pessimistic
    # the restart story, the bill's assumptions, the memory and step tables' labels
    assert "无自动更换：需提交支持工单" in paragraph(page, "restart-story")
    bill = paragraph(page, "bill-assumptions")
    assert "未公布可用 GPU 保证：假设不需备用节点" in bill and "未公布价格中包含的存储：假设不包含" in bill
    assert "<th>权重</th>" in page and "<th>张量并行通信</th>" in page and "<th>流水线气泡</th>" in page
    # the bill, its unpublished fees and its plans in yuan, with the rate beside them
    assert 'class="fx-note"' in page
    bill_table = re.search(r'id="bill">(.*?)</table>', page, re.S)
    assert bill_table and '<th class="num">CNY</th>' in bill_table.group(1)
    assert "¥" in bill_table.group(1) and "$" not in bill_table.group(1)
    fees = re.search(r'id="unknown-fees">(.*?)</table>', page, re.S)
    assert fees and "部署通常免费" in fees.group(1) and "set-up is often free" not in fees.group(1)
    assert re.findall(r'<td class="num">([^<]*)</td>', fees.group(1)) and all(
        "$" not in figure for figure in re.findall(r'<td class="num">([^<]*)</td>', fees.group(1))
    )
    assert english_left(page) == []
    # the same page in English, in dollars, keeps every English sentence
    english = client.get(url + "?currency=USD", **EN).content.decode()
    assert "the same layout on" in paragraph(english, "pessimistic") and "$" in paragraph(
        english, "pessimistic"
    )
    assert "no automatic replacement: a support ticket" in english
    assert "published training runs of Llama 2 70B / Llama 3 70B" in paragraph(english, "accuracy")
    assert "usable-GPU guarantee not published: no spare nodes assumed" in english
    assert "<th>tensor-parallel communication</th>" in english and "<th>tp_comm</th>" not in english
    bill = re.search(r'id="bill">(.*?)</table>', english, re.S)
    assert bill and "$" in bill.group(1) and "¥" not in bill.group(1) and 'class="fx-note"' not in english


def test_why_an_offering_cannot_run_the_job_is_in_chinese_on_the_result_and_the_run_list(
    client: Client, zh_run: Any
) -> None:
    client.force_login(zh_run.owner)
    result = client.get(f"/plan/{zh_run.pk}/zh-small/", **ZH).content.decode()
    reason = paragraph(result, "infeasible-reason")
    assert "在评估的" in reason and "个布局中没有可行布局" in reason and "显存放不下（每块 GPU 需要" in reason
    assert english_left(result) == []
    # the headline speaks of this offering: another offering of the run can train the job
    assert zh_run.results.filter(feasible=True).exists()
    small = zh_run.results.get(offering__slug="zh-small").offering.name
    assert f"{small} 无法训练 " in result and "本次运行中没有任何产品能训练" not in result
    listing = client.get(f"/plan/{zh_run.pk}/", **ZH).content.decode()
    assert "个布局中没有可行布局" in listing and "no feasible layout among" not in listing
    # stored in English (the API's infeasible_reason is unchanged); the English page shows it as stored
    stored = zh_run.results.get(offering__slug="zh-small").infeasible_reason
    assert stored.startswith("no feasible layout among ") and "does not fit memory (" in stored
    english = client.get(f"/plan/{zh_run.pk}/zh-small/", **EN).content.decode()
    assert stored in english
    assert f"{small} cannot train " in english and "No offering in this run can train" not in english


def test_the_checklist_in_chinese_asks_its_questions_and_gives_its_reasons_in_chinese(
    client: Client, zh_run: Any
) -> None:
    page = client.get("/checks/checklist/?offering=zh-silent", **ZH).content.decode()
    assert "我们实际能用上多少块 GPU？" in page and "原因：" in page
    assert "在可用性 SLA 下，性能下降但仍可访问的合同 GPU 通常被算作“在线”" in page
    assert "预留合同常要求预付 25% 或更多" in page  # a percent sign inside a translated reason
    # the questions the sizing adds for each fact it had to assume
    assert "：未公布。该产品的实际数值是多少？" in page and "这是此类产品的典型值。依据：" in page
    assert ">未知</span>" in page or "? 未知" in page
    assert english_left(page) == []
    english = client.get("/checks/checklist/?offering=zh-silent", **EN).content.decode()
    assert "How many GPUs will we actually be able to use" in english and "Why:" in english
    assert "not published. What is it for this offering?" in english


def test_a_quote_in_chinese_shows_its_checklist_restart_story_bill_assumptions_and_impact_in_chinese(
    client: Client, zh_run: Any
) -> None:
    from django.utils import translation

    from quotes.pdf import render_quote_pdf
    from quotes.services import quote_create_for_offering
    from tests.quotes.helpers import pdf_text

    with translation.override("zh-hans"):
        quote = quote_create_for_offering(
            owner=zh_run.owner, offering_slug="zh-silent", workload_id=zh_run.workload_id
        )
    client.force_login(zh_run.owner)
    page = client.get(f"/quotes/{quote.pk}/", **ZH).content.decode()
    pdf = pdf_text(render_quote_pdf(quote)[0]).replace(" ", "").replace("\n", "")
    for text in (page.replace("\n", ""), pdf):
        assert "无自动更换：需提交支持工单" in text.replace(" ", "")
        assert "未公布可用GPU保证：假设不需备用节点" in text.replace(" ", "")
        assert "未公布。该产品的实际数值是多少？" in text.replace(" ", "")  # a stored checklist question
        assert "张量并行通信" in text
        assert "影响：" in text
        assert "警告" in text and "无法确定" not in text  # a finding's impact sentence and its severity word
        assert "估算的可信程度：在" in text.replace(" ", "")  # how close the time is
    assert english_left(page) == []
    assert "每网卡速率" in page and "节点间网络" in page  # the facts nobody published, by label and group
    for english in (
        "no automatic replacement",
        "usable-GPU guarantee not published",
        "tp comm",
        "What is it",
    ):
        assert english not in pdf.replace("\n", " ") and english.replace(" ", "") not in pdf
    # the API keeps the English texts and the same keys
    body = client.get(f"/api/v1/quotes/{quote.pk}/").json()
    assert "no automatic replacement" in body["sizing"]["goodput"]["restart"]
    assert "usable-GPU guarantee not published" in body["bill"]["assumptions"][0]
    assert "assumption_messages" not in body["bill"]
    questions = {q["key"]: q for q in body["open_questions"]["checklist"]}
    assert set(questions["assumed-nics_per_node"]) == {"key", "question", "why", "answer"}


def test_the_compare_charts_hover_text_is_in_chinese(client: Client, zh_run: Any) -> None:
    import json

    client.force_login(zh_run.owner)
    url = f"/compare/?offerings=zh-silent,zh-small&workload={zh_run.workload_id}"
    page = client.get(url, **ZH).content.decode()
    hovers, axes = [], ""
    for body in re.findall(r'<script id="fig-[\w-]+" type="application/json">(.*?)</script>', page, re.S):
        axes += json.dumps(json.loads(body).get("layout", {}), ensure_ascii=False)
        for trace in json.loads(body).get("data", []):
            texts = trace.get("hovertext") or []
            hovers += [texts] if isinstance(texts, str) else [t for t in texts if isinstance(t, str)]
            hovers.append(str(trace.get("name") or ""))
    shown = "\n".join(hovers)
    assert "预期有效产出" in shown and "次；任务 MTBF" in shown  # the goodput chart
    assert "可用 GPU 保证：" in shown and "实际可用 GPU：" in shown  # the usable-GPU chart
    assert "宣称 " in shown and "节点间（宣称）" in shown  # the interconnect chart
    assert "节点内每 GPU GB/s" in axes and "intra-node GB/s per GPU" not in axes  # its axis
    # every axis title of every chart: no run of English words (units such as GB/s and USD allowed)
    titles = re.findall(r'"title": \{"text": "([^"]*)"', axes)
    assert titles and not [t for t in titles if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}\s+[A-Za-z]{2,}", t)]
    # and what a screen reader says of each chart
    assert "图旁的表格给出相同的数字" in page and "has the same numbers" not in page
    assert "没有自动容错" in shown or "严重" in shown  # the findings chart: severity and pitfall names
    assert english_left(shown) == [], english_left(shown)
    english = client.get(url, **EN).content.decode()
    assert "expected goodput" in english and "effective usable GPUs" in english


UPLOADS = Path(__file__).resolve().parent / "benchmarks" / "fixtures" / "uploads"


def zh_upload(owner: Any, offering: Any, path: Path, nodes: int) -> Any:
    from django.test import TestCase

    from benchmarks import services as benchmark_services
    from benchmarks.services import IncomingFile

    with TestCase.captureOnCommitCallbacks(execute=True):
        [outcome] = benchmark_services.upload_create(
            owner=owner,
            offering=offering,
            files=[IncomingFile(path.name, path.read_bytes())],
            nodes=nodes,
            visibility="public",
        )
    outcome.upload.refresh_from_db()
    return outcome.upload


def test_an_upload_in_chinese_shows_what_was_measured_against_the_claim_in_chinese(
    client: Client, zh_run: Any, settings: Any, tmp_path: Path
) -> None:
    from providers.models import Offering

    settings.MEDIA_ROOT = str(tmp_path / "media")
    offering = Offering.objects.get(slug="zh-small")
    upload = zh_upload(zh_run.owner, offering, UPLOADS / "nccl-allreduce-2node-1gpu.txt", nodes=2)
    assert upload.status == "parsed" and upload.verdicts
    client.force_login(zh_run.owner)
    page = client.get(f"/benchmarks/{upload.pk}/", **ZH).content.decode()
    assert "节点间带宽（网卡数 × Gb/s）" in page and "× 可达比例" in page and "个节点上" in page
    assert english_left(page) == []
    english = client.get(f"/benchmarks/{upload.pk}/", **EN).content.decode()
    assert "inter-node bandwidth (NICs x Gb/s)" in english and "achievable" in english
    # stored in English beside their message ids; the API shows the verdicts as before, without the ids
    assert (
        upload.verdicts[0]["claim"] == "inter-node bandwidth (NICs x Gb/s)"
        and "messages" in upload.verdicts[0]
    )
    body = client.get(f"/api/v1/uploads/{upload.pk}/").json()
    assert body["verdicts"][0]["claim"] == "inter-node bandwidth (NICs x Gb/s)"
    assert all("messages" not in verdict for verdict in body["verdicts"])


def test_an_upload_cited_by_a_finding_is_quoted_in_chinese_on_the_offering_page(
    client: Client, zh_run: Any, settings: Any, tmp_path: Path
) -> None:
    from checks import services as checks_services
    from providers.models import Offering

    settings.MEDIA_ROOT = str(tmp_path / "media")
    offering = Offering.objects.get(slug="zh-small")
    zh_upload(zh_run.owner, offering, UPLOADS.parent / "nvidia-smi-lost-gpu.txt", nodes=1)
    checks_services.findings_refresh(offering=offering)
    page = client.get(reverse("providers:offering", args=["zh-small"]), **ZH).content.decode()
    assert "nvidia-smi 无法访问该 GPU" in page and "nvidia-smi cannot reach the GPU" not in page
    assert (
        "nvidia-smi cannot reach the GPU"
        in client.get(reverse("providers:offering", args=["zh-small"]), **EN).content.decode()
    )


def test_no_translated_english_sentence_is_left_on_the_chinese_pages(
    client: Client, zh_run: Any, settings: Any, tmp_path: Path
) -> None:
    """The plan result, the run, the checklist, the compare page with a workload and an upload's page, in
    Chinese: none shows an English sentence this catalog translates (they do in English)."""
    from providers.models import Offering

    settings.MEDIA_ROOT = str(tmp_path / "media")
    upload = zh_upload(
        zh_run.owner, Offering.objects.get(slug="zh-silent"), UPLOADS / "nccl-allreduce-1node.txt", nodes=1
    )
    client.force_login(zh_run.owner)
    pages = (
        f"/plan/{zh_run.pk}/zh-silent/",
        f"/plan/{zh_run.pk}/zh-small/",
        f"/plan/{zh_run.pk}/",
        "/checks/checklist/?offering=zh-silent",
        f"/compare/?offerings=zh-silent,zh-small&workload={zh_run.workload_id}",
        f"/benchmarks/{upload.pk}/",
    )
    left = {url: english_left(client.get(url, **ZH).content.decode()) for url in pages}
    assert all(not found for found in left.values()), left
    shown_in_english = "\n".join(client.get(url, **EN).content.decode() for url in pages)
    assert len(english_left(shown_in_english)) >= 10  # the list names sentences these pages really show


@pytest.mark.django_db
def test_a_facts_unit_is_a_word_of_the_page_language_not_a_column_header(client: Client) -> None:
    """ "GPUs" as a column header is "GPU 数" (number of GPUs); after a value it is a unit ("块 GPU")."""
    offering = OfferingFactory(nvlink_domain_gpus=72, lead_time_weeks=6)
    url = reverse("providers:offering", args=[offering.slug])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<span class="unit">块 GPU</span>' in page and '<span class="unit">周</span>' in page
    assert '<span class="unit">GPUs</span>' not in page and "GPU 数</span>" not in page
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<span class="unit">GPUs</span>' in english and '<span class="unit">weeks</span>' in english


def gettext_in(language: str, text: str) -> str:
    with translation.override(language):
        return translation.gettext(text)


@pytest.mark.django_db
def test_the_catalog_list_shows_codes_as_names_and_plain_words_translated(client: Client) -> None:
    OfferingFactory(fabric="ethernet", schedulers="kubernetes,proprietary", intra_node="pcie")
    OfferingFactory(fabric="roce", intra_node="nvswitch")
    url = reverse("providers:browse")
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    ethernet = gettext_in("zh-hans", "TCP Ethernet (no RDMA)")
    assert ethernet != "TCP Ethernet (no RDMA)"
    assert "<td>Kubernetes、专有</td>" in zh and f'<span class="fabric ethernet">{ethernet}</span>' in zh
    assert '<span class="fabric roce">RoCE</span>' in zh
    for name in ("full-mesh (NVSwitch)", "PCIe-only"):
        assert f"<td>{gettext_in('zh-hans', name)}</td>" in zh and gettext_in("zh-hans", name) != name
    # the fabric filter offers the same names
    assert f">{ethernet}</option>" in zh and ">RoCE</option>" in zh
    en = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<td>Kubernetes, proprietary</td>" in en
    assert '<span class="fabric ethernet">TCP Ethernet (no RDMA)</span>' in en
    assert "<td>full-mesh (NVSwitch)</td>" in en and "<td>PCIe-only</td>" in en
    assert ">nvswitch<" not in en and ">roce<" not in en
    # the offering's own page names them too
    offering = OfferingFactory(fabric="infiniband", intra_node="nvlink-mesh")
    url = reverse("providers:offering", args=[offering.slug])
    for language in ("en", "zh-hans"):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        cells = {
            name: re.search(rf'id="fact-{name}">.*?<td>(.*?)</td>', page, re.S)
            for name in ("fabric", "intra_node")
        }
        assert cells["fabric"] and cells["fabric"].group(1).strip() == "InfiniBand"
        mesh = gettext_in(language, "full-mesh (NVLink)")
        assert cells["intra_node"] and cells["intra_node"].group(1).strip() == mesh
    # a direct mesh on an AMD node is Infinity Fabric, not NVLink: on its page, in the list and in the
    # planner's headline
    from tests.providers.factories import GPUModelFactory

    mi300x = GPUModelFactory(key="MI300X-192GB", name="AMD Instinct MI300X", vendor="amd", hbm_gb=192.0)
    amd = OfferingFactory(gpu=mi300x, fabric="roce", intra_node="nvlink-mesh")
    for language in ("en", "zh-hans"):
        page = client.get(reverse("providers:offering", args=[amd.slug]), HTTP_ACCEPT_LANGUAGE=language)
        cell = re.search(r'id="fact-intra_node">.*?<td>(.*?)</td>', page.content.decode(), re.S)
        mesh = gettext_in(language, "full-mesh (Infinity Fabric)")
        assert mesh != "full-mesh (NVLink)" and cell and cell.group(1).strip() == mesh
        listed = client.get(reverse("providers:browse"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert f"<td>{mesh}</td>" in listed


def test_a_unit_inside_a_sentence_is_the_unit_word_not_the_column_header() -> None:
    """An assumed fact's value in a checklist question ("8 GPUs") reads "8 块 GPU" in Chinese, as on the pages
    (it read "8 GPU 数", the column header), and stays "8 GPUs" in English."""
    words = _value_words("nvlink_domain_gpus", 8, False)
    assert str(words) == "8 GPUs"
    with translation.override("zh-hans"):
        assert shown(words) == "8 块 GPU"
        assert shown(_value_words("lead_time_weeks", 6, False)) == "6 周"
    with translation.override("en"):
        assert shown(words) == "8 GPUs"


def test_a_billing_plans_kind_is_its_label_in_the_page_language(client: Client, zh_run: Any) -> None:
    """The plan result's billing-plan table showed the kind code ("on-demand") on Chinese pages."""
    client.force_login(zh_run.owner)
    url = f"/plan/{zh_run.pk}/zh-silent/"
    zh = client.get(url, **ZH).content.decode()
    assert "<td>按需</td>" in zh and "<td>on-demand</td>" not in zh
    assert "<td>On-demand</td>" in client.get(url, **EN).content.decode()


def test_a_bill_lines_billing_step_names_the_granularity_in_words() -> None:
    """The compute line's note said "billed hour" (the code) and "按 hour 计费" in Chinese."""
    from sizing.bill import billed_hours

    _hours, note = billed_hours({"granularity": "hour"}, Decimal("10.5"))
    assert str(note) == "billed per hour (1 h steps)"
    with translation.override("zh-hans"):
        assert shown(note) == "按小时计费（以 1 小时为单位）"
        assert shown(billed_hours({"granularity": "second"}, Decimal("3"))[1]) == "按秒计费"


@pytest.mark.django_db
def test_enum_facts_and_source_kinds_are_shown_by_name_never_by_code(client: Client) -> None:
    """The offering page names every enum and list code (topology, schedulers, stack, exclusivity, payment
    terms) and each source's kind, in the page's language; the browse table's scheduler column too."""
    from checks import services as checks_services
    from providers.models import Provenance, Source

    offering = OfferingFactory(
        topology="rail-optimized",
        schedulers="slurm,kubernetes",
        accelerator_stack="cuda",
        exclusivity="dedicated",
        payment_terms="net-30",
    )
    source = Source.objects.create(
        provider=offering.provider,
        key="s1",
        title="Vendor repo",
        url="https://example.com/",
        kind="third_party_code",
    )
    Provenance.objects.create(offering=offering, group="software").sources.add(source)
    checks_services.findings_refresh(offering=offering)
    url = reverse("providers:offering", args=[offering.slug])
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for name in (
        "Slurm, Kubernetes",
        "CUDA",
        "Net 30 days",
        "third-party code",
        "rail-optimized",
        "dedicated",
    ):
        assert name in english, name
    for code in ("slurm, kubernetes", ">cuda<", "net-30", "third_party_code"):
        assert code not in english, code
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for name in ("third-party code", "rail-optimized", "dedicated", "Net 30 days"):
        assert gettext_in("zh-hans", name) != name and gettext_in("zh-hans", name) in chinese, name
        assert f">{name}<" not in chinese and f"· {name}<" not in chinese, name
    browse = client.get(reverse("providers:browse"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<td>Slurm, Kubernetes</td>" in browse


def test_every_range_error_is_written_in_chinese_whatever_its_unit() -> None:
    """A bound whose unit is a symbol ($, GB/s, %, $/GB-month, :1) is put in words like one whose unit is a
    word: "介于 0 与 10 $/GB 之间", never "between 0 and 10 $/GB" inside a Chinese sentence."""
    from django.utils import translation

    from portal.i18n import translated_bound_error
    from providers.facts import FACTS, PLAN_BOUNDS

    bounds = [f.bound for f in FACTS if f.bound is not None] + list(PLAN_BOUNDS.values())
    english = re.compile(r"\b(between|greater than|at most|at least|and)\b")
    with translation.override("zh-hans"):
        left = {
            b.label: text
            for b in bounds
            if (text := translated_bound_error(b, -5.0)) is not None and english.search(text)
        }
    assert not left, left
    assert {b.unit for b in bounds} >= {"$", "GB/s", "%", "$/GB-month", ":1"}
    # and a value too large for a float (1e400 reaches a validator as inf): in Chinese too (review)
    with translation.override("zh-hans"):
        infinite = translated_bound_error(PLAN_BOUNDS["price_usd_per_gpu_hour"], float("inf"))
    assert infinite is not None and "有限数值" in infinite and "must be" not in infinite, infinite


@pytest.mark.django_db
def test_a_checklist_answer_puts_a_unit_that_is_a_word_in_the_page_language(client: Client) -> None:
    """ "索赔期限 14 天", never "14 days" inside a Chinese answer; the English page keeps "14 days"."""
    offering = OfferingFactory(uptime_sla_pct=99.5, sla_claim_window_days=14)
    url = f"/checks/checklist/?offering={offering.slug}"
    page = client.get(url, **ZH).content.decode()
    assert "14 天" in page and "14 days" not in page
    assert "14 days" in client.get(url, **EN).content.decode()
