"""Reports of several hosts run through pdsh, clush or srun: each line carries its host's name, and the
hosts' lines interleave as they arrive.

`pdsh -w gpu[01-16] ibstat`, `clush -w gpu[01-16] nvidia-smi topo -m` and `srun -N 16 -l ibdev2netdev` put
the host (pdsh, clush: `gpu01: `) or the task (srun `-l`: `3: `) in front of every line, and print each
host's lines as they come, so two hosts' listings can interleave line by line. Read as one listing, the
prefixes hide every tool's signature (nothing was recognised) and, stripped, the hosts' ports and GPUs
would merge into one node's. `dshbak` (pdsh's own companion) shows the way back: each host's lines
together, under its name. `by_host` does that for the report kinds whose readers split a file by host
(text.line_host): each host's lines, prefix taken off, after a line naming it, in the order the hosts first
print; the readers then list each port or GPU with its host and judge the per-node claims host by host.

Training and benchmark logs are not regrouped: their readers take one rank's lines from such files
(training.py, the nccl readers), and their line order is time.
"""

from __future__ import annotations

import re

from hardware.messages import Msg, _, listed

from .text import (
    SRUN_LABEL_RE,
    WRAPPER_HOST_RE,
    WRAPPER_SHARE,
    WRAPPER_SNIFF_LINES,
    Text,
    host_like,
    is_label_wrapper,
    line_blocks,
)

# The line put before each host's lines: a shell prompt on that host, which text.line_host reads.
HOST_HEADER = "host@{host}:~$"
# What pdsh, clush and srun print of their own about a host they could not run the command on:
# `pdsh@login01: gpu03: ssh exited with exit code 255`, `pdsh@login01: gpu03: connect: Connection refused`,
# `clush: gpu03: exited with exit code 255`, `srun: error: gpu03: task 2: Exited with exit code 1`. Bounded
# repeats only.
LAUNCHER_ERROR_RE = re.compile(
    r"^(?:pdsh@[\w.-]{1,64}: |clush: |srun: error: )([A-Za-z0-9][\w.-]{0,63}): (.{1,200})$"
)
# Hosts named one by one in a note; the rest as `…`.
MAX_HOSTS_NAMED = 16


def host_label(lines: list[str]) -> re.Pattern[str] | None:
    """The prefix that names each line's host in `lines` (the head of a file: WRAPPER_SHARE of its first
    WRAPPER_SNIFF_LINES non-empty lines carry one): srun `-l` task numbers or pdsh / clush host names
    (text.WRAPPER_HOST_RE; every name holds a digit, a hyphen or a dot, as cluster host names do and the
    words tools print at a line's start do not); None otherwise. One name in the whole head is enough: the
    hosts after it are found by reading on (by_host)."""
    head = [line for line in lines if line.strip()][:WRAPPER_SNIFF_LINES]
    if len(head) < 2:
        return None
    for pattern, named in ((SRUN_LABEL_RE, False), (WRAPPER_HOST_RE, True)):
        names = [m.group(1) for line in head if (m := pattern.match(line))]
        if len(names) < WRAPPER_SHARE * len(head):
            continue
        if named and not all(host_like(name) for name in set(names)):
            continue
        return pattern
    return None


def named_list(names: list[str]) -> Msg:
    """Hosts as a note lists them: the first MAX_HOSTS_NAMED, then `…`."""
    return listed(names[:MAX_HOSTS_NAMED], more=len(names) > MAX_HOSTS_NAMED)


def skipped_note(read: int, dropped: int) -> Msg:
    """The note of a file read to its first `read` lines, as a report is (parsers.MAX_REPORT_LINES)."""
    return _(
        "only the first %(read)s lines were read; %(dropped)s more lines in the file were skipped (split the "
        "report to read them)",
        read=read,
        dropped=dropped,
    )


def regroup(text: Text, limit: int) -> Text | None:
    """The text read host by host (by_host), else under its dshbak, `clush -b` or Ansible headers
    (dshbak_sections); None when it is neither. The file's head is read once for both."""
    head = text.lines[: WRAPPER_SNIFF_LINES * 4]
    return by_host(text, limit, head) or dshbak_sections(text, limit, head[:DSHBAK_HEAD_LINES])


def by_host(text: Text, limit: int, head: list[str] | None = None) -> Text | None:
    """The text's first `limit` lines regrouped by host (module docstring), with a note saying so; None when
    its lines do not each name a host (host_label) or name only one. Lines that name no host (pdsh's own
    `pdsh@login: gpu03: ssh exited with exit code 255`) come first, in their order. Memory: the `limit`
    lines, as the report readers hold them. `head`: the text's first lines when the caller has read them."""
    if text.rewrap is not None:
        # one host's name or label was taken off every line from the head's: read the lines with it on
        text, head = text.rewrap(tuple(w for w in text.wrappers if not is_label_wrapper(w))), None
    label = host_label(text.lines[: WRAPPER_SNIFF_LINES * 4] if head is None else head)
    if label is None:
        return None
    unnamed: list[str] = []
    hosts: dict[str, list[str]] = {}
    read = skipped = 0
    for block in line_blocks(text.lines):
        for line in block:
            if read >= limit:
                skipped += 1
                continue
            read += 1
            m = label.match(line)
            if m is None or (label is WRAPPER_HOST_RE and not host_like(m.group(1))):
                unnamed.append(line)
                continue
            host = m.group(1) if label is WRAPPER_HOST_RE else f"task-{int(m.group(1))}"
            hosts.setdefault(host, []).append(line[m.end() :])
    if len(hosts) < 2:  # one host's lines (its prefix already taken off as a wrapper, or a few left)
        return None
    failed = {m.group(1): m.group(2) for line in unnamed if (m := LAUNCHER_ERROR_RE.match(line))}
    out = unnamed
    for host, lines in hosts.items():
        out.append(HOST_HEADER.format(host=host))
        out.extend(lines)
    named = named_list(list(hosts))
    notes = [
        _(
            "each line carries its host's name (pdsh or clush) and %(count)s hosts' lines were read host by "
            "host (%(hosts)s), each host's after a line naming it, as dshbak groups them: line numbers count "
            "the lines in that order",
            count=len(hosts),
            hosts=named,
        )
        if label is WRAPPER_HOST_RE
        else _(
            "each line carries the number of the srun task that printed it (srun -l) and %(count)s tasks' "
            "lines were read task by task (%(hosts)s; a task per node, its report each node's), each task's "
            "after a line naming it: line numbers count the lines in that order",
            count=len(hosts),
            hosts=named,
        )
    ]
    if failed:
        notes.append(
            _(
                "the launcher could not run the command on %(hosts)s (%(why)s): no output of theirs is in "
                "the file, so they are not judged",
                hosts=named_list(list(failed)),
                why=next(iter(failed.values())),
            )
        )
    if skipped:
        notes.append(skipped_note(limit, skipped))
    return Text(lines=out, truncated_lines=text.cut_lines(), notes=[*text.notes, *notes])


# `dshbak` (pdsh's companion) and `clush -b` print each host's lines, or the lines several hosts printed
# alike (`dshbak -c`, `clush -b`), under a header of three lines: a rule, the host or hosts, a rule.
#   ----------------            ---------------
#   gpu-node-01                 gpu-node-[01-02,05] (3)
#   ----------------            ---------------
DSHBAK_RULE_RE = re.compile(r"^-{10,40}$")
DSHBAK_HOSTS_RE = re.compile(
    r"^([A-Za-z0-9][\w.\-]{0,63}(?:\[[\d,\-]{1,64}\][\w.\-]{0,32})?(?:,[\w.\-\[\],]{1,256})?)"
    r"(?: \((\d{1,6})\))?$"
)
# Ansible's ad-hoc output (`ansible gpu -m shell -a "nvidia-smi topo -m"`): a line naming the host and how
# the command went before its output: `gpu-node-01 | CHANGED | rc=0 >>`, `| SUCCESS | rc=0 >>`,
# `| FAILED | rc=1 >>`, `gpu-node-03 | UNREACHABLE! => {` (JSON follows), `| FAILED! => {`.
ANSIBLE_HEADER_RE = re.compile(
    r"^([A-Za-z0-9][\w.\-]{0,63}) \| (CHANGED|SUCCESS|FAILED!?|UNREACHABLE!) "
    r"(?:\| rc=(-?\d{1,4}) >>|=> \{)\s*$"
)
# The first host of a pdsh host list: `gpu-node-[01-02,05]` -> `gpu-node-01`.
FIRST_OF_RANGE_RE = re.compile(r"\[(\d+)[^\]]*\]")


# dshbak and `clush -b` print a header first: one is looked for in this many lines of the head (a command
# line or a prompt may come before it), so that other files pay no pass over their lines.
DSHBAK_HEAD_LINES = 20


def _opens_with_header(head: list[str]) -> bool:
    return any(
        DSHBAK_RULE_RE.match(head[i])
        and DSHBAK_RULE_RE.match(head[i + 2])
        and DSHBAK_HOSTS_RE.match(head[i + 1])
        for i in range(len(head) - 2)
    )


def _ansible_header(line: str) -> tuple[str, bool] | None:
    """(host, whether the command failed there) of an Ansible ad-hoc header line (ANSIBLE_HEADER_RE)."""
    m = ANSIBLE_HEADER_RE.match(line)
    if m is None:
        return None
    return m.group(1), not m.group(2).startswith(("CHANGED", "SUCCESS")) or (m.group(3) or "0") != "0"


def dshbak_sections(text: Text, limit: int, head: list[str] | None = None) -> Text | None:
    """The text's first `limit` lines with each dshbak / `clush -b` header's host line, or each Ansible
    ad-hoc header (ANSIBLE_HEADER_RE), turned into a line naming the host (HOST_HEADER), so the readers split
    the file by host; the same number of lines, so line numbers stand. A header of several hosts
    (`gpu-node-[01-02] (2)`: their output alike) is read as one listing under the first of them, and the note
    says so; a host Ansible reports failed or unreachable is named. None when the head shows no header
    (DSHBAK_HEAD_LINES) or the file holds fewer than two."""
    head = [line.strip() for line in (text.lines[:DSHBAK_HEAD_LINES] if head is None else head)]
    ansible = any(_ansible_header(line) for line in head)
    if not ansible and not _opens_with_header(head):
        return None
    lines: list[str] = []
    headers: list[tuple[str, str, bool]] = []  # (what the header says, the host read, several hosts)
    failed: list[str] = []  # hosts Ansible reports the command failed on, or unreachable
    skipped = 0
    for block in line_blocks(text.lines):
        for line in block:
            if len(lines) >= limit:
                skipped += 1
                continue
            lines.append(line)
            n = len(lines)
            said = _ansible_header(line) if ansible and " | " in line else None
            if said is not None:
                headers.append((said[0], said[0], False))
                failed += [said[0]] if said[1] else []
                lines[n - 1] = HOST_HEADER.format(host=said[0])
            elif n >= 3 and DSHBAK_RULE_RE.match(line) and DSHBAK_RULE_RE.match(lines[n - 3]):
                m = DSHBAK_HOSTS_RE.match(lines[n - 2].strip())
                if m:
                    named, alike = m.group(1), int(m.group(2) or 1)
                    host = FIRST_OF_RANGE_RE.sub(lambda r: r.group(1), named).split(",")[0]
                    several = alike > 1 or "," in named or "[" in named
                    headers.append((lines[n - 2].strip(), host, several))
                    lines[n - 2] = HOST_HEADER.format(host=host)
    if len(headers) < 2:
        return None
    sets = [said for said, _host, several in headers if several]
    shown = named_list([h[0] for h in headers])
    notes = [
        _(
            "%(count)s hosts' output under Ansible headers (%(hosts)s): read host by host",
            count=len(headers),
            hosts=shown,
        )
        if ansible
        else _(
            "%(count)s listings under dshbak or clush -b headers (%(hosts)s): read host by host",
            count=len(headers),
            hosts=shown,
        )
    ]
    if failed:
        notes.append(
            _(
                "Ansible reports the command failed or the host unreachable on %(hosts)s: what follows their "
                "header is not the tool's output, and they are not judged",
                hosts=named_list(failed),
            )
        )
    if sets:
        notes.append(
            _(
                "a header names several hosts whose output was the same (%(sets)s): each such listing is "
                "read once, under the first host it names",
                sets=named_list(sets),
            )
        )
    if skipped:
        notes.append(skipped_note(limit, skipped))
    return Text(lines=lines, truncated_lines=text.cut_lines(), notes=[*text.notes, *notes])
