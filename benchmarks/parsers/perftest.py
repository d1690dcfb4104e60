"""perftest output: ib_write_bw / ib_read_bw / ib_send_bw and the *_lat tests (FORMATS.md section 4).

Bandwidth is normalised to Gb/s (1e9 bit/s). perftest's `MB/sec` and `MiB/sec` are both 2^20
bytes per second (`format_factor = 0x100000`), `Gb/sec` (`--report_gbits`) is decimal. A run that stops
before its table is a failed run, its error lines quoted (ERROR_RE).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hardware.messages import _, listed, ngettext

from .result import ParseResult
from .text import Text, median, strip_launcher_prefix, to_float, to_int

BANNER_RE = re.compile(
    # ib_atomic_* banners name the operation: `Atomic FETCH_AND_ADD BW Test`, `Atomic CMP_AND_SWAP ...`;
    # the words between follow perftest's ctx_print_test_info: `Bidirectional`, `Post List` (--post_list),
    # then `BW` or `Latency`, `forwarding`, `Multicast`.
    r"\b(RDMA_\w+|Send|Read|Write|Atomic(?:\s+(?:FETCH_AND_ADD|CMP_AND_SWAP))?)\s+(Bidirectional\s+)?"
    r"(?:Post List\s+)?(?P<test>BW|Lat(?:ency)?)\s+(?:forwarding\s+)?(?:Multicast\s+)?Test\b"
)
BW_HEADER_RE = re.compile(r"#bytes\s+#iterations\s+BW peak\[([^\]]+)\]\s+BW average\[([^\]]+)\]")
LAT_HEADER_RE = re.compile(r"^(?>.*?#bytes\s++#iterations\s)(?>.*?t_(?:min|avg)\[usec\])")
FIELD_RES = {
    "device": re.compile(r"\bDevice\s*:\s*(\S+)"),
    "link_type": re.compile(r"\bLink type\s*:\s*(\S+)"),
    "transport": re.compile(r"\bTransport type\s*:\s*(\S+)"),
    "connection": re.compile(r"\bConnection type\s*:\s*(\S+)"),
    "qps": re.compile(r"\bNumber of qps\s*:\s*(\d+)"),
    "mtu": re.compile(r"\bMtu\s*:\s*(\d+)"),
    "gid_index": re.compile(r"\bGID index\s*:\s*(\d+)"),
}
COMMAND_RE = re.compile(r"\bib_(write|read|send|atomic)_(bw|lat)\b")
# perftest's messages when a run stops before its results (linux-rdma/perftest @00b55b6: src/*_bw.c,
# *_lat.c, perftest_communication.c, perftest_resources.c): the cause first (`Couldn't allocate MR`,
# `ethernet_read_keys: Couldn't read remote address`), then the step that failed (` Couldn't create IB
# resources`, `Failed to exchange data between server and clients`). Matched on the stripped line.
ERROR_RE = re.compile(
    r"(?:ethernet_read_keys: )?(?:Couldn't (?:create IB resources|allocate MR|read remote address"
    r"|get context for the device|allocate context|connect to \S)"
    r"|[Ff]ailed to (?:exchange data between server and clients|create (?:MR|mr)|negotiate parameters"
    r"|complete run_iter_\w+ function successfully|sync between server)"
    r"|Unable to (?:init the socket connection|set up socket connection|read to socket/rdma_cm"
    r"|Connect the HCA's through the link|create RDMA_CM resources)"
    r"|Error occurred while running|Problems with warm up"
    # A work completion that failed in the measurement loop (perftest_resources.c run_iter_*): the cause,
    # then `Failed to complete run_iter_bw function successfully` ends the run after the rows printed so far.
    r"|Completion with error at \S+|Failed status \d+)"
)
# The messages of a failure inside the measurement loop: printed after the rows of the sizes done, they
# end the sweep there. A sync failure after a complete table (`Failed to exchange data between server and
# clients`) does not.
MEASUREMENT_ERROR_RE = re.compile(r"Completion with error at|Failed status \d|Failed to complete run_iter_")
MAX_ERROR_LINES = 20
# Tests and rows held per file: `--run_infinitely` prints a row a second for as long as it runs, and a log
# concatenated with itself repeats its tests; past these the lines are read and counted, not held.
MAX_BLOCKS = 100
MAX_ROWS = 20_000
MAX_QUOTED_RUNS = 4
MIB_TO_GBIT = 1048576 * 8 / 1e9
# `-a` (`--all`) runs every size from 2 B to 2^23 B (perftest_parameters.h MAX_SIZE 8388608); a UD run stops
# at the MTU instead (perftest_communication.c check_mtu), and ib_atomic_* always sends 8 B.
ALL_SIZES_MAX_BYTES = 8388608

# `--force-link IB` / `--force-link=Ethernet` (perftest_parameters.c): the Link type line echoes it.
FORCE_LINK_RE = re.compile(r"--force-link[= ]\s*(IB|Ethernet|ETH)\b", re.IGNORECASE)
# rdma-core's udev names say the link layer: `rocep1s0f1` (RoCE), `ibp12s0` (InfiniBand).
DEVICE_NAME_LINK = (("roce", "Ethernet"), ("ibp", "InfiniBand"), ("ibs", "InfiniBand"))
# A bandwidth table row read from its trailing numbers: size, iterations, peak, average[, rate].
MIN_ROW_NUMBERS = 4
# A value wrapped in markdown emphasis by a paste: `**5544.28**`, `*920.13*` (linux-rdma/perftest issue #65).
EMPHASIS_RE = re.compile(r"^\*{1,2}([0-9][0-9.eE+-]{0,30})\*{1,2}$")


@dataclass
class _Block:
    test: str | None = None
    bidirectional: bool = False
    latency: bool = False
    fields: dict[str, Any] = field(default_factory=dict)
    unit: str | None = None
    headers: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    first_line: int = 0
    last_line: int = 0
    command_test: str | None = None
    duration_mode: bool = False
    latency_columns: list[str] = field(default_factory=list)
    # perftest's error messages, (line, text), in runs of consecutive lines: one run per failed process
    errors: list[list[tuple[int, str]]] = field(default_factory=list)
    error_count: int = 0
    error_run_open: bool = False
    # The line of the dashed rule after the last row read: the table closed, the sweep completed.
    closed_line: int = 0
    # `-a` / `--all` on the test's command line: a sweep of every size to ALL_SIZES_MAX_BYTES.
    all_sizes: bool = False
    # Rows whose values a paste wrapped in markdown emphasis (`**5544.28**`, an issue's bold figure).
    emphasis_lines: list[int] = field(default_factory=list)
    # `--force-link IB|Ethernet` on the command line: perftest then prints that as its `Link type`.
    forced_link: str | None = None
    # The table header sat behind a harness's log prefix (`... DEBUG| [stdout]  #bytes ...`): its rows
    # do too, and are read from their trailing numbers.
    prefixed: bool = False
    # The bandwidth header's columns: 5 with `MsgRate[Mpps]`, 4 without (a row behind a prefix keeps that many
    # trailing numbers, so a prefix ending in a number does not shift them).
    columns: int = 5
    # The device of the run being read (`Device : mlx5_4`): a run of the same test on another NIC, in the same
    # table, tags its rows with it (_per_device).
    device_now: str | None = None
    # perftest's server prints `* Waiting for client to connect... *` before its banner: the devices it then
    # names are servers', whose tables mirror their client's (one run, not another NIC's).
    awaiting_client: bool = False
    server_devices: set[str] = field(default_factory=set)


def _to_gbps(value: float | None, unit: str | None) -> float | None:
    if value is None:
        return None
    u = (unit or "").lower()
    if u.startswith("gb"):
        return value
    return round(value * MIB_TO_GBIT, 6)  # MB/sec and MiB/sec are both 2^20 B/s in perftest


def _read_command(block: _Block, line: str) -> None:
    """The command line names the test; `--run_infinitely` (or its notice) means duration mode."""
    m = COMMAND_RE.search(line)
    if m and block.command_test is None:
        block.command_test = f"ib_{m.group(1)}_{m.group(2)}"
    # the test's own arguments: up to a pipe, a redirection, the next command (`| tee -a log` is tee's) or
    # a shell comment (`# on RoCE ports add --force-link IB`)
    arguments = re.split(r"[|;&>#]", line[m.end() :], maxsplit=1)[0] if m else ""
    if {"-a", "--all"} & set(arguments.split()):
        block.all_sizes = True
    forced = FORCE_LINK_RE.search(arguments)
    if forced:
        block.forced_link = forced.group(1)
    if "--run_infinitely" in line or "BW peak won't be measured" in line:
        block.duration_mode = True


def _read_banner(block: _Block, line: str, line_no: int) -> bool:
    """`RDMA_Write BW Test`, `Send Bidirectional BW Test`, `RDMA_Read Lat Test`."""
    m = BANNER_RE.search(line)
    if not m:
        return False
    block.test = block.test or _banner_name(m)
    block.bidirectional = block.bidirectional or bool(m.group(2))
    block.latency = m.group("test").startswith("Lat")
    block.first_line = block.first_line or line_no
    return True


def _read_error(block: _Block, line: str, line_no: int) -> bool:
    """One of perftest's error messages (ERROR_RE), kept in runs of consecutive lines (one run per failed
    process), MAX_ERROR_LINES in all."""
    if not ERROR_RE.match(line):
        block.error_run_open = False
        return False
    if block.error_count < MAX_ERROR_LINES:
        if not block.error_run_open:
            block.errors.append([])
        block.errors[-1].append((line_no, line[:200]))
        block.error_count += 1
    block.error_run_open = True
    return True


def _latency_columns(header: str) -> list[str]:
    """Latency column names in print order: `t_min[usec] t_max[usec] t_typical[usec] t_avg[usec]
    t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]` (older perftest prints the first three
    only, `-D` runs `t_avg[usec]` alone)."""
    tokens = header.split()
    names = []
    for i, token in enumerate(tokens):
        if token.endswith("[usec]"):
            name = token[: -len("[usec]")]
            names.append(f"{tokens[i - 1]} {name}" if name == "percentile" and i else name)
    return names


def _read_table_header(block: _Block, line: str) -> bool:
    """The `#bytes #iterations ...` line gives the unit; a latency header makes it a latency test."""
    m = BW_HEADER_RE.search(line)
    if m:
        block.unit = m.group(2)
        block.headers += 1
        block.prefixed = block.prefixed or bool(strip_launcher_prefix(line[: m.start()]).strip(" \t>"))
        block.columns = 5 if "MsgRate" in line[m.end() :] else 4
        return True
    if LAT_HEADER_RE.search(line):
        block.latency = True
        block.headers += 1
        block.unit = "usec"
        block.latency_columns = _latency_columns(line)
        return True
    return False


def _table_row(block: _Block, line: str, line_no: int) -> dict[str, Any] | None:
    """`size iterations value...` with every value a number, or None."""
    tokens = strip_launcher_prefix(line).split()
    bare = [EMPHASIS_RE.sub(r"\1", t) for t in tokens]
    emphasis = bare != tokens
    tokens = bare
    if block.prefixed and not block.latency and tokens and to_int(tokens[0]) is None:
        tokens = _trailing_numbers(tokens, block.columns)
    if len(tokens) < 4 or to_int(tokens[0]) is None or to_int(tokens[1]) is None:
        return None
    values = [to_float(t) for t in tokens[2:]]
    if any(v is None for v in values):
        return None
    nums = [v for v in values if v is not None]
    size = to_int(tokens[0]) or 0
    if emphasis:
        block.emphasis_lines.append(line_no)
    if block.latency:
        named = dict(zip(block.latency_columns, nums, strict=False))
        return {
            "size_bytes": size,
            "iterations": to_int(tokens[1]),
            "values_usec": nums,
            "t_typical_usec": named.get("t_typical"),
            "t_avg_usec": named.get("t_avg"),
            "line": line_no,
        }
    if len(nums) < 2:
        return None
    return {
        "size_bytes": size,
        "iterations": to_int(tokens[1]),
        "bw_peak_gbps": _to_gbps(nums[0], block.unit),
        "bw_average_gbps": _to_gbps(nums[1], block.unit),
        "msg_rate_mpps": nums[2] if len(nums) > 2 else None,
        "line": line_no,
    }


def _trailing_numbers(tokens: list[str], columns: int) -> list[str]:
    """The last `columns` numbers of a line behind a log prefix (`... DEBUG| [stdout]  1024 1000 0.00 1476.74
    1.512181`; a prefix ending in a number, `... perftest 4321  1024 ...`, is not taken), when the line ends
    with that many; else no tokens."""
    start = len(tokens)
    while start > 0 and to_float(tokens[start - 1]) is not None:
        start -= 1
    return tokens[-columns:] if len(tokens) - start >= max(columns, MIN_ROW_NUMBERS) else []


def _starts_other_test(block: _Block, line: str) -> bool:
    """A command line or banner naming another test than the one whose rows were read: a new run (a
    file holding `ib_send_bw`, then `ib_send_lat`, then `ib_read_bw`). Runs of the same test stay one
    table (server and client, or repeats: sizes repeat and the figures are medians). A test that printed its
    command or banner and no rows (it failed to connect) is ended too, so the next test's rows are not read
    under its name."""
    if not block.rows and block.command_test is None and not block.test:
        return False
    command = COMMAND_RE.search(line)
    if command and f"ib_{command.group(1)}_{command.group(2)}" != _test_name(block):
        return True
    banner = BANNER_RE.search(line)
    if banner and block.test:
        return _banner_name(banner) != block.test
    return False


def _banner_name(m: re.Match[str]) -> str:
    """The banner's words, one space apart: `RDMA_Write Post List BW Test`."""
    return " ".join(m.group(0).split())


def _read_blocks(text: Text) -> tuple[list[_Block], int, int]:
    """One pass over the lines: banner, settings (`Device`, `Link type`...), table header, rows; a
    new block for each other test. Also the tests past MAX_BLOCKS (read into a block that is not kept) and
    the rows read and not held (past MAX_ROWS, or in such a test)."""
    blocks = [_Block()]
    block = blocks[0]
    kept = skipped = dropped_tests = 0
    for no, raw in enumerate(text.lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if _starts_other_test(block, line):
            block = _Block()
            if len(blocks) < MAX_BLOCKS:
                blocks.append(block)
            else:
                dropped_tests += 1
        _read_command(block, line)
        if "Waiting for client" in line:
            block.awaiting_client = True
        if _read_error(block, line, no):
            continue
        if _read_banner(block, line, no):
            continue
        for key, pattern in FIELD_RES.items() if ":" in line else ():  # every field line is `Name : value`
            fm = pattern.search(line)
            if fm and key not in block.fields:
                block.fields[key] = fm.group(1)
            if fm and key == "device":
                block.device_now = fm.group(1)
                if block.awaiting_client:
                    block.server_devices.add(fm.group(1))
                block.awaiting_client = False
        if _read_table_header(block, line) or not block.headers:
            continue
        if block.rows and _is_rule(line, block.prefixed):
            block.closed_line = no
            continue
        row = _table_row(block, line, no)
        if row is not None and (kept >= MAX_ROWS or block is not blocks[-1]):
            skipped += 1
        elif row is not None:
            if block.device_now != block.fields.get("device"):
                row["device"] = block.device_now
            block.rows.append(row)
            block.last_line = no
            kept += 1
    return blocks, dropped_tests, skipped


def _is_rule(line: str, prefixed: bool = False) -> bool:
    """perftest's dashed rule (`-----...`), which closes the table after the last size (behind a harness's
    log prefix when the table's header was: its last word)."""
    rule = strip_launcher_prefix(line).strip()
    if prefixed and rule:
        rule = rule.split()[-1]
    return len(rule) >= 20 and not rule.strip("-")


def _without_interleaved_duplicates(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Server and client on one host print the same table; their lines interleave (superbench)."""
    seen: set[tuple[Any, ...]] = set()
    unique = []
    for row in rows:
        # Latency rows hold a list of values: compared as a tuple.
        # The device a row was read under is not part of it (a server's and its client's devices differ).
        dedupe_key = tuple(
            tuple(v) if isinstance(v, list) else v for k, v in row.items() if k not in ("line", "device")
        )
        if dedupe_key not in seen:
            seen.add(dedupe_key)
            unique.append(row)
    return unique


def _test_name(block: _Block) -> str | None:
    """The test the binary's banner names (`RDMA_Write Latency Test` -> ib_write_lat), else the command
    line's (a note's author may show one command and paste another test's output)."""
    if block.test:
        # `RDMA_Write_imm` (`--write_with_imm`) is ib_write_bw's
        kind = block.test.split()[0].lower().replace("rdma_", "").removesuffix("_imm")
        return f"ib_{kind}_{'lat' if block.latency else 'bw'}"
    return block.command_test


def _link_layer(block: _Block) -> str | None:
    """`Link type` as printed; when `--force-link` set it, perftest prints what was asked, so the port's
    own layer comes from its rdma-core name (`rocep...` RoCE, `ibp...` InfiniBand) or stays unknown."""
    names = {"ib": "InfiniBand", "ethernet": "Ethernet", "eth": "Ethernet"}
    link = block.fields.get("link_type")
    if block.forced_link and link and names.get(link.lower()) == names.get(block.forced_link.lower()):
        device = (block.fields.get("device") or "").lower()
        return next((layer for prefix, layer in DEVICE_NAME_LINK if device.startswith(prefix)), None)
    return names.get((link or "").lower(), link)


def _bandwidth_fields(rows: list[dict[str, Any]], duration_mode: bool) -> dict[str, Any]:
    averages = [r["bw_average_gbps"] for r in rows if r["bw_average_gbps"] is not None]
    peaks = [r["bw_peak_gbps"] for r in rows if r["bw_peak_gbps"]]
    max_size = max((r["size_bytes"] for r in rows), default=None)
    at_max = [r["bw_average_gbps"] for r in rows if r["size_bytes"] == max_size]
    # BW average is what compares with the line rate (FORMATS.md 4); peak_gbps is the best average
    # over sizes because BW peak reads 0.00 in duration mode.
    fields: dict[str, Any] = {
        "peak_gbps": round(max(averages), 3) if averages else None,
        "average_gbps": round(median(at_max) or 0.0, 3) if at_max else None,
        "bw_peak_column_max_gbps": round(max(peaks), 3) if peaks else None,
        "max_size_bytes": max_size,
    }
    if duration_mode and len(averages) > 1:
        lo, hi = min(averages), max(averages)
        fields["stability"] = {
            "intervals": len(averages),
            "min_gbps": round(lo, 3),
            "max_gbps": round(hi, 3),
            "spread_percent": round((hi - lo) / hi * 100, 2) if hi else None,
        }
    return fields


def _latency_fields(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Typical and average latency at the smallest size (the figure latency claims are about), the
    median over the rows of that size when the file holds several runs (server and client)."""
    smallest = min((r["size_bytes"] for r in rows), default=None)
    at_min = [r for r in rows if r["size_bytes"] == smallest]
    typical = [r["t_typical_usec"] for r in at_min if r.get("t_typical_usec") is not None]
    average = [r["t_avg_usec"] for r in at_min if r.get("t_avg_usec") is not None]
    return {
        "peak_gbps": None,
        "average_gbps": None,
        "latency_usec_at_min_size": rows[0]["values_usec"] if rows else None,
        "min_size_bytes": smallest,
        "latency_typical_usec": median(typical) if typical else None,
        "latency_avg_usec": median(average) if average else None,
    }


def _block_summary(block: _Block, warnings: list[str]) -> dict[str, Any]:
    rows = block.rows
    if block.headers >= 2 and not block.duration_mode:
        unique = _without_interleaved_duplicates(rows)
        if len(unique) < len(rows):
            warnings.append(
                ngettext(
                    "%(count)s duplicate row from interleaved server/client output",
                    "%(count)s duplicate rows from interleaved server/client output",
                    len(rows) - len(unique),
                    count=len(rows) - len(unique),
                )
            )
        rows = unique
    link_layer = _link_layer(block)
    summary: dict[str, Any] = {
        "test": _test_name(block),
        "banner": block.test,
        "bidirectional": block.bidirectional,
        "device": block.fields.get("device"),
        "link_layer": link_layer,
        "transport": block.fields.get("transport"),
        "connection": block.fields.get("connection"),
        "qps": to_int(block.fields.get("qps", "") or ""),
        "mtu": to_int(block.fields.get("mtu", "") or ""),
        "gid_index": to_int(block.fields.get("gid_index", "") or ""),
        "unit_reported": block.unit,
        "duration_mode": block.duration_mode,
        "rows": len(rows),
        "size_rows": rows[:5000],
        "first_line": block.first_line or (rows[0]["line"] if rows else None),
        "last_line": block.last_line or None,
        "latency": block.latency,
    }
    summary.update(_latency_fields(rows) if block.latency else _bandwidth_fields(rows, block.duration_mode))
    if not block.latency:
        _per_device(summary, rows, block, warnings)
    # perftest's error messages after the last row, before the table's closing rule: the sweep stopped
    # there (a completion error in the measurement loop). A failed run like a test with no rows, as
    # nccl-tests counts a run that aborted after some rows (DESIGN.md 7 `failed`); the rows read are kept.
    # After the closing rule the sweep was complete: an error then (a flushed work request at teardown)
    # is warned about, and the figures are judged.
    closed = block.closed_line > block.last_line
    after_rows = [run for run in block.errors if rows and run[0][0] > block.last_line]
    late = [
        run
        for run in after_rows
        if not (closed and run[0][0] > block.closed_line)
        and any(MEASUREMENT_ERROR_RE.match(text) for _no, text in run)
    ]
    summary["failed"] = not rows or bool(late)
    if after_rows and not late:
        summary["errors_after_results"] = {"line": after_rows[0][0][0], "text": after_rows[0][0][1]}
    if late:
        summary["failed_after_bytes"] = block.rows[-1]["size_bytes"]
        summary["failure_line"] = late[0][0][0]
    if block.errors:
        summary["error_lines"] = [{"line": no, "text": text} for run in block.errors for no, text in run]
    if block.errors and (late or not rows):
        # Each failed process's first message (the cause) and last (the step that failed).
        quoted = [
            run[0][1] if len(run) == 1 else f"{run[0][1]} … {run[-1][1]}" for run in late or block.errors
        ]
        more = "; …" if len(quoted) > MAX_QUOTED_RUNS else ""
        summary["failure_reason"] = "; ".join(quoted[:MAX_QUOTED_RUNS]) + more
    return summary


def _per_device(
    summary: dict[str, Any], rows: list[dict[str, Any]], block: _Block, warnings: list[str]
) -> None:
    """A test run on several NICs, one after another in one file (`for d in mlx5_0 ... mlx5_7; do
    ib_write_bw -d $d ...`): each device's rows are its own sweep, and a claim each NIC must meet is judged on
    the slowest, its figures the summary's, every device's in `per_device`. Before, the rows of all were one
    table and the summary named the first device with the median of their figures."""
    first = block.fields.get("device")
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for r in rows:
        device = r.get("device", first)
        # A server's table mirrors its client's: the clients' devices are the runs.
        if device not in block.server_devices:
            groups.setdefault(device, []).append(r)
    if len(groups) < 2:
        return
    each = {d: _bandwidth_fields(g, block.duration_mode) for d, g in groups.items()}
    measured = [d for d in each if each[d]["average_gbps"] is not None]
    if not measured:
        return
    slowest = min(measured, key=lambda d: each[d]["average_gbps"])
    summary.update(each[slowest])
    summary["device"] = slowest
    summary["per_device"] = [
        {"device": d, "average_gbps": f["average_gbps"], "peak_gbps": f["peak_gbps"], "rows": len(groups[d]),
         "first_line": groups[d][0]["line"]}
        for d, f in each.items()
    ]  # fmt: skip
    warnings.append(
        _(
            "%(test)s on %(count)s devices (%(each)s Gb/s average at the largest size): each is its own run, "
            "and the slowest, %(device)s, is the one judged",
            test=summary["test"] or "perftest",
            count=len(each),
            each=listed(
                [f"{d}: {f['average_gbps']}" for d, f in list(each.items())[:16]], more=len(each) > 16
            ),
            device=slowest,
        )
    )


# Per-test keys listed in `tests` when a file holds several tests.
TEST_KEYS = (
    "test",
    "unit_reported",
    "rows",
    "peak_gbps",
    "average_gbps",
    "max_size_bytes",
    "latency_typical_usec",
    "latency_avg_usec",
    "min_size_bytes",
    "failed",
    "first_line",
    "last_line",
)


# perftest's atomic tests always send 8-byte operations (their size is fixed; `-s`/`-a` do not apply).
ATOMIC_SIZE_BYTES = 8


def is_atomic(summary: dict[str, Any]) -> bool:
    """An ib_atomic_* test (command or `Atomic ...` banner): 8-byte atomic operations, a message rate.
    perftest fixes an atomic test's size at 8 B, so a block with larger rows is another test's sweep that
    landed under an atomic test's name (an atomic run that failed before its rows, then the next test)."""
    named = str(summary.get("test") or "").startswith("ib_atomic") or str(
        summary.get("banner") or ""
    ).startswith("Atomic")
    return named and (summary.get("max_size_bytes") or 0) <= ATOMIC_SIZE_BYTES


def _chosen_summary(summaries: list[dict[str, Any]]) -> int:
    """The summary is the first bandwidth test (what NIC claims are compared with), never an atomic test
    when another bandwidth test has rows (ib_atomic_bw's 8 B rows are a message rate, not a link's
    bandwidth), else the first bandwidth test, else the first."""
    bandwidth = [i for i, s in enumerate(summaries) if not s["latency"] and s["rows"]]
    return next((i for i in bandwidth if not is_atomic(summaries[i])), bandwidth[0] if bandwidth else 0)


def _sweep_warnings(summary: dict[str, Any], block: _Block) -> list[str]:
    """What the figures of the summary's test do not cover: an atomic test's rate, a table cut before its
    closing rule, an `-a` sweep that stops before its last size."""
    out: list[str] = []
    if not summary["rows"] or summary["latency"] or summary["failed"]:
        return out
    if is_atomic(summary):
        out.append(
            _(
                "%(test)s measures the rate of 8-byte atomic operations (a message rate), not link "
                "bandwidth: its Gb/s is not the port's bandwidth",
                test=summary["test"],
            )
        )
        return out
    last = block.rows[-1]
    max_size = summary.get("max_size_bytes") or 0
    # Rows and no closing rule after them: the output was cut (by its author, or the run was stopped). Larger
    # sizes can be missing only from a sweep that had more to run: not from a complete `-a` sweep, nor from a
    # table of one size (`-s`, or perftest's default), of which only the rule is missing.
    complete = block.all_sizes and max_size >= ALL_SIZES_MAX_BYTES
    if block.closed_line <= block.last_line and not block.duration_mode and not complete:
        one_size = len({row["size_bytes"] for row in block.rows}) == 1 and not block.all_sizes
        if one_size:
            out.append(
                _(
                    "the perftest table has no closing dashed rule after its %(size)s B row (line %(line)s): "
                    "the output may have been cut there",
                    size=last["size_bytes"],
                    line=last["line"],
                )
            )
        else:
            out.append(
                _(
                    "the perftest table ends at its %(size)s B row (line %(line)s) without its closing "
                    "dashed rule: the output was cut there, so larger sizes may be missing",
                    size=last["size_bytes"],
                    line=last["line"],
                )
            )
    if block.all_sizes and max_size < ALL_SIZES_MAX_BYTES and summary.get("connection") != "UD":
        out.append(
            _(
                "`-a` runs every size from 2 B to %(end)s B (8 MiB), but the sweep stops at %(size)s B: the "
                "figures are not the full sweep's",
                end=ALL_SIZES_MAX_BYTES,
                size=max_size,
            )
        )
    return out


def parse_perftest(text: Text) -> ParseResult:
    result = ParseResult(kind="perftest")
    read, dropped_tests, skipped = _read_blocks(text)
    blocks = [b for b in read if b.test or b.rows or b.headers or b.errors] or [_Block()]
    result.note_skipped(len(read), dropped_tests, sum(len(b.rows) for b in read), skipped)
    summaries = [_block_summary(b, result.warnings) for b in blocks]
    chosen = _chosen_summary(summaries)
    summary, block = summaries[chosen], blocks[chosen]
    if len(summaries) > 1:
        summary["tests"] = [{k: s.get(k) for k in TEST_KEYS} for s in summaries]
        result.warnings.append(
            _(
                "%(count)s perftest tests in one file (%(tests)s): the summary is %(test)s; each test's "
                "figures are listed under “Tests in the file”",
                count=len(summaries),
                tests=listed(s["test"] for s in summaries),
                test=summary["test"],
            )
        )
    if block.bidirectional and not block.latency:
        result.warnings.append(_("bidirectional test: the figures are the sum of both directions"))
    if summary.get("failed_after_bytes") is not None:
        result.warnings.append(
            _(
                "perftest failed after its %(size)s B row (line %(line)s): %(errors)s; the sweep stopped "
                "there, so the run is failed and its figures are not a complete sweep",
                size=summary["failed_after_bytes"],
                line=summary["failure_line"],
                errors=summary["failure_reason"],
            )
        )
    elif summary.get("failure_reason"):
        result.warnings.append(
            _(
                "perftest failed before printing results (line %(line)s): %(errors)s",
                line=block.errors[0][0][0],
                errors=summary["failure_reason"],
            )
        )
    elif not summary["rows"] and block.test:
        result.warnings.append(_("perftest banner found but no result rows (run cut or failed)"))
    elif not summary["rows"]:
        result.warnings.append(_("perftest table header found but no result rows (run cut or failed)"))
    if block.emphasis_lines:
        result.warnings.append(
            ngettext(
                "markdown emphasis (*) around the values of %(count)s row (first: line %(line)s), as in a "
                "pasted issue: removed and the numbers read",
                "markdown emphasis (*) around the values of %(count)s rows (first: line %(line)s), as in a "
                "pasted issue: removed and the numbers read",
                len(block.emphasis_lines),
                count=len(block.emphasis_lines),
                line=block.emphasis_lines[0],
            )
        )
    if summary.get("errors_after_results"):
        result.warnings.append(
            _(
                "perftest printed errors after its results (line %(line)s: %(error)s); they did not stop the "
                "sweep, so the figures are judged",
                line=summary["errors_after_results"]["line"],
                error=summary["errors_after_results"]["text"],
            )
        )
    result.warnings.extend(_sweep_warnings(summary, block))
    if block.forced_link and block.fields.get("link_type"):
        result.warnings.append(
            _(
                "`Link type : %(printed)s` echoes `--force-link %(forced)s` on the command line, not the "
                "port: the link layer is taken from the device name (%(device)s), else unknown",
                printed=block.fields["link_type"],
                forced=block.forced_link,
                device=block.fields.get("device") or "?",
            )
        )
    elif summary["link_layer"] is None:
        result.warnings.append(_("no `Link type` line: link layer unknown"))
    result.summary = summary
    return result
