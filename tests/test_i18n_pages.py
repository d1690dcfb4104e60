"""Issue 19, the sweep: every page of the portal rendered in Simplified Chinese shows no English UI text.

No phrase list: each page is drawn in zh-hans (logged in as the role that sees it, with a finished plan run,
a quote, a request for quote with an answer, uploads of several kinds, an acceptance report, forms with errors
and every compare mode), its tags, scripts and styles are stripped, the catalog's own data (names, notes,
sources as stored, collected from the database) is removed, and any run of three or more English words left
is reported.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.db import models
from django.test import Client, TestCase

from tests.providers.factories import UserFactory
from tests.test_i18n import EN, ZH, yuan_rate, zh_run, zh_upload  # noqa: F401  (fixtures)

FIXTURES = Path(__file__).resolve().parent / "benchmarks" / "fixtures"
# Apps whose stored text is data typed by people or copied from sources (names, notes, questions, answers).
DATA_APPS = ("providers", "rfq")
DATA_FIELDS = {
    "sizing.Workload": ("name",),
    "benchmarks.Upload": ("original_filename", "notes"),
    "accounts.User": ("username",),
}
ENGLISH_RUN = re.compile(r"\b[A-Za-z][A-Za-z]+(?:[ \t]+(?:[A-Za-z][A-Za-z]+|[\d.,]+))+\b")
# English on purpose in every language: product names inside a translated sentence.
ALLOWED: tuple[str, ...] = (
    "Google Cloud Storage",
    "AWS Enterprise Support",
    "AWS FSx for Lustre",
    "gpt-oss",  # a model's published name (the plan form's example of sliding-window attention)
    "Transformer Engine",  # NVIDIA's library, named in the cross-entropy loss's assumption
    # what the tools print, quoted in a parser warning so the reader finds it in the log
    "Unable to determine the device handle",
    "No devices were found",
    "Out of bounds",
    "Avg bus bandwidth",
)
# Not translated yet (named in the branch report, to be done next).
NOT_YET: tuple[str, ...] = ()


# More uploads whose pages show the parser's warnings and summary: a failed nccl-tests run, a DeepSpeed
# log with skipped steps, perftest and dcgmi (booleans), inactive NVLinks.
SWEEP_UPLOADS = (
    "nccl-inplace-only-wrong.txt",
    "nccl-2019-error-column-srun.txt",
    "deepspeed-timer-only.txt",
    "perftest-write-lat.txt",
    "dcgmi-diag-dcgm3-fail-wrapped.txt",
    "nvlink-some-inactive.txt",
)


# The second, finer pass (single English words) on every page of the sweep: what may stay English there.
# Terms the tools print, quoted as the reader finds them in the log, collective names, compound units...
TOOL_TERMS: tuple[str, ...] = (
    "out-of-place",
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "non-blocking",  # a provider's own word, quoted
    "ml-engineering",  # the title of a public guide, cited
    "$/GB-month",
    "GB-month",
    "#wrong",
    "World size",
    "world size",
    "Link type",
    "BW average",
    "Latency Test",
    "loss scale",
    "Targeted Stress",  # a dcgmi test's name
    # dcgmi diag's section names, as its table prints them (a report's `sections`, `missing_sections`)
    "Deployment",
    "Integration",
    "Hardware",
    "Stress",
)
# ...and single tokens: names of tools, products and schedulers, units, abbreviations, port states, file
# names in a bundle (results/, *.log, *.yaml).
ALLOWED_WORDS = frozenset(
    """API ClusterScout UTC ID GPU GB Gb KB MB MiB TFLOP TFLOPS MFU NaN nan NCCL NVLink NVLSTree Ring tree
    InfiniBand RoCE iWARP IB RC QP MTU GID PCIe CUDA MIG DCGM Xid busbw algbw rank Rank samples tokens timer
    usec Active Down LinkUp Slurm Kubernetes kubernetes DaemonSet MPIJob PyTorchJob mpijob README sbatch sh
    tar gz zip yaml pack log results stability bundle nccl rccl tests nvidia smi nvlink dcgmi diag ibstat
    perftest megatron deepspeed DeepSpeed LM torchtitan PyTorch FSDP Narayanan
    port RDMA TCP TCPX EFA HCA GPUDirect NVSwitch xGMI ConnectX NDR RCCL ROCm HBM GiB TiB TB PB EB min SSD
    efa roce tcpx slurm CANN
    DGX HGX SuperPOD Selene Hopper Blackwell AWS Azure Google Cloud Oracle BM Mega Ultra High CoreWeave Nebius
    Meta SemiAnalysis ClusterProof Bekman Young Daly
    Llama LLaMA GPT BLOOM OPT DeepSeek Mistral Qwen MoE Megatron Core NeMo FlashAttention SwiGLU GeLU ZeRO
    Kimi Adam Muon DeepEP MLP
    dropout RoPE YaRN logit
    TP PP DP CP EP ETP dp KV GQA FFN SLA MTBF PDF CS token Token leaf spine ring top""".split()
)
# The pages use these as Chinese engineers write them: model, vendor and product names (DGX, A3
# Mega/Ultra/High, Megatron-Core, the Adam and Muon optimizers, the DeepEP dispatcher), parallelism and
# hardware abbreviations, units, fabric/scheduler/stack codes as the catalog filter lists them, quote numbers
# (CS-...), loanwords (token, leaf, spine, ring, top, dropout, logit), the names of the rotary embeddings'
# methods (RoPE, YaRN).
URLISH = re.compile(
    r"`[^`]*`"  # a command to run, quoted
    r"|'[^'\s]+'"  # a code or a value as typed, quoted
    r"|“[^”\s]+”"  # a value as typed, quoted as the pages quote a buyer's input
    r"|\S*(?:https?://|\.com|\.org|\.net)\S*"  # an address
    r"|/[\w-]+/\?\S*|[?&][\w-]+=\S*"  # a link shown as text (the compare page's share link)
)
DOTTED_KEY = re.compile(r"\b\w+\.\w+\b")  # workload.attention (file names are data, removed before)


def english_words(page: str, data: list[str]) -> list[str]:
    """English words left outside the allowed names, units and tool terms (the finer pass)."""
    text = URLISH.sub(" ", visible_text(page))
    for value in [*data, *ALLOWED, *TOOL_TERMS]:
        text = text.replace(value, "\n")
    text = DOTTED_KEY.sub(" ", text)
    return sorted({w for w in re.findall(r"\b[A-Za-z][A-Za-z]+\b", text) if w not in ALLOWED_WORDS})


def _data_strings() -> list[str]:
    values: set[str] = set()
    for model in apps.get_models():
        label = model._meta.label
        if model._meta.app_label in DATA_APPS:
            names = [
                f.name for f in model._meta.fields if isinstance(f, (models.CharField, models.TextField))
            ]
        else:
            names = list(DATA_FIELDS.get(label, ()))
        for row in model._default_manager.values_list(*names) if names else ():
            values.update(str(v) for v in row if v and len(str(v)) > 2)
    # the questions of a request for quote, as typed; the presets' keys (what the address takes)
    from rfq.models import RequestForQuote
    from sizing.engine.workload import PRESETS

    for questions in RequestForQuote.objects.values_list("questions", flat=True):
        values.update(str(q) for q in questions or [] if len(str(q)) > 2)
    values.update(PRESETS)
    return sorted(values, key=len, reverse=True)


def visible_text(page: str) -> str:
    page = re.sub(r"<(script|style|svg|code|pre|kbd|samp)\b.*?</\1>", " ", page, flags=re.S | re.I)
    page = re.sub(r"<!--.*?-->", " ", page, flags=re.S)
    # text marked as English on purpose (the language switcher names English in English)
    page = re.sub(r"<(option|span|a)\b[^>]*\blang=\"en\"[^>]*>.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"</?(a|b|i|em|strong|span|abbr|small|sup|sub|time|label)\b[^>]*>", " ", page, flags=re.I)
    text = re.sub(r"<[^>]+>", "\n", page)
    return html.unescape(text)


def english_runs(page: str, data: list[str], *, not_yet: bool = False) -> list[str]:
    text = visible_text(page)
    for value in [*data, *ALLOWED]:
        text = text.replace(value, "\n")
    found = []
    for line in text.splitlines():
        if not_yet and any(phrase in line for phrase in NOT_YET):
            continue
        for match in ENGLISH_RUN.finditer(line):
            words = match.group(0).split()
            if len([w for w in words if w.isalpha() and len(w) >= 2]) >= 3:  # numbers join, never count
                found.append(" ".join(words))
    return found


def _acceptance(owner: Any, offering: Any) -> Any:
    import io
    import tarfile

    from acceptance import services

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = (FIXTURES / "uploads" / "nccl-allreduce-1node.txt").read_bytes()
        info = tarfile.TarInfo("results/nccl/all_reduce_1n.log")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    with TestCase.captureOnCommitCallbacks(execute=True):
        run = services.acceptance_create(
            owner=owner, offering=offering, name="bundle.tar.gz", data=buffer.getvalue()
        )
    run.refresh_from_db()
    return run


def _rfq_with_answer(owner: Any, offering: Any, workload: Any) -> Any:
    from rfq import services

    rep = UserFactory(username="zh-rep", role="provider", provider=offering.provider)
    rfq = services.rfq_create(
        buyer=owner, offering_slugs=[offering.slug], gpus=64, questions=["Fabric?"], workload_id=workload.pk
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.answer_create(
            representative=rep,
            rfq=rfq,
            offering_slug=offering.slug,
            price_usd_per_gpu_hour=Decimal("2.10"),
            delivery_weeks=3,
            payment_terms="net-30",
            source_url="https://example.org/offer",
            as_of=dt.date(2026, 11, 30),
        )
    return rfq, rep


def _pages(run: Any, quote: Any, rfq: Any, uploads: list[Any], report: Any) -> list[str]:
    wl = run.workload_id
    pages = [
        "/",
        "/offerings/",
        "/offerings/zh-silent/",
        "/offerings/zh-small/",
        "/accounts/account/",
        "/accounts/preferences/",
        "/plan/",
        "/plan/workloads/",
        f"/plan/{run.pk}/",
        f"/plan/{run.pk}/?rank=cost&feasible=1&complete=1&budget=1",
        f"/plan/{run.pk}/zh-silent/",
        f"/plan/{run.pk}/zh-small/",
        "/benchmarks/",
        "/benchmarks/upload/",
        "/benchmarks/acceptance/",
        f"/benchmarks/acceptance/{report.pk}/",
        "/checks/checklist/",
        "/checks/checklist/?offering=zh-silent",
        "/quotes/",
        f"/quotes/{quote.pk}/",
        "/rfqs/",
        "/rfqs/new/",
        f"/rfqs/{rfq.pk}/",
        "/compare/",
        "/compare/?offerings=zh-silent,zh-small",
        f"/compare/?offerings=zh-silent,zh-small&workload={wl}",
        f"/compare/?offerings=zh-silent,zh-small&workload={wl}&gpus=64",
        "/compare/?offerings=zh-silent,nope-offering",
        "/compare/?offerings=zh-silent,zh-small&workload=preset:13b",
        "/compare/?workload=13b",
    ]
    return pages + [f"/benchmarks/{upload.pk}/" for upload in uploads]


@pytest.mark.django_db
def test_every_page_in_chinese_shows_no_english_ui_text(
    client: Client,
    zh_run: Any,  # noqa: F811
    settings: Any,
    tmp_path: Path,
) -> None:
    from django.utils import translation

    from providers.models import Offering
    from quotes.services import quote_create_for_offering

    settings.MEDIA_ROOT = str(tmp_path / "media")
    owner = zh_run.owner
    silent = Offering.objects.get(slug="zh-silent")
    uploads = [
        zh_upload(owner, silent, FIXTURES / "uploads" / "nccl-allreduce-1node.txt", nodes=1),
        zh_upload(owner, silent, FIXTURES / "nvidia-smi-lost-gpu.txt", nodes=1),
        zh_upload(owner, silent, FIXTURES / "ibv_devinfo-v-ib.txt", nodes=1),
        zh_upload(owner, silent, FIXTURES / "megatron-stall-skipped.txt", nodes=1),
        # parser warnings, a failed run and summaries of several keys (yes/no values, the parser's words)
        *(zh_upload(owner, silent, FIXTURES / name, nodes=1) for name in SWEEP_UPLOADS),
    ]
    with translation.override("zh-hans"):
        quote = quote_create_for_offering(
            owner=owner, offering_slug="zh-silent", workload_id=zh_run.workload_id
        )
    rfq, rep = _rfq_with_answer(owner, silent, zh_run.workload)
    report = _acceptance(owner, silent)
    data = [*_data_strings(), "nope-offering"]  # and what an address gave, shown back as typed
    client.force_login(owner)
    left: dict[str, list[str]] = {}
    sections: set[str] = set()
    words: dict[str, list[str]] = {}
    warned = 0
    for url in _pages(zh_run, quote, rfq, uploads, report):
        response = client.get(url, **ZH)
        if response.status_code != (400 if "nope" in url or "13b" in url else 200):
            left[url] = [f"status {response.status_code}"]
            continue
        left[url] = english_runs(response.content.decode(), data, not_yet=True)
        words[url] = english_words(response.content.decode(), data)
        if url.startswith("/benchmarks/") and url.removeprefix("/benchmarks/").rstrip("/").isdigit():
            sections |= set(re.findall(r'<section id="(warnings|summary)">', response.content.decode()))
            warned += '<section id="warnings">' in response.content.decode()
    # forms with errors, as a buyer
    for url, form in (
        ("/plan/", {"preset": "nope", "train_tokens": "-1"}),
        ("/rfqs/new/", {"gpus": "0"}),
        ("/quotes/new/", {"offering": "nope"}),
        ("/benchmarks/upload/", {"nodes": "-2"}),
    ):
        left[f"POST {url}"] = english_runs(client.post(url, form, **ZH).content.decode(), data, not_yet=True)
    # the representative's side: the answer form and the fact edit
    rep_client = Client()
    rep_client.force_login(rep)
    for url in (f"/rfqs/{rfq.pk}/answer/zh-silent/", "/offerings/zh-silent/facts/", "/rfqs/"):
        left[url] = english_runs(rep_client.get(url, **ZH).content.decode(), data, not_yet=True)
    left["POST facts"] = english_runs(
        rep_client.post("/offerings/zh-silent/facts/", {"nics_per_node": "9999"}, **ZH).content.decode(),
        data,
        not_yet=True,
    )
    left["login"] = english_runs(Client().get("/accounts/login/", **ZH).content.decode(), data, not_yet=True)
    # the same pages in English do show English sentences: the sweep reads real text
    urls = _pages(zh_run, quote, rfq, uploads, report)
    in_english = [url for url in urls if english_runs(client.get(url, **EN).content.decode(), data)]
    assert len(in_english) >= len(urls) - 3, sorted(set(urls) - set(in_english))
    # the parser's warnings and summaries are on the pages read (several uploads warn)
    assert sections == {"warnings", "summary"} and warned >= 5, (sections, warned)
    left = {url: runs for url, runs in left.items() if runs}
    assert not left, "\n".join(f"{url}: {sorted(set(runs))}" for url, runs in left.items())
    # every page: not even a single English UI word (units, names and tool terms allowed)
    words = {url: found for url, found in words.items() if found}
    assert not words, "\n".join(f"{url}: {found}" for url, found in words.items())


def test_the_finer_pass_finds_single_english_words_and_allows_names_units_and_tool_terms() -> None:
    page = "<p>8 个 rank 的 busbw 为 235 GB/s（out-of-place）</p><p>状态：Parsed · not given</p>"
    assert english_words(page, []) == ["Parsed", "given", "not"]
    assert english_words("<p>World size（GPU 数）16；Link type：InfiniBand</p>", []) == []
    # commands, quoted codes, addresses and share links are not words of the page; a word beside them is
    page = "<p>运行 `nvidia-smi topo -m`，设为 'unfused'（aws.amazon.com）/compare/?a=b “pre:13b” yours</p>"
    assert english_words(page, []) == ["yours"]


def test_the_sweep_finds_english_ui_text_and_ignores_catalog_data() -> None:
    page = '<h1>Done 38 of 38</h1><p>Nebius Cloud Platform</p><script>var a = "plenty of words here"</script>'
    assert english_runs(page, []) == ["Nebius Cloud Platform"]  # "Done": one word; the script: not shown
    assert english_runs(page, ["Nebius Cloud Platform"]) == []
    assert english_runs("<p>only within <b>the</b> budget, only complete bills</p>", []) == [
        "only within the budget",
        "only complete bills",
    ]
    assert english_runs("<p>只在预算内 (H100 SXM)</p>", []) == []
    # a number does not break a run, nor count as a word
    assert english_runs("<p>shows up to 100 offerings</p>", []) == ["shows up to 100 offerings"]
    assert english_runs("<p>Done 38 of 38</p>", []) == []


@pytest.mark.django_db
def test_the_login_page_in_chinese_has_no_english_word() -> None:
    """The finer pass on the login form: its field labels ("User name", "Password") are translated too."""
    page = Client().get("/accounts/login/", **ZH).content.decode()
    assert "用户名" in page and "密码" in page
    assert english_words(page, []) == []


@pytest.mark.django_db
def test_the_account_page_with_a_token_in_chinese_has_no_english_word() -> None:
    """The token's issue and expiry sentence, valid and expired, is translated (it was English)."""
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    user = UserFactory(username="zh-token")
    token = Token.objects.create(user=user)
    client = Client()
    client.force_login(user)
    page = client.get("/accounts/account/", **ZH).content.decode()
    assert "有效期至" in page and english_words(page, ["zh-token"]) == []
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=3650))
    page = client.get("/accounts/account/", **ZH).content.decode()
    assert "过期" in page and english_words(page, ["zh-token"]) == []
    english = client.get("/accounts/account/", **EN).content.decode()
    assert "You have an API token, issued" in english and "<strong>expired</strong>" in english


@pytest.mark.django_db
def test_the_language_switcher_names_each_language_in_itself() -> None:
    """A Chinese page offered "英语": a reader of English only could not find their language."""
    for accept in ("zh-hans", "en"):
        page = Client().get("/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
        switcher = page.split('id="language-select"')[1].split("</select>")[0]
        assert ">English</option>" in switcher and ">简体中文</option>" in switcher, switcher
