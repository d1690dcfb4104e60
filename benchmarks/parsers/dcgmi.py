"""`dcgmi diag` tables and `dcgmi nvlink -s` grids (benchlogs/FORMATS.md 5, evidence/FORMATS.md 3 and 9)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hardware.messages import Msg, _, listed, ngettext

from .result import ParseResult
from .text import HostLines, Text, line_host

SECTION_RE = re.compile(r"^\s*+[|+]-{2,}+\s++([A-Za-z](?:[\w /]*?[\w/])?)\s++-++\+")
RESULT_RE = re.compile(r"^(Pass|Fail|Skip|Warn|Not Run)\b(?:\s*-\s*(.*))?$", re.IGNORECASE)
PER_GPU_RE = re.compile(r"^\s*GPU\s*(\d+)\s*:\s*(Pass|Fail|Skip|Warn)\b", re.IGNORECASE)
# `dcgmi diag -r 3`, or the long form `--run 3` / `--run=3` (dcgmi diag --help).
LEVEL_RE = re.compile(r"^(?>.*?dcgmi\s++diag\b).*?(?:-r|--run)(?:\s++|=)['\"]?+(\w+)")
DETAIL_LABELS = ("warning", "info", "error")
# When GPUs differ, DCGM prints one result per group on continuation rows under the test:
# `| GPU Memory | Pass - GPUs: 1, 2, 3 |` then `|            | Fail - GPU: 0 |`. The test's result is the
# worst of them.
SEVERITY = {"Fail": 4, "Warn": 3, "Pass": 2, "Skip": 1, "Not run": 0}
GPU_ID_RE = re.compile(r"^\s*gpuId\s+(\d+)\s*:")
SWITCH_ID_RE = re.compile(r"^\s*physicalId\s+(\d+)\s*:")
STATES_RE = re.compile(r"^\s*([UDX_](?:\s+[UDX_])*)\s*$")
# The rule that closes the table (`+----+----+`, no label): a table cut before it may miss later sections.
CLOSING_RULE_RE = re.compile(r"^\s*\+-{3,}\+-{3,}\+\s*$")
# What a level of 2 or more runs beyond a `-r 1` (Metadata and Deployment), by section, and the names of the
# levels (`dcgmi diag -r medium`, dcgmi diag --help).
QUICK_SECTIONS = ("metadata", "deployment")
LEVEL_SECTIONS = {2: ("Integration", "Hardware"), 3: ("Integration", "Hardware", "Stress")}
LEVEL_NAMES = {"short": 1, "quick": 1, "medium": 2, "long": 3, "xlong": 4}
# Blanks between a wrapped fragment cut at the column's width and the cell's right edge (join_wrapped).
DCGM_CUT_PAD = 2


def table_cells(line: str) -> tuple[str, str] | None:
    """`| left | right |` -> (left, right); right keeps any further `|`. Scanned by hand: the regex
    `\\|\\s*(.*?)\\s*\\|\\s*(.*?)\\s*\\|` backtracked in O(n^3) on a line of spaces (issue 20)."""
    row = line.strip()
    if len(row) < 3 or row[0] != "|" or row[-1] != "|":
        return None
    left, bar, right = row[1:-1].partition("|")
    if not bar:
        return None
    return left.strip(), right.strip()


def _raw_right(line: str) -> str:
    """The right cell of a `| left | right |` row as printed, its padding kept."""
    return line.strip()[1:-1].partition("|")[2]


def join_wrapped(cells: list[str]) -> str:
    """The text DCGM wrapped over the right cells of several rows. It cuts at a fixed width whatever the
    words (`... is currently disab` / `led. The DCGM ...`) and draws every cell one blank, the text, then
    blanks to the column's edge: a fragment cut at the width ends DCGM_CUT_PAD blanks from the edge (every
    wrapped cell of the dcgmi fixtures: 45 characters in a 48-wide cell). Such a fragment followed by one that
    starts right after its one blank is one word cut in two and joins without a space; a word that ended at
    the width leaves the next fragment starting with the space after it, and joins with one."""
    out = ""
    previous = ""
    for cell in cells:
        text = cell.strip()
        if not text:
            previous = ""  # a row that starts a new paragraph (join_wrapped's caller): never a cut word
            continue
        cut = len(previous) - len(previous.rstrip()) == DCGM_CUT_PAD and len(cell) - len(cell.lstrip()) == 1
        out = out + text if cut and out[-1:].isalnum() and text[:1].isalnum() else (out + " " + text).strip()
        previous = cell
    return out


def _add_result(test: dict[str, Any], cell: str) -> None:
    """A further `Fail - GPU: 0` under a test: kept in `results`, the worst result becomes the test's."""
    m = RESULT_RE.match(cell)
    if m is None:
        return
    if "results" not in test:
        test["results"] = [{"result": test["result"], "gpus": test["gpus"]}]
    extra = {"result": m.group(1).capitalize(), "gpus": m.group(2)}
    test["results"].append(extra)
    if SEVERITY.get(extra["result"], 0) > SEVERITY.get(test["result"], 0):
        test["result"], test["gpus"] = extra["result"], extra["gpus"]


def _read_diag_error(diag_errors: list[dict[str, Any]], left: str, right: str, line: str, no: int) -> bool:
    """An Error row before any test (the diagnostic itself could not run, or aborted), or its text wrapped
    onto a row with a blank left cell ("... and row" / "remappings are pending")."""
    if left.lower().rstrip(":") == "error":
        diag_errors.append({"detail": right, "line": no, "wrapped": [_raw_right(line)]})
        return True
    if not left and diag_errors:
        diag_errors[-1]["wrapped"].append(_raw_right(line))
        diag_errors[-1]["detail"] = join_wrapped(diag_errors[-1]["wrapped"])
        return True
    return False


class _Commands:
    """What the lines outside the tables say: the latest `dcgmi diag -r N` command's level (the report that
    follows is its run's) and the host the lines are of (text.line_host: a prompt, or the line
    hosts.by_host puts before each host's lines of a pdsh file)."""

    def __init__(self) -> None:
        self.level: str | None = None
        self.hosts = HostLines()

    def read(self, no: int, line: str) -> None:
        m = LEVEL_RE.search(line) if "diag" in line else None
        if m:
            self.level = m.group(1)
        named = line_host(line) if "@" in line else None
        if named is not None:
            self.hosts.note(no, named)

    def name_hosts(self, tests: list[dict[str, Any]]) -> None:
        """Each test's `host` (by its line), in a file of several hosts' reports only."""
        if len(set(self.hosts.hosts)) > 1:
            for test in tests:
                test["host"] = self.hosts.host_of(test["line"])


def parse_dcgmi_diag(text: Text) -> ParseResult:
    result = ParseResult(kind="dcgmi-diag")
    tests: list[dict[str, Any]] = []
    metadata: dict[str, str] = {}
    section = None
    commands = _Commands()
    last: dict[str, Any] | None = None
    in_detail = False  # inside wrapped Warning/Info/Error text rather than the test's own rows
    diag_errors: list[dict[str, Any]] = []
    rules: list[int] = []  # rules (`+----+----+`) since the last test row: a closing rule, or a table's top
    reports: list[_Report] = []  # several reports in one file, each judged whole on its own
    report = _Report(start=0)
    for no, line in enumerate(text.lines, start=1):
        if "diag" in line or "@" in line:  # substrings first: few lines are commands or prompts
            commands.read(no, line)
        if "+-" in line and CLOSING_RULE_RE.match(line):
            rules.append(no)
            continue
        m = SECTION_RE.match(line)
        if m:
            section = m.group(1).strip()
            continue
        m = PER_GPU_RE.match(line)
        if m and last is not None:
            last.setdefault("per_gpu", {})[int(m.group(1))] = m.group(2).capitalize()
            continue
        cells = table_cells(line)
        if cells is None:
            continue
        left, right = cells
        if left == "Diagnostic" and right == "Result":
            # a new table: the rule just above is its top, not the closing rule of the report before
            if len(tests) > report.start:
                report.closed = any(rule < no - 1 for rule in rules)
                reports.append(report)
                report = _Report(start=len(tests))
            report.level, rules = commands.level, []
            continue
        if section and section.lower() == "metadata" and left:
            metadata[left] = right
            continue
        if last is None and right and _read_diag_error(diag_errors, left, right, line, no):
            continue
        if not left and not in_detail and last is not None and RESULT_RE.match(right):
            _add_result(last, right)
            continue
        if not left or left.lower().rstrip(":") in DETAIL_LABELS:
            # Wrapped Info/Warning/Error text: continuation rows have a blank left cell.
            in_detail = True
            if last is not None and right:
                wrapped = last.setdefault("wrapped", [])
                if left and wrapped:
                    wrapped.append("")  # a new Error/Warning row: its text does not continue the last one's
                wrapped.append(_raw_right(line))
                last["detail"] = join_wrapped(wrapped)
            continue
        rm = RESULT_RE.match(right)
        if not rm:
            continue
        last = {
            "section": section,
            "name": left,
            "result": rm.group(1).capitalize(),
            "gpus": rm.group(2),
            "line": no,
        }
        in_detail, rules = False, []
        tests.append(last)
    for entry in (*tests, *diag_errors):
        entry.pop("wrapped", None)
    commands.name_hosts(tests)
    report.closed = bool(rules)
    report.level = report.level if report.level is not None else commands.level
    reports.append(report)
    result.summary = _diag_summary(tests, metadata, commands.level, diag_errors)
    _judge_reports(result, tests, reports)
    result.warnings.extend(_diag_warnings(diag_errors, tests))
    return result


def _judge_reports(result: ParseResult, tests: list[dict[str, Any]], reports: list[_Report]) -> None:
    """Each report's completeness (its sections, its closing rule, its level's tests), the first report
    that was cut or skipped its level in the summary: such a file cannot pass (a failed test still fails)."""
    ends = [r.start for r in reports[1:]] + [len(tests)]
    judged = [
        (r, _completeness(tests[r.start : end], r.level, r.closed))
        for r, end in zip(reports, ends, strict=True)
    ]
    cut = next(((r, c) for r, c in judged if c["truncated"] or c["levels_skipped"]), None)
    result.summary.update(cut[1] if cut else judged[-1][1])
    if cut and not result.summary["failed_tests"] and not result.summary["errors"]:
        result.summary["passed"] = None  # cut before the tests of its level, or all of them skipped
        result.warnings.append(_cut_warning(result.summary, cut[0].level))


def _diag_summary(
    tests: list[dict[str, Any]],
    metadata: dict[str, str],
    level: str | None,
    diag_errors: list[dict[str, Any]],
) -> dict[str, Any]:
    failed = [t for t in tests if t["result"] == "Fail" or "Fail" in t.get("per_gpu", {}).values()]
    warned = [t for t in tests if t["result"] == "Warn"]
    skipped = [t for t in tests if t["result"] == "Skip"]
    return {
        "passed": bool(tests) and not failed and not diag_errors,
        "errors": diag_errors,
        "failed_tests": [_test_name(t) for t in failed],
        "warned_tests": [_test_name(t) for t in warned],
        "skipped_tests": [_test_name(t) for t in skipped],
        "tests": tests,
        "level": level,
        "metadata": metadata,
        "dcgm_version": metadata.get("DCGM Version"),
        "driver_version": metadata.get("Driver Version Detected"),
        "gpu_ids": metadata.get("GPU Device IDs Detected"),
        "lines": [t["line"] for t in failed] or [t["line"] for t in tests],
    }


def _test_name(test: dict[str, Any]) -> str:
    """A test's name, with its host's in a file of several hosts' reports (`GPU Memory (gpu-node-02)`)."""
    return f"{test['name']} ({test['host']})" if test.get("host") else test["name"]


def level_number(level: str | None) -> int | None:
    """`-r 3` -> 3, `-r long` -> 3; None for a test name (`-r pcie` runs that test alone) or no level."""
    if level is None:
        return None
    return int(level) if level.isdigit() else LEVEL_NAMES.get(level.lower())


def _completeness(tests: list[dict[str, Any]], level: str | None, closed: bool) -> dict[str, Any]:
    """The sections the table shows and whether it is cut: a level of 2 or more that shows only Deployment
    checks (the paste ends before Integration), or a table without its closing rule."""
    sections = list(dict.fromkeys(t["section"] for t in tests if t["section"]))
    number = level_number(level)
    deployment_only = bool(tests) and all((t["section"] or "").lower() in QUICK_SECTIONS for t in tests)
    expected = LEVEL_SECTIONS[min(number, 3)] if number is not None and number >= 2 else ()
    seen = {s.lower() for s in sections}
    missing = [s for s in expected if s.lower() not in seen] if deployment_only else []
    # every test of the level's sections skipped (`Skip - All`): the level ran nothing it is run for
    level_tests = [t for t in tests if (t["section"] or "").lower() not in QUICK_SECTIONS]
    skipped = bool(expected) and bool(level_tests) and all(t["result"] == "Skip" for t in level_tests)
    return {
        "sections": sections,
        "missing_sections": missing,
        "levels_skipped": skipped,
        "truncated": bool(tests) and (bool(missing) or not closed),
        "cut_after_line": tests[-1]["line"] if tests and (missing or not closed) else None,
    }


@dataclass
class _Report:
    """One dcgmi diag report of a file: where its test rows start, its run level, whether it closed."""

    start: int
    level: str | None = None
    closed: bool = False


def unknown_reason(s: dict[str, Any]) -> Msg:
    """Why a dcgmi diag report without a failed test does not pass (the comparison's measured value; the
    parser's warning is _cut_warning): every test of its level skipped, cut before its level's tests, cut
    before its closing rule, the diagnostic's own error, or no test row."""
    if s.get("levels_skipped") and not s.get("truncated"):
        return _(
            "cannot tell: the -r %(level)s run skipped every test of its level (%(sections)s)",
            level=s.get("level") or "?",
            sections=listed(x for x in s.get("sections") or [] if x.lower() not in QUICK_SECTIONS),
        )
    if s.get("missing_sections"):
        return _(
            "cannot tell: the table shows only Deployment checks of a -r %(level)s run (last test row at "
            "line %(line)s; missing: %(sections)s)",
            level=s.get("level") or "?",
            line=s.get("cut_after_line") or "?",
            sections=listed(s["missing_sections"]),
        )
    if s.get("truncated"):
        return _(
            "cannot tell: the table has no closing rule after its last test row (line %(line)s)",
            line=s.get("cut_after_line") or "?",
        )
    if s.get("errors"):
        return _("cannot tell: the diagnostic reported an error before any test")
    return _("cannot tell: no test rows")


def _cut_warning(summary: dict[str, Any], level: str | None) -> Msg:
    if summary["levels_skipped"] and not summary["truncated"]:
        return _(
            "dcgmi diag -r %(level)s skipped every test of its level (%(sections)s): only the Deployment "
            "checks ran, so the run's result cannot be told",
            level=level,
            sections=listed(s for s in summary["sections"] if s.lower() not in QUICK_SECTIONS),
        )
    if summary["missing_sections"]:
        return ngettext(
            "dcgmi diag -r %(level)s shows only Deployment checks (last test row at line %(line)s): the "
            "%(sections)s section of that level is missing, so the run's result cannot be told",
            "dcgmi diag -r %(level)s shows only Deployment checks (last test row at line %(line)s): the "
            "%(sections)s sections of that level are missing, so the run's result cannot be told",
            len(summary["missing_sections"]),
            level=level,
            line=summary["cut_after_line"],
            sections=listed(summary["missing_sections"]),
        )
    return _(
        "the dcgmi diag table has no closing rule after its last test row (line %(line)s, section "
        "%(section)s): later sections may be cut, so the run's result cannot be told",
        line=summary["cut_after_line"],
        section=(summary["sections"] or ["?"])[-1],
    )


def _diag_warnings(diag_errors: list[dict[str, Any]], tests: list[dict[str, Any]]) -> list[str]:
    """The diagnostic's own errors (it could not run or aborted) and a report without test rows."""
    warnings: list[str] = []
    if diag_errors:
        warnings.append(
            ngettext(
                "dcgmi diag reported %(count)s error (line %(line)s): %(detail)s",
                "dcgmi diag reported %(count)s errors (line %(line)s): %(detail)s",
                len(diag_errors),
                count=len(diag_errors),
                line=diag_errors[0]["line"],
                detail=diag_errors[0]["detail"][:200],
            )
        )
    if not tests:
        warnings.append(_("dcgmi diag header found but no test rows"))
    return warnings


def parse_dcgmi_nvlink(text: Text) -> ParseResult:
    result = ParseResult(kind="dcgmi-nvlink")
    gpus: list[dict[str, Any]] = []
    switches: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    no_switches = False
    for no, line in enumerate(text.lines, start=1):
        no_switches = no_switches or "No NvSwitches found" in line
        m = GPU_ID_RE.match(line)
        if m:
            current = {"index": int(m.group(1)), "states": [], "line": no}
            gpus.append(current)
            continue
        m = SWITCH_ID_RE.match(line)
        if m:
            current = {"index": int(m.group(1)), "states": [], "line": no}
            switches.append(current)
            continue
        m = STATES_RE.match(line)
        if m and current is not None:
            current["states"].extend(m.group(1).split())
    per_gpu = [
        {
            "index": g["index"],
            "active_links": g["states"].count("U"),
            "down_links": g["states"].count("D"),
            "disabled_links": g["states"].count("X"),
            "line": g["line"],
        }
        for g in gpus
    ]
    ups = [p["active_links"] for p in per_gpu]
    result.summary = {
        "gpus": len(per_gpu),
        "active_links_per_gpu": min(ups) if ups else 0,
        "max_active_links_per_gpu": max(ups) if ups else 0,
        "link_gbps": None,  # dcgmi prints link state only
        "inactive_links": sum(p["down_links"] + p["disabled_links"] for p in per_gpu),
        "nvswitches": len(switches),
        "per_gpu": per_gpu,
        "lines": [p["line"] for p in per_gpu],
    }
    if no_switches:
        result.warnings.append(
            _("No NvSwitches found: switches not visible (VM, or a board without NVSwitch)")
        )
    return result
