"""The shape of the code (STYLE.md 15-16, issue 15): apps import each other without a loop, every arrow
points down, the ground floor imports no other app, pure engines import neither Django nor an app, and no
room is too big to live in."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# `portal` is the project package (settings, URLs, the Celery app): it may see every app and every app
# may use its shared helpers, so it stays out of the loop check.
APPS = (
    "hardware",
    "providers",
    "accounts",
    "benchmarks",
    "checks",
    "acceptance",
    "sizing",
    "compare",
    "quotes",
    "rfq",
)
PROJECT = "portal"
# The floor and the order above it: an app may import only apps listed before it.
# rfq sits on top: it sizes answers with the planner and turns the winner into a quote.
LAYERS = APPS
PURE = (
    "hardware",
    "sizing/engine",
    "checks/rules",
    "checks/severity.py",
    "benchmarks/parsers",
    "sizing/bill.py",
    "acceptance/kit.py",
    "acceptance/bundle.py",
    "acceptance/findings.py",
)
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def _modules(top: str) -> Iterator[Path]:
    base = ROOT / top
    paths = [base] if base.suffix == ".py" else base.rglob("*.py")
    for path in paths:
        if "migrations" not in path.parts:
            yield path


def _imported_modules(path: Path) -> set[str]:
    """The modules a file imports by absolute name (`import a.b`, `from a.b import c`: a.b)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _imported_tops(path: Path) -> set[str]:
    return {name.split(".")[0] for name in _imported_modules(path)}


def _app_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for app in APPS:
        used: set[str] = set()
        for path in _modules(app):
            used |= _imported_tops(path)
        graph[app] = {other for other in used if other in APPS and other != app}
    return graph


def test_every_app_imports_only_the_apps_below_it() -> None:
    graph = _app_graph()
    for app, used in graph.items():
        below = set(LAYERS[: LAYERS.index(app)])
        assert used <= below, f"{app} imports {sorted(used - below)}, which sit above it"


def test_the_ground_floor_imports_no_other_app() -> None:
    graph = _app_graph()
    assert graph["hardware"] == set()
    assert graph["providers"] <= {"hardware"}


# Pure modules of other apps that pure code may use: the fact registry and its rules about plans.
PURE_SHARED = {"providers.facts"}


@pytest.mark.parametrize("top", PURE)
def test_pure_code_imports_neither_django_nor_celery_nor_an_app(top: str) -> None:
    allowed_apps = {"hardware"} | ({"checks"} if top == "sizing/bill.py" else set())
    for path in _modules(top):
        used = _imported_tops(path)
        assert not used & {"django", "celery", "rest_framework"}, path
        own = top.split("/")[0]
        apps_used = {m.split(".")[0] for m in _imported_modules(path) - PURE_SHARED}
        assert not (apps_used & (set(APPS) | {PROJECT})) - allowed_apps - {own}, path


@pytest.mark.parametrize("module", sorted(PURE_SHARED))
def test_shared_pure_modules_import_only_the_ground_floor(module: str) -> None:
    used = _imported_tops(ROOT / (module.replace(".", "/") + ".py"))
    assert not used & {"django", "celery", "rest_framework"}
    assert not used & (set(APPS) | {PROJECT}) - {"hardware"}


def _app_modules() -> Iterator[Path]:
    for top in (*APPS, PROJECT):
        yield from _modules(top)


def test_no_module_is_too_big() -> None:
    big = [
        f"{p.relative_to(ROOT)}: {n}"
        for p in _app_modules()
        if (n := p.read_text().count("\n")) > MAX_MODULE_LINES
    ]
    assert big == []


def test_no_function_is_too_long() -> None:
    long = []
    for path in _app_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
