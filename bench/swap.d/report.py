"""bench/swap's report: what carried over each way, and how spur's output
of each call compares with Slurm's. Reads the run's folder (argv[1]):
measure.tsv, and PHASE/calls/NAME.{out,err,rc} with PHASE/ids for the
phases `slurm` and `spur`; writes the diffs to diff/NAME.diff."""

import difflib
import os
import re
import sys

OUT = sys.argv[1]


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return default


def measured():
    values = {}
    for line in read(f"{OUT}/measure.tsv").splitlines():
        key, _, value = line.partition("\t")
        values[key] = value.strip()
    return values


M = measured()


def m(key):
    return M.get(key, "n/a") or "(none)"


def calls(phase):
    """The phase's calls in order: name -> (user, command)."""
    out = {}
    for line in read(f"{OUT}/{phase}/calls.list").splitlines():
        name, user, command = line.split("\t", 2)
        out.setdefault(name, (user, command))
    return out


def job_ids(phase):
    """Raw job id -> a stable label (the Slurm run's id of the same job),
    from `squeue -o '%A %F %K %j'` (array tasks by their task id)."""
    rows = []
    for line in read(f"{OUT}/{phase}/calls/squeue_ids.out").splitlines():
        parts = line.split()
        if len(parts) == 4:
            rows.append(parts)
    return rows


def id_map():
    """spur's job ids -> Slurm's ids of the same jobs (same role and array
    task), so that the two texts can be compared."""
    def key(rows):
        return {(r[3], r[2] if r[2] not in ("N/A", "4294967294") else ""): r[0] for r in rows}

    slurm, spur = key(job_ids("slurm")), key(job_ids("spur"))
    out = {spur[k]: slurm[k] for k in spur if k in slurm}
    # array job ids too (the first task's %F)
    for rows_s, rows_p in [(job_ids("slurm"), job_ids("spur"))]:
        arr_s = {r[3]: r[1] for r in rows_s if r[2] not in ("N/A",)}
        arr_p = {r[3]: r[1] for r in rows_p if r[2] not in ("N/A",)}
        for name, a in arr_p.items():
            if name in arr_s:
                out.setdefault(a, arr_s[name])
    return out


ID_CONTEXT = re.compile(
    r"(?P<pre>JobId=|ArrayJobId=|afterok:|job |^\s*|-|\[)(?P<id>\d+)(?=[_.\s|()\]]|$)",
    re.M,
)
TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b")
DATE_LINE = re.compile(r"^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$", re.M)
DURATION = re.compile(r"(?<![\w:=])(\d+-)?(\d+:)?\d+:\d\d(?![\w:])")
VARYING = re.compile(r"\b(RunTime|CPULoad|FreeMem|LastSchedEval)=\S+")


def normalize(text, phase, name, ids):
    text = text.replace(f"{OUT}/work/{phase}", "<work>")
    if ids:
        text = ID_CONTEXT.sub(
            lambda mt: mt.group("pre") + ids.get(mt.group("id"), mt.group("id")), text
        )
    text = re.sub(r"swap (back )?to (spur|Slurm)", "<drain reason>", text)
    text = TIME.sub("<time>", text)
    text = DATE_LINE.sub("<date>", text)
    text = VARYING.sub(lambda mt: mt.group(1) + "=<varies>", text)
    if name.startswith("squeue"):
        text = DURATION.sub(lambda mt: "<t>".rjust(len(mt.group(0))), text)
    return text


KEY = re.compile(r"(?:^|\s)([A-Za-z][\w:/]*)=(\S*)")


def pairs(text):
    """key=value outputs (scontrol show): (key, value) in order."""
    return [kv for line in text.splitlines() for kv in KEY.findall(line)]


def field_names(command, header, count):
    """The names of a line's fields: the header's words, else those of
    the -o format (`%i|%j|...`), else their positions."""
    if header and len(header.split()) == count:
        return header.split()
    fmt = re.search(r"-o '?([^ ']+(?: [^ ']+)*)'?$", command)
    if fmt:
        parts = re.split(r"[| ]", fmt.group(1))
        if len(parts) == count:
            return parts
    return [f"#{i + 1}" for i in range(count)]


def differing_fields(command, a, b):
    """Which fields of two tables of the same shape differ (None when the
    shapes differ)."""
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return None
    headerless = not la or re.search(r" -\w*[hn]\b", command)
    header = None if headerless else la[0]
    names, differ = None, []
    for x, y in zip(la, lb):
        sep = "|" if "|" in x else None
        fx, fy = x.split(sep), y.split(sep)
        if len(fx) != len(fy):
            return None
        names = names or field_names(command, header, len(fx))
        if len(names) != len(fx):
            names = [f"#{i + 1}" for i in range(len(fx))]
        differ += [n for n, u, v in zip(names, fx, fy) if u != v and n not in differ]
    return differ


def verdict(name, command, a, b):
    """How two normalized outputs differ: (result, what differs)."""
    if sorted(a.splitlines()) == sorted(b.splitlines()):
        return "same rows, other order", ""
    pa, pb = pairs(a), pairs(b)
    if name.startswith("show_"):
        ka, kb = [k for k, _ in pa], [k for k, _ in pb]
        if ka == kb:
            keys = []
            for (k, u), (_, v) in zip(pa, pb):
                if u != v and k not in keys:
                    keys.append(k)
            return "values differ", ", ".join(keys)
        only_a = sorted(set(ka) - set(kb))
        only_b = sorted(set(kb) - set(ka))
        what = [f"only Slurm: {' '.join(only_a)}" if only_a else "",
                f"only spur: {' '.join(only_b)}" if only_b else ""]
        return "format differs", "; ".join(w for w in what if w) or "keys in another order"
    la, lb = a.splitlines(), b.splitlines()
    if la[:1] != lb[:1] and not re.search(r" -\w*[hn]\b", command) and not name.startswith("file_"):
        return "format differs", "headers differ"
    fields = differing_fields(command, a, b)
    if fields is None:
        return "format differs", f"{len(la)} vs {len(lb)} lines"
    if sorted(la) != sorted(lb) and fields:
        return "values differ", ", ".join(fields)
    return "values differ", ""


def compare():
    s_calls, p_calls = calls("slurm"), calls("spur")
    ids = id_map()
    os.makedirs(f"{OUT}/diff", exist_ok=True)
    rows = []
    for name, (user, command) in s_calls.items():
        shown = command.replace(f"{OUT}/work/slurm", "<work>")
        if name not in p_calls:
            rows.append((name, shown, "missing under spur", ""))
            continue
        got = {}
        for phase in ("slurm", "spur"):
            d = f"{OUT}/{phase}/calls/{name}"
            got[phase] = (read(d + ".out"), read(d + ".err"), read(d + ".rc").strip())
        (so, se, sr), (po, pe, pr) = got["slurm"], got["spur"]
        notes = []
        if sr != pr:
            notes.append(f"exit {sr} vs {pr}")
        if se != pe:
            notes.append("stderr differs")
        ns = normalize(so, "slurm", name, None)
        np_ = normalize(po, "spur", name, ids)
        if so == po:
            result = "identical"
        elif ns == np_:
            result = "same but ids/times"
        else:
            result, what = verdict(name, command, ns, np_)
            if what:
                notes.insert(0, what)
        if result != "identical" or notes:
            with open(f"{OUT}/diff/{name}.diff", "w") as f:
                f.writelines(
                    difflib.unified_diff(
                        so.splitlines(True), po.splitlines(True),
                        f"slurm/calls/{name}.out", f"spur/calls/{name}.out",
                    )
                )
                f.writelines(
                    difflib.unified_diff(
                        ns.splitlines(True), np_.splitlines(True),
                        f"slurm/{name} (normalized)", f"spur/{name} (normalized)",
                    )
                )
                if se or pe:
                    f.write(f"--- stderr (Slurm)\n{se}--- stderr (spur)\n{pe}")
        rows.append((name, shown, result, "; ".join(notes)))
    for name, (user, command) in p_calls.items():
        if name not in s_calls:
            rows.append((name, command, "only under spur", ""))
    return rows


def carry_table():
    slurm_long = f"Slurm's job {m('slurm.at_swap').split(':')[0]}"
    return [
        ("jobs running or pending at the swap",
         f"Slurm had {m('slurm.at_swap')}; spur's squeue -t all at its start lists "
         f"{m('spur.took_jobs')} jobs; scontrol show job of Slurm's running one: "
         f"{m('spur.show_slurm_job')}",
         f"spur had {m('spur.at_swap')}; Slurm's squeue -t all on return: {m('back.jobs')}; "
         f"spur's jobs in it: {m('back.spur_jobs_seen')}"),
        ("the running job's processes",
         f"{slurm_long} (slurmstepd, script): after slurmctld and slurmd stopped "
         f"{m('slurm.long_alive_after_stop')}, when spur stopped {m('slurm.long_alive_end_of_spur')}; "
         f"it wrote {m('slurm.long_ticks_under_spur')} ticks (one per 2 s) while spur ran",
         f"spur's (supervisor, script): after spur stopped {m('spur.long_alive_after_stop')}, "
         f"with Slurm back {m('back.spur_long_alive')}, at the end {m('stop.spur_long_at_end')} "
         "(ended by the bench)"),
        ("Slurm's running job, Slurm back", "",
         f"{m('back.long_state')}; {m('back.long_reconf')}; slurmctld: {m('back.long_log')}; "
         f"its first run's processes "
         f"{m('back.long_alive')}; then {m('back.long_later')}; ticks since the swap back "
         f"{m('back.long_ticks_since_back')}; after scancel {m('stop.slurm_long_after_scancel')} "
         "(then ended by the bench)"),
        ("Slurm's step sockets in SlurmdSpoolDir", "spur's agents keep their spool in the same folders",
         m("spool.slurm_step_socket")),
        ("Slurm's held job", "not in spur's squeue", f"still in Slurm's: {m('back.held_state')}"),
        ("job history (sacct -X rows)",
         f"Slurm had {m('slurm.sacct_rows')}; spur's sacct at its start: {m('spur.took_history')}",
         f"spur had {m('spur.sacct_rows')}; Slurm's on return: {m('back.sacct_rows')}, "
         f"spur's jobs among them: {m('back.spur_in_sacct')}"),
        ("accounts (sacctmgr stays Slurm's)",
         f"sacctmgr under spur (slurmdbd still up): {m('spur.sacctmgr')}; a job's account: "
         f"Slurm '{m('slurm.default_account')}', spur '{m('spur.default_account')}'",
         "unchanged: slurmdbd kept them"),
        ("sbatch -A research (an association)", m("spur.account_research"), m("back.account_research")),
        ("sbatch -A nosuch (no association)", m("spur.account_nosuch"), m("back.account_nosuch")),
        ("drain state",
         f"Slurm drained: {m('slurm.nodes')}; spur's nodes at its start: {m('spur.nodes')}",
         f"Slurm's nodes on return: {m('back.nodes')} (Slurm's own drain)"),
        ("job ids",
         f"Slurm's next would be {m('slurm.next_id')}; spur's first: {m('spur.first_id')}",
         f"spur's next would be {m('spur.next_id')}; Slurm's next: {m('back.next_id')}"),
        ("a new job after the swap", "ran: see the comparison below", m("back.next_job")),
        ("cluster key", m("key"), "removed again" if "created" in m("key") else "left as it was"),
        ("daemons' pid files (comm)",
         f"{m('spur.daemons')} (Slurm's: stop.sh stopped them in {m('slurm.stop_s')} s)",
         f"SIGTERM through them; each stopped in: {m('spur.stop_times')}"),
    ]


def wrap(text, width):
    words, lines, cur = text.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    return lines


def table(rows, widths):
    out = []
    for row in rows:
        cells = [wrap(str(c), w) for c, w in zip(row, widths)]
        for i in range(max(len(c) for c in cells)):
            out.append(
                " | ".join((c[i] if i < len(c) else "").ljust(w) for c, w in zip(cells, widths)).rstrip()
            )
    return "\n".join(out)


print(f"# bench/swap: Slurm {m('slurm.version').replace('slurm ', '')} -> spur -> Slurm on the same /etc/slurm")
print(f"# spur: {m('build')}")
print(f"# swap: sbatch is {m('names.commands')}")
print(f"# swap back: {m('names.removed')}")
print(f"# raw outputs in {OUT} (PHASE/calls, work/PHASE, diff/, log/); took {m('took')}")
print()
print("## what carries over")
print(table([("item", "Slurm -> spur", "spur -> Slurm"), ("----", "-------------", "-------------")] + carry_table(), [26, 50, 50]))
print()
print("## the same calls, Slurm's output beside spur's (diffs in diff/NAME.diff)")
rows = compare()
print(table([("call", "command", "result", "what differs"), ("----", "-------", "------", "------------")] + rows, [22, 40, 18, 46]))
counts = {}
for r in rows:
    counts[r[2]] = counts.get(r[2], 0) + 1
print()
print("summary: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
print("(identical: byte for byte; same but ids/times: equal once spur's job ids are mapped to")
print(" Slurm's ids of the same jobs and times, run times, loads and the work folder are masked;")
print(" same rows, other order: the same lines in another order; values differ: the same keys or")
print(" columns, those named differ; format differs: keys, headers or columns differ)")
