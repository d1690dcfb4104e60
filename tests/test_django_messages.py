"""Django's own messages our forms show read in the house style: in Chinese no space after "。" (Django's
catalog puts one there), and the value a user sent quoted “x” in both languages. Our catalogs
(locale/*/LC_MESSAGES, before Django's in LOCALE_PATHS) replace them."""

from __future__ import annotations

import gettext as gettext_module
import re
from pathlib import Path

import django
import pytest
from django.apps import apps
from django.test import Client

from tests.providers.factories import UserFactory

ROOT = Path(__file__).resolve().parents[1]
OURS = {language: ROOT / "locale" / language / "LC_MESSAGES" / "django.mo" for language in ("zh_Hans", "en")}
INVALID_CHOICE = "Select a valid choice. %(value)s is not one of the available choices."


def _djangos_catalogs(language: str) -> list[Path]:
    """Django's compiled catalogs for `language`: its own and those of the installed contrib apps."""
    core = Path(django.__file__).parent / "conf" / "locale" / language / "LC_MESSAGES" / "django.mo"
    contrib = [
        Path(config.path) / "locale" / language / "LC_MESSAGES" / "django.mo"
        for config in apps.get_app_configs()
        if config.name.startswith("django.contrib.")
    ]
    return [path for path in [core, *contrib] if path.exists()]


def _catalog(path: Path) -> dict[str, str]:
    with path.open("rb") as mo:
        return {k: v for k, v in gettext_module.GNUTranslations(mo)._catalog.items() if isinstance(k, str)}  # type: ignore[attr-defined]


def test_every_compiled_catalog_of_ours_is_current() -> None:
    for mo in OURS.values():
        po = mo.with_suffix(".po")
        assert mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime, "run `make setup` to compile it"


def test_no_message_of_django_leaves_a_space_after_a_chinese_full_stop() -> None:
    ours = _catalog(OURS["zh_Hans"])
    spaced = {
        msgid
        for path in _djangos_catalogs("zh_Hans")
        for msgid, text in _catalog(path).items()
        if msgid and re.search(r"。 ", text)
    }
    assert INVALID_CHOICE in spaced  # the scan reads Django's catalog
    assert all(msgid in ours and "。 " not in ours[msgid] for msgid in spaced), sorted(
        msgid for msgid in spaced if "。 " in ours.get(msgid, "。 ")
    )


@pytest.mark.parametrize(("language", "catalog"), [("zh-hans", "zh_Hans"), ("en", "en")])
def test_djangos_messages_quote_the_value_a_user_sent_as_the_pages_do(language: str, catalog: str) -> None:
    ours = _catalog(OURS[catalog])
    for msgid in (INVALID_CHOICE, "Value %(value)r is not a valid choice."):
        assert "“%(value)s”" in ours[msgid] and "%(value)r" not in ours[msgid], msgid


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("zh-hans", "选择一个有效的选项。“slowest”不在可用的选项中。"),
        ("en", "Select a valid choice. “slowest” is not one of the available choices."),
    ],
)
def test_the_planners_invalid_choice_reads_in_the_house_style(language: str, words: str) -> None:
    client = Client()
    client.force_login(UserFactory())
    client.cookies["django_language"] = language
    page = client.post("/plan/", {"preset": "13b", "objective": "slowest"}).content.decode()
    assert words in page, re.findall(r"slowest[^<]*", page)
    assert "slowest 不在" not in page and " slowest is" not in page
