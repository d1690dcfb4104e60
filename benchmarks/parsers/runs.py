"""Several runs in one training log: the iteration counter going back.

A restart, a job resumed from an older checkpoint or two logs pasted one after the other (a torchtitan
notes page with a run at steps 117-130, then a fresh run from step 1: fixtures/real/torchtitan/) put the
lines of several runs in one file. Read as one run, the second run's iterations are merged with the first
one's (torchtitan, new step numbers) or dropped as reprints of them (Megatron, the same iteration numbers),
and its first interval is not left out as warm-up. Every training reader (Megatron, NeMo, torchtitan, the
DeepSpeed timer and step lines) keeps one `Runs` per counter and starts over where it goes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hardware.messages import listed, ngettext

# Earlier runs described one by one (first and last iteration, lines); past this they are only counted.
MAX_EARLIER_RUNS = 50


@dataclass
class Run:
    """One run's span in the log: its first and last iteration and the lines they were printed on."""

    first: int
    last: int
    first_line: int
    last_line: int

    def as_dict(self) -> dict[str, int]:
        return {
            "first_iteration": self.first,
            "last_iteration": self.last,
            "first_line": self.first_line,
            "last_line": self.last_line,
        }


@dataclass
class Runs:
    """The runs one iteration counter went through, the current (last) one and those before it."""

    current: Run | None = None
    # The smallest step between two iterations of the current run: the log interval.
    gap: int = 0
    # DeepSpeed before 0.7.x counts steps within an epoch (`0/40`): a new epoch starts the count again.
    epoch: int = 0
    earlier: list[Run] = field(default_factory=list)
    earlier_count: int = 0
    # The current run began with a line that said it was another launch (`relaunched`), not with the
    # counter going back.
    relaunched: bool = False

    def starts_new_run(self, iteration: int, printed: bool, epoch: int = 0) -> bool:
        """Whether `iteration` begins a new run: lower than the last one, and either not printed in this run
        (a fresh start) or lower than the last by more than one log interval (a resume from an earlier
        checkpoint). An iteration another rank printed already, one interval late at most, is neither:
        ranks print in step with each other, since every step waits for all of them."""
        run = self.current
        if run is None:
            return False
        if epoch != self.epoch:
            return epoch < self.epoch
        if iteration >= run.last:
            return False
        return not printed or iteration < run.last - self.gap

    def add(
        self, iteration: int, line_no: int, printed: bool = False, epoch: int = 0, relaunched: bool = False
    ) -> bool:
        """Count a printed iteration (`printed`: this run printed it already); True when it begins a new
        run, and the caller drops what it kept of the run before. `relaunched`: the line says so itself
        (Megatron's planned total, `iteration N/ M`, changed: another launch, whichever way N went)."""
        new = self.current is not None and relaunched or self.starts_new_run(iteration, printed, epoch)
        run = self.current
        if run is None or new:
            if run is not None:
                self.earlier_count += 1
                if len(self.earlier) < MAX_EARLIER_RUNS:
                    self.earlier.append(run)
            went_back = run is not None and iteration < run.last
            self.current = Run(iteration, iteration, line_no, line_no)
            self.gap, self.epoch = 0, epoch
            self.relaunched = new and not went_back
            return new
        if epoch != self.epoch:
            self.epoch, run.last = epoch, iteration
        elif iteration > run.last:
            step = iteration - run.last
            self.gap = min(self.gap, step) if self.gap else step
            run.last = iteration
        run.last_line = line_no
        return False

    @property
    def count(self) -> int:
        return self.earlier_count + (1 if self.current else 0)


def runs_fields(runs: Runs) -> tuple[dict[str, Any], list[str]]:
    """The runs of a log whose iteration counter went back (only the last is summarised): their spans and
    the warning that says so."""
    current = runs.current
    if runs.count < 2 or current is None:
        return {}, []
    earlier = listed(
        (f"{run.first}-{run.last}" for run in runs.earlier), more=runs.earlier_count > len(runs.earlier)
    )
    fields = {
        "runs_in_log": runs.count,
        "earlier_runs": [run.as_dict() for run in runs.earlier],
    }
    values = {
        "count": runs.count,
        "line": current.first_line,
        "first": current.first,
        "last": current.last,
        "earlier": earlier,
    }
    if runs.relaunched:
        warning = ngettext(
            "the log holds %(count)s runs (a new launch at line %(line)s: the planned total of iterations "
            "changes): only the last, iterations %(first)s-%(last)s, is summarised; the earlier run logged "
            "iterations %(earlier)s",
            "the log holds %(count)s runs (a new launch at line %(line)s: the planned total of iterations "
            "changes): only the last, iterations %(first)s-%(last)s, is summarised; the earlier runs logged "
            "iterations %(earlier)s",
            runs.count - 1,
            **values,
        )
    else:
        warning = ngettext(
            "the log holds %(count)s runs (the iteration counter goes back at line %(line)s): only the "
            "last, iterations %(first)s-%(last)s, is summarised; the earlier run logged iterations "
            "%(earlier)s",
            "the log holds %(count)s runs (the iteration counter goes back at line %(line)s): only the "
            "last, iterations %(first)s-%(last)s, is summarised; the earlier runs logged iterations "
            "%(earlier)s",
            runs.count - 1,
            **values,
        )
    return fields, [warning]
