"""nccl-tests and rccl-tests logs (benchlogs/FORMATS.md sections 1 and 2).

The table is read by tokens from the end of each row (two groups of time/algbw/busbw/#wrong, one
for in-place-only `-O 0`), never by character columns, because widths changed between versions and
wide numbers overflow their columns. A row is only a row when its first two tokens (after launcher
prefixes) are integers and what lies between them and the measurement groups looks like
`type [redop] [root]`; that single rule rejects split rows, NCCL INFO tables and other noise.

Three stages, one module each:
- reading.py: what one line says (version, header, Rank line, row, footer, failure, command line);
- assembly.py: which run (one test / table) each line belongs to;
- summary.py: each run as a `runs` entry of DESIGN.md section 7, with its warnings; figures.py reads the
  bandwidth figures off the rows (per data type and op when a run sweeps several, `-d all`), listing.py
  what the Rank lines say when they are not one line per rank (a cut listing, processes all `Rank 0`).
The assembly reads a block of lines at a time: blocks.py finds the lines of the usual kinds (Rank
lines, rows, debug lines that hold nothing) in one pass; every other line goes through the walk.
"""

from __future__ import annotations

from ..result import ParseResult
from ..text import Text, line_blocks
from .assembly import (
    ST_FOOTER,
    ST_HEADER,
    ST_NTHREAD,
    ST_RANKS,
    ST_ROWS,
    ST_STARTING,
    ST_VERSION,
    Run,
    RunAssembler,
)
from .reading import (
    ALGO_ENV_RE,
    AVG_RE,
    COLUMN_HEADER_RE,
    CONCLUDED_RE,
    CYCLE_RE,
    DEBUG_LINE_RE,
    FAILURE_RE,
    GPUS_ARG_RE,
    HEADER_FIELD_RE,
    KNOWN_COLLECTIVES,
    NCCL_VERSION_RE,
    NNODES_INFO_RE,
    NODES_IN_TEXT_RE,
    NP_ARG_RE,
    NTHREAD_RE,
    OOB_RE,
    PERF_BINARY_RE,
    RANK_RE,
    RCCL_TESTS_RE,
    RCCL_VERSION_RE,
    REDUCING_RE,
    RUNNING_TEST_RE,
    SEPARATOR_RE,
    STARTING_RE,
    STEP_RE,
    TIMESTAMP_DATE_RE,
    TIMESTAMP_TIME_RE,
    VERSION_RE,
    WORLD_SIZE_RE,
    Layout,
    Measurement,
    Row,
    count_rows,
    parse_row,
)
from .summary import REDUCTION_OPS, summarise_log, summarise_run

__all__ = [
    "ALGO_ENV_RE",
    "AVG_RE",
    "COLUMN_HEADER_RE",
    "CONCLUDED_RE",
    "CYCLE_RE",
    "DEBUG_LINE_RE",
    "FAILURE_RE",
    "GPUS_ARG_RE",
    "HEADER_FIELD_RE",
    "KNOWN_COLLECTIVES",
    "NCCL_VERSION_RE",
    "NNODES_INFO_RE",
    "NODES_IN_TEXT_RE",
    "NP_ARG_RE",
    "NTHREAD_RE",
    "OOB_RE",
    "PERF_BINARY_RE",
    "RANK_RE",
    "RCCL_TESTS_RE",
    "RCCL_VERSION_RE",
    "REDUCING_RE",
    "REDUCTION_OPS",
    "RUNNING_TEST_RE",
    "SEPARATOR_RE",
    "STARTING_RE",
    "STEP_RE",
    "ST_FOOTER",
    "ST_HEADER",
    "ST_NTHREAD",
    "ST_RANKS",
    "ST_ROWS",
    "ST_STARTING",
    "ST_VERSION",
    "TIMESTAMP_DATE_RE",
    "TIMESTAMP_TIME_RE",
    "VERSION_RE",
    "WORLD_SIZE_RE",
    "Layout",
    "Measurement",
    "Row",
    "Run",
    "RunAssembler",
    "count_rows",
    "parse_nccl",
    "parse_row",
    "summarise_log",
    "summarise_run",
]


def parse_nccl(text: Text) -> ParseResult:
    """An nccl-tests / rccl-tests log: every line read, grouped into runs, each run summarised."""
    assembler = RunAssembler()
    line_no = 1
    for lines in line_blocks(text.lines):
        assembler.feed_block(line_no, lines)
        line_no += len(lines)
    result = summarise_log(
        assembler.runs, assembler.tool, assembler.file_nccl_version, assembler.lookalike_line
    )
    result.note_skipped(
        len(assembler.runs), assembler.dropped_runs, assembler.kept_rows, assembler.dropped_rows
    )
    return result
