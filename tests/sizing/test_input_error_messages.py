"""Every reason the engine gives for refusing its input is a message with a Chinese translation.

The reasons are found by reading the engine's source: each `InputError(field, reason)` raise, its reason a
`_("...")` message, a variable set from such messages in the same function, or a call of a function of the
same module that builds one (bounds._range_error). A raise whose reason is none of these fails here, so a
new f-string reason cannot slip in untranslated.
"""

from __future__ import annotations

import ast
import gettext as gettext_module
import re
from pathlib import Path

import pytest
from django.utils import translation

from hardware.messages import Msg

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "sizing" / "engine"
MO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"
# argparse's own error (the CLI's arguments, never a page): its words are the standard library's
UNTRANSLATABLE = {"%(message)s"}


def _messages_in(node: ast.AST) -> set[str]:
    """The message ids of the `_("...")` calls inside `node`."""
    return {
        call.args[0].value
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id in ("_", "Msg")
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    }


def _reason_messages(path: Path) -> dict[str, set[str]]:
    """Each InputError raise of `path` (by line) and the message ids its reason can be."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    found: dict[str, set[str]] = {}
    for function in functions.values():
        for call in ast.walk(function):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "InputError"):
                continue
            reason = call.args[1] if len(call.args) > 1 else None
            where = f"{path.name}:{call.lineno}"
            if isinstance(reason, ast.Call) and getattr(reason.func, "id", None) in ("_", "Msg"):
                found[where] = _messages_in(reason)
            elif isinstance(reason, ast.Name):  # a reason chosen in the function from messages of its own
                found[where] = _messages_in(function)
            elif isinstance(reason, ast.Call) and getattr(reason.func, "id", None) in functions:
                found[where] = _messages_in(functions[reason.func.id])
            else:
                found[where] = set()
    return found


def engine_reasons() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(ENGINE.glob("*.py")):
        found.update(_reason_messages(path))
    return found


def test_every_input_error_of_the_engine_gives_its_reason_as_a_message() -> None:
    reasons = engine_reasons()
    assert len(reasons) > 60, "the scan found the engine's raises"
    plain = sorted(where for where, ids in reasons.items() if not ids)
    assert not plain, f"reasons that are not a _() message: {plain}"


def test_every_reason_of_the_engine_has_a_chinese_translation_in_the_compiled_catalog() -> None:
    catalog = gettext_module.GNUTranslations(MO.open("rb"))
    ids = set().union(*engine_reasons().values()) - UNTRANSLATABLE
    missing = sorted(i for i in ids if catalog.gettext(i) == i)
    assert not missing, f"no Chinese for: {missing}"
    for msgid in ids:  # the translation fills the same values the English does
        names = set(re.findall(r"%\((\w+)\)s", msgid))
        assert set(re.findall(r"%\((\w+)\)s", catalog.gettext(msgid))) == names, msgid


@pytest.mark.parametrize(
    ("workload", "english", "chinese"),
    [
        ({"layers": 4, "hidden": 100, "heads": 7, "seq_len": 512}, "7 heads do not divide hidden 100", "7"),
        ({"layers": 4, "hidden": 128, "heads": 8, "seq_len": -3}, "must be positive, got -3", "-3"),
        ({"layers": 4, "hidden": 128, "heads": 8, "kv_heads": 3}, "3 KV heads do not divide 8 heads", "KV"),
    ],
)
def test_a_refused_workload_reads_in_chinese_on_a_chinese_page(
    workload: dict[str, object], english: str, chinese: str
) -> None:
    from sizing.engine.errors import InputError
    from sizing.engine.workload import workload_from_dict
    from sizing.input_errors import input_error_reason, input_error_text

    with pytest.raises(InputError) as caught:
        workload_from_dict(workload)
    exc = caught.value
    assert isinstance(exc.reason, Msg) and english in str(exc)  # the CLI and the API: the English as before
    with translation.override("en"):
        assert english in input_error_reason(exc)
    with translation.override("zh-hans"):
        shown = input_error_text(exc)
    assert chinese in shown and not re.search(r"[A-Za-z]{3,}", shown), shown


@pytest.mark.django_db
def test_a_workload_the_engine_refuses_is_named_in_chinese_on_the_form() -> None:
    from django.core.exceptions import ValidationError

    from sizing.services import workload_create
    from tests.providers.factories import UserFactory

    user = UserFactory()
    fields = {"layers": 4, "hidden": 100, "heads": 7, "seq_len": 512, "params": None}
    with translation.override("en"), pytest.raises(ValidationError) as english:
        workload_create(owner=user, **fields)
    assert english.value.message_dict == {"heads": ["7 heads do not divide hidden 100"]}  # as before
    with translation.override("zh-hans"), pytest.raises(ValidationError) as chinese:
        workload_create(owner=user, **fields)
    assert chinese.value.message_dict == {"heads": ["7 个注意力头不能整除隐藏层宽度 100"]}


def test_an_offering_the_engine_refuses_is_named_by_its_label_and_stored_as_a_message() -> None:
    from portal.i18n import translated
    from sizing.engine.errors import InputError
    from sizing.engine.hardware import hardware_from_facts
    from sizing.services import input_error_words

    facts = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "nvlink_domain_gpus": 12}
    with pytest.raises(InputError) as caught:
        hardware_from_facts(facts)
    words = input_error_words(caught.value, None)
    assert str(words) == (
        "the planner cannot size this offering: NVLink domain must be a multiple of gpus_per_node (8), got 12"
    )
    with translation.override("zh-hans"):
        chinese = translated(words.as_json(), str(words))
    assert "12" in chinese and "gpus_per_node" not in chinese and "must" not in chinese, chinese


def test_a_failed_run_reads_in_the_page_language_and_keeps_its_english_for_the_api() -> None:
    from sizing import run_errors

    stored = run_errors.CHUNK_ERROR % {"what": run_errors.chunk_what(12)}
    assert stored.startswith("Sizing stopped on an unexpected error while sizing 12 offerings.")
    with translation.override("en"):
        assert run_errors.run_error_shown(stored) == stored
    with translation.override("zh-hans"):
        assert run_errors.run_error_shown(stored).startswith("测算12 个产品时遇到意外错误")
        named = run_errors.run_error_shown(run_errors.CHUNK_ERROR % {"what": "“Broken cluster”"})
        assert "“Broken cluster”" in named and "Retry" not in named
        limit = run_errors.TIME_LIMIT % {"what": run_errors.WHAT_LIST, "seconds": 300}
        assert run_errors.run_error_shown(limit).startswith("测算产品列表的时间超过")
        assert run_errors.run_error_shown("something else") == "something else"


def test_a_layout_refusal_names_its_setting_in_both_languages() -> None:
    from hardware.messages import _
    from sizing.engine.errors import InputError
    from sizing.input_errors import input_error_text

    err = InputError("layout.zero", _("must be 0-3, got %(got)s", got="5"))
    assert input_error_text(err) == "Layout zero: must be 0-3, got 5"
    with translation.override("zh-hans"):
        assert input_error_text(err).startswith("并行布局（zero）：")
