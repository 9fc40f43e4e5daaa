#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Turns the JSON lines of a `make bench` run (bench_guest.sh) into
# results.json, results.md (numbers and ratios) and throughput.png (gnuplot).
"""Usage: report.py RESULTS-DIR OUT-DIR [--host-env FILE] [--suite-log FILE]
                 [--work DIR]   (gnuplot's data and script, default OUT-DIR)
                 [--targets FILE] (targets.md to link, default OUT-DIR's)
                 [--readme FILE]  (README whose bench-results block to fill)

RESULTS-DIR holds bench.jsonl (guest 0) and bench.g1.jsonl (guest 1), or a
pair/ directory with them. Missing phases, tests or files never stop the
report: their cells read "missing" with the reason where one is known.

BENCH_ROUNDS runs give every record a "round" (records without one, of
older runs, are round 1); each cell is the median of its rounds' values.
"""

import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

PHASES = ("raw", "tcp", "ours", "intree")
PHASE_TITLE = {"raw": "raw RDMA", "tcp": "TCP", "ours": "ours (AF_SMC)",
               "intree": "Linux net/smc 6.1"}
GIB = float(1 << 30)


def read_jsonl(path):
    out, bad = [], 0
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    out.append(json.loads(line))
                except ValueError:
                    bad += 1
    except OSError:
        pass
    return out, bad


def find_inputs(rdir):
    for d in (rdir, os.path.join(rdir, "pair")):
        if os.path.exists(os.path.join(d, "bench.jsonl")):
            return d
    return rdir


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v) else None


def cpu_seconds(rec):
    if not rec:
        return None
    j, hz = num(rec.get("cpu_busy_jiffies")), num(rec.get("user_hz")) or 100
    # no jiffies passed at all: /proc/stat was not read
    if j is None or not num(rec.get("cpu_total_jiffies")):
        return None
    return j / hz


def round_of(rec):
    """The record's round; records of runs before BENCH_ROUNDS are round 1."""
    r = rec.get("round", 1)
    return r if isinstance(r, int) and not isinstance(r, bool) and r > 0 \
        else 1


def median(vals):
    """Median of the values that are not None (even count: the mean of the
    middle two), None without any."""
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


# The host's pace (smc_bench -m pace, read by the client guest before and
# after each test): a run whose slowest round of a phase ran at PACE_SPREAD
# times the pace of its fastest (medians of each phase's tests in each
# round), or whose ours and net/smc medians differ by PACE_SIDES, gets a
# warning, as its ratios may be the host's more than the modules'.
PACE_SPREAD = 1.25
PACE_SIDES = 1.10


def record_pace(rec):
    """The host's pace around one measurement: the mean of the pace before
    and after it (ms, lower is faster); None if the record has none."""
    vals = [num(rec.get(k)) for k in ("pace0_ms", "pace1_ms")]
    vals = [v for v in vals if v]
    return sum(vals) / len(vals) if vals else None


def host_pace(d):
    """phase -> the median of its tests' paces (ms) and the medians of
    each round ("rounds": round -> ms)."""
    per = {}
    for (p, _test), rounds in d.client.items():
        for n, rec in rounds.items():
            v = record_pace(rec)
            if v is not None:
                per.setdefault(p, {}).setdefault(n, []).append(v)
    return {p: {"median": median([v for vs in rs.values() for v in vs]),
                "rounds": {n: median(vs) for n, vs in sorted(rs.items())}}
            for p, rs in per.items()}


def pace_text(pace):
    """The header line's phases: "raw RDMA 101 (rounds 98.0–120); ..."."""
    out = []
    for p in PHASES:
        if p not in pace:
            continue
        rs = list(pace[p]["rounds"].values())
        t = f"{PHASE_TITLE[p]} {fmt(pace[p]['median'])}"
        if len(rs) > 1:
            t += f" (rounds {fmt(min(rs))}–{fmt(max(rs))})"
        out.append(t)
    return "; ".join(out)


def pace_warning(pace):
    """A note when the host's speed moved enough to matter, else None."""
    rs = [v for p in pace.values() for v in p["rounds"].values()]
    if not rs:
        return None
    lo, hi = min(rs), max(rs)
    spread = hi / lo if lo else None
    sides = None
    if "ours" in pace and "intree" in pace and pace["intree"]["median"]:
        sides = pace["ours"]["median"] / pace["intree"]["median"]
    if (spread is None or spread < PACE_SPREAD) and \
            (sides is None or 1 / PACE_SIDES <= sides <= PACE_SIDES):
        return None
    text = (f"⚠ the host's speed changed during the run: the pace loop's "
            f"median per phase and round went from {fmt(lo)} to "
            f"{fmt(hi)} ms")
    if sides is not None:
        text += (f"; it was {fmt(pace['ours']['median'])} ms in the tests "
                 f"of ours and {fmt(pace['intree']['median'])} ms in those "
                 f"of net/smc ({sides:.2f}x)")
    return text + (": the ratios between phases carry that much of the "
                   "host, and targets met or missed may be the host's")


def metrics_text(ms):
    """Row names for a note: "CPU seconds per GiB, both guests: stream.b65536,
    stream.p4" when they share all but the test, else "a; b"."""
    heads = {m.rpartition(", ")[0] for m in ms}
    if len(ms) > 1 and len(heads) == 1 and "" not in heads:
        return heads.pop() + ": " + ", ".join(m.rpartition(", ")[2]
                                              for m in ms)
    return "; ".join(ms)


def rounds_text(rs):
    rs = sorted(rs)
    return ("round " if len(rs) == 1 else "rounds ") + \
        ", ".join(str(r) for r in rs)


class Data:
    def __init__(self, records):
        self.env = {}
        self.phase = {}       # phase -> round -> {"status", "reason"}
        self.client = {}      # (phase, test) -> round -> record of guest 0
        self.server = {}      # (phase, test) -> round -> record of guest 1
        seen = {1}
        for r in records:
            if r.get("type") == "env":
                self.env = r
                continue
            n = round_of(r)
            if r.get("type") == "phase":
                seen.add(n)
                p = r.get("phase")
                cur = self.phase.setdefault(p, {}).get(n)
                # a skip reported by either guest wins
                if cur is None or r.get("status") != "ok":
                    if cur is None or cur.get("status") == "ok":
                        self.phase[p][n] = {"status": r.get("status"),
                                            "reason": r.get("reason", "")}
            elif "phase" in r and "test" in r:
                seen.add(n)
                key = (r["phase"], r["test"])
                g = r.get("guest", 0)
                if r.get("state") == "closed":
                    continue
                (self.server if g == 1 else self.client).setdefault(
                    key, {})[n] = r
        # the rounds guest 0 meant to run; without its env line (it died
        # early) the highest round seen
        want = self.env.get("rounds")
        if not isinstance(want, int) or isinstance(want, bool) or want < 1:
            want = max(seen)
        self.rounds = max(want, max(seen))

    def ok_rounds(self, phase):
        return sorted(n for n, st in self.phase.get(phase, {}).items()
                      if st.get("status") == "ok")

    def usable(self, phase):
        """The phase ran in at least one round: its measurements count."""
        return bool(self.ok_rounds(phase))

    def status(self, phase):
        rounds = self.phase.get(phase)
        if not rounds:
            return "not run"
        ok = self.ok_rounds(phase)
        why = []
        for n in range(1, self.rounds + 1):
            st = rounds.get(n)
            if st is None:
                why.append((n, "not run"))
            elif st["status"] != "ok":
                why.append((n, "skipped: " + (st.get("reason") or "?")))
        if not why:
            return "ok"
        # each reason once, with its rounds unless it held in all
        by = {}
        for n, w in why:
            by.setdefault(w, []).append(n)
        text = "; ".join(w if len(ns) == self.rounds else
                         f"{w} ({rounds_text(ns)})" for w, ns in by.items())
        if not ok:
            return text
        return f"ok in {len(ok)} of {self.rounds} rounds: {text}"


def fmt(v, digits=None):
    if v is None:
        return "missing"
    if digits is None:
        digits = 0 if abs(v) >= 100 else (1 if abs(v) >= 10 else 2)
    return f"{v:,.{digits}f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def build_rows(d):
    """Rows: dict(metric, unit, better, tests{phase: test},
    values{phase: median}, samples{phase: {round: v}}, notes{phase: s},
    ratios{name: r}). A value of a round is None when its records do not
    give one; the median leaves those out."""
    # without guest 0's env line (it died early): the full run's lists
    env = d.env
    bufs = (env.get("bufs") or "65536 131072 524288 1048576").split()
    pars = (env.get("pars") or "4 16").split()
    sizes = (env.get("sizes") or "1 64 4096 65536").split()
    crrs = (env.get("crr") or "1 16").split()
    idle = env.get("idle_conns") or 100
    idle_buf = env.get("idle_buf")
    rows = []

    def note_for(phase, test, rec):
        notes = []
        if rec is None:
            return ["missing"]
        if rec.get("error"):
            notes.append("error: " + str(rec["error"])[:60])
        if num(rec.get("errors")):
            notes.append(f"{rec['errors']} errors")
        if num(rec.get("stuck")):
            notes.append(f"{rec['stuck']} stuck")
        if phase in ("ours", "intree"):
            if num(rec.get("fallbacks")):
                notes.append(f"{rec['fallbacks']} TCP fallbacks")
            pk = num(rec.get("rxe_pkts"))
            b = num(rec.get("bytes")) or 0
            if pk is not None and (pk == 0 or (b and pk < b / 4096 / 4)):
                notes.append(f"only {pk} RoCE packets: not SMC-R?")
        return notes

    def combine(per):
        """per: [(round, value, [notes])] -> median, {round: value}, notes
        (each once; with its rounds unless it held in all of them)."""
        samples = {n: num(v) for n, v, _ in per}
        seen = {}
        for n, _, ns in per:
            for x in ns:
                seen.setdefault(x, []).append(n)
        notes = [x if len(rs) == len(per) else f"{x} ({rounds_text(rs)})"
                 for x, rs in seen.items()]
        return median(samples.values()), samples, "; ".join(notes)

    def add(metric, unit, better, getter, tests):
        vals, samples, notes = {}, {}, {}
        for p in PHASES:
            t = tests.get(p)
            if t is None:
                continue
            cl, sv = d.client.get((p, t), {}), d.server.get((p, t), {})
            # the rounds the test ran in or should have: a record missing
            # in a round of an ok phase is noted
            per = []
            for n in sorted(set(cl) | set(d.ok_rounds(p))):
                rec = cl.get(n)
                v = getter(rec, sv.get(n)) if rec else None
                per.append((n, v, note_for(p, t, rec)))
            if not per:
                per = [(1, None, ["missing"])]
            vals[p], samples[p], n = combine(per)
            if n:
                notes[p] = n
        rows.append({"metric": metric, "unit": unit, "better": better,
                     "tests": tests, "values": vals, "samples": samples,
                     "notes": notes})

    sock = ("tcp", "ours", "intree")
    raw_bw = f"bw.s{65536}"
    for b in bufs:
        t = f"stream.b{b}"
        tests = {p: t for p in sock}
        tests["raw"] = raw_bw
        add(f"stream, 1 connection, SO_SNDBUF/SO_RCVBUF {size_txt(b)}",
            "Mbit/s", "higher", lambda c, s: c.get("mbit_per_s"), tests)
    for n in pars:
        t = f"stream.p{n}"
        tests = {p: t for p in sock}
        tests["raw"] = raw_bw
        conns = "1 connection" if n == "1" else f"{n} parallel connections"
        add(f"stream, {conns}, default buffers", "Mbit/s",
            "higher", lambda c, s: c.get("mbit_per_s"), tests)
    for s in sizes:
        tests = {p: f"rr.s{s}" for p in sock}
        tests["raw"] = f"lat.s{s}"
        for q in ("p50", "p99"):
            # perftest reports half the round trip: doubled to compare
            def get(c, srv, q=q):
                v = num(c.get(q + "_us"))
                if v is not None and c.get("mode") == "rdma_write_lat":
                    v *= 2
                return v
            add(f"request/response {s} B, {q} round trip", "us", "lower",
                get, tests)
    for n in crrs:
        add(f"connect + 1 B request/response + close, {n} client"
            f"{'s' if n != '1' else ''}", "conn/s", "higher",
            lambda c, s: c.get("conns_per_s"), {p: f"crr.c{n}" for p in sock})
    # where the serial client's connection time goes (smc_bench's parts)
    if "1" in crrs:
        for key, what in (("connect_p50_us", "connect()"),
                          ("xchg_p50_us", "the 1 B exchange"),
                          ("close_p50_us", "close()")):
            add(f"short connections, 1 client: {what}, p50", "us", "lower",
                lambda c, s, key=key: num(c.get(key)),
                {p: "crr.c1" for p in sock})

    def cpu_per_gib(c, s):
        b = num(c.get("bytes")) or 0
        c0, c1 = cpu_seconds(c), cpu_seconds(s)
        if not b or c0 is None or c1 is None:
            return None
        return (c0 + c1) / (b / GIB)

    def raw_cpu_per_gib(c, s):
        b = num(c.get("bytes_per_s"))
        w = num(c.get("wall_s"))
        c0, c1 = cpu_seconds(c), cpu_seconds(s)
        if not b or not w or c0 is None or c1 is None:
            return None
        # perftest moves bytes_per_s for about T s of the wall time
        return (c0 + c1) / (b * float(d.env.get("secs") or w) / GIB)

    for t in [f"stream.b{b}" for b in bufs] + [f"stream.p{n}" for n in pars]:
        tests = {p: t for p in sock}
        add(f"CPU seconds per GiB, both guests, {t}", "s/GiB", "lower",
            cpu_per_gib, tests)
        # raw: the perftest run of 64 KiB writes (busy-polling: an upper bound)
        cl = d.client.get(("raw", raw_bw), {})
        if cl:
            sv = d.server.get(("raw", raw_bw), {})
            v, smp, _ = combine([(n, raw_cpu_per_gib(rec, sv.get(n)), [])
                                 for n, rec in sorted(cl.items())])
            rows[-1]["values"]["raw"] = v
            rows[-1]["samples"]["raw"] = smp
            rows[-1]["tests"]["raw"] = raw_bw
            if v is not None:
                rows[-1]["notes"]["raw"] = "perftest busy-polls"

    # our data path's messages (debugfs counters of both guests)
    def cdc_per_mib(c, s):
        b = num(c.get("bytes")) or 0
        n0, n1 = num(c.get("cdc_tx")), num(s.get("cdc_tx")) if s else None
        if not b or n0 is None or n1 is None:
            return None
        return (n0 + n1) / (b / (1 << 20))

    for t in [f"stream.b{b}" for b in bufs] + [f"stream.p{n}" for n in pars]:
        add(f"CDC messages per MiB (ours, both guests), {t}", "msgs/MiB",
            "lower", cdc_per_mib, {"ours": t})

    def idle_value(rec):
        if not num(rec.get("conns")):
            return num(rec.get("kib_per_conn")), ["no connection opened"]
        if "free_delta_kib" not in rec:
            return None, ["no free-page figures in the record"]
        if not rec.get("free_delta_kib") and not rec.get("slab_delta_kib"):
            return None, ["no memory change seen: not measured?"]
        return num(rec.get("kib_per_conn")), []

    # measured in round 1 only: the rounds that have a record count; with
    # default buffers and at equal sizes (the modules' defaults may differ)
    idles = [(f"idle.k{idle}", "")] if idle else []
    if idle and idle_buf:
        idles.append((f"idle.k{idle}.b{idle_buf}",
                      f"SO_SNDBUF/SO_RCVBUF {size_txt(idle_buf)}, "))
    for t, bufs_txt in idles:
        for g, who in ((0, "client"), (1, "server")):
            vals, samples, notes, tests = {}, {}, {}, {}
            for p in sock:
                tests[p] = t
                recs = (d.client if g == 0 else d.server).get((p, t))
                if not recs:
                    continue
                vals[p], samples[p], n = combine(
                    [(r, *idle_value(rec)) for r, rec in sorted(recs.items())])
                if n:
                    notes[p] = n
            rows.append({"metric": f"memory per idle connection, {who} "
                         f"({bufs_txt}{idle} conns, free pages)", "unit": "KiB",
                         "better": "lower", "tests": tests, "values": vals,
                         "samples": samples, "notes": notes})
    for r in rows:
        v = r["values"]
        r["ratios"] = {"ours/tcp": ratio(v.get("ours"), v.get("tcp")),
                       "ours/raw": ratio(v.get("ours"), v.get("raw")),
                       "ours/net-smc": ratio(v.get("ours"), v.get("intree"))}
    return rows


def size_txt(b):
    """64 KiB, 1 MiB, ... of a byte count"""
    kib = int(b) // 1024
    return f"{kib // 1024} MiB" if kib % 1024 == 0 else f"{kib} KiB"


def find_row(rows, test, phase="ours", unit=None, prefix=None):
    for r in rows:
        if r["tests"].get(phase) == test and (unit is None or
                                              r["unit"] == unit) and \
                (prefix is None or r["metric"].startswith(prefix)):
            return r
    return None


def targets(rows):
    """The goals of the benchmark issue, evaluated on this run's medians:
    list of dict(target, value, goal, met) (met None when not measured)."""
    out = []

    def ratio_of(test, key, unit=None, prefix=None):
        r = find_row(rows, test, unit=unit, prefix=prefix)
        return r["ratios"].get(key) if r else None

    def value_of(test, phase, unit=None, prefix=None):
        r = find_row(rows, test, phase, unit, prefix)
        return r["values"].get(phase) if r else None

    def add(target, value, goal, higher=True):
        met = None if value is None else \
            (value >= goal if higher else value <= goal)
        out.append({"target": target, "value": value, "goal": goal,
                    "higher": higher, "met": met})

    # single stream with each module's default settings (stream.p1); runs
    # before it had none and measured 64 KiB, then both modules' default
    one, how = "stream.p1", "default settings"
    if not find_row(rows, one, unit="Mbit/s"):
        one, how = "stream.b65536", "default 64 KiB buffers"
    add(f"single stream, {how}: ours/raw RDMA >= 0.8",
        ratio_of(one, "ours/raw", "Mbit/s"), 0.8)
    add(f"single stream, {how}: ours/net-smc >= 1.4",
        ratio_of(one, "ours/net-smc", "Mbit/s"), 1.4)
    eq = [r["ratios"]["ours/net-smc"] for r in rows
          if r["unit"] == "Mbit/s" and
          str(r["tests"].get("ours", "")).startswith("stream.b") and
          r["ratios"]["ours/net-smc"] is not None]
    add("single stream at equal buffer sizes: ours/net-smc >= 1.2 at every "
        "size (the smallest ratio)", min(eq) if eq else None, 1.2)
    for n in ("4", "16"):
        add(f"{n} parallel streams: ours/raw RDMA >= 0.9",
            ratio_of(f"stream.p{n}", "ours/raw", "Mbit/s"), 0.9)
    add("64 B request/response p50: ours/net-smc <= 0.8",
        ratio_of("rr.s64", "ours/net-smc", "us", "request/response 64 B, p50"),
        0.8, higher=False)
    add("64 B request/response p99: ours/net-smc <= 1.0",
        ratio_of("rr.s64", "ours/net-smc", "us", "request/response 64 B, p99"),
        1.0, higher=False)
    add("connection setup, 16 clients: ours/net-smc >= 2",
        ratio_of("crr.c16", "ours/net-smc", "conn/s"), 2.0)
    c1, c16 = value_of("crr.c1", "ours", "conn/s"), \
        value_of("crr.c16", "ours", "conn/s")
    t1, t16 = value_of("crr.c1", "tcp", "conn/s"), \
        value_of("crr.c16", "tcp", "conn/s")
    tcp_scale = f" (TCP on the same guests: {t16 / t1:.2f}x)" \
        if t1 and t16 else ""
    add("connection setup, 16 clients vs 1: ours >= 3x our serial rate" +
        tcp_scale, c16 / c1 if c1 and c16 else None, 3.0)
    # at the same buffer sizes (the idle test with SO_SNDBUF/SO_RCVBUF),
    # else, for runs before it, with the default buffers
    for who in ("client", "server"):
        mem = [r for r in rows if r["metric"].startswith(
            f"memory per idle connection, {who}") and
            r["ratios"].get("ours/net-smc") is not None]
        eq = [r for r in mem if "SO_SNDBUF" in r["metric"]]
        r = (eq or mem or [None])[0]
        how = "at equal buffer sizes" if eq else "default buffers"
        add(f"memory per idle connection ({who}, {how}): ours/net-smc <= 1.0",
            r["ratios"].get("ours/net-smc") if r else None, 1.0,
            higher=False)
    return out


def md_targets(tl):
    out = ["| target | this run | met |", "|---|---:|:---:|"]
    for t in tl:
        v = "missing" if t["value"] is None else f"{t['value']:.2f}x"
        m = "—" if t["met"] is None else ("yes" if t["met"] else "**no**")
        out.append(f"| {t['target']} | {v} | {m} |")
    return out


def md_table(d, rows):
    head = ["metric", "unit"] + [PHASE_TITLE[p] for p in PHASES] + \
        ["ours/TCP", "ours/raw", "ours/net-smc"]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
    for r in rows:
        cells = [r["metric"], r["unit"] + (" ↑" if r["better"] == "higher"
                                          else " ↓")]
        for p in PHASES:
            if p not in r["tests"]:
                cells.append("—")
            elif not d.usable(p):
                cells.append("missing")
            else:
                v = r["values"].get(p)
                c = fmt(v)
                # the median, and the spread of the rounds when several
                xs = [x for x in r.get("samples", {}).get(p, {}).values()
                      if x is not None]
                if v is not None and len(xs) > 1:
                    c += f" ({fmt(min(xs))}–{fmt(max(xs))})"
                if r["notes"].get(p) and r["notes"][p] != "missing":
                    c += " ⚠"
                cells.append(c)
        for k in ("ours/tcp", "ours/raw", "ours/net-smc"):
            v = r["ratios"][k]
            cells.append("—" if v is None else f"{v:.2f}")
        out.append("| " + " | ".join(cells) + " |")
    return out


def plot(rows, outdir, work, title):
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot not installed (apt-get install gnuplot-nox)"
    stream = [r for r in rows if r["unit"] == "Mbit/s"]
    lat = [r for r in rows if r["unit"] == "us" and "p50" in r["metric"]]
    png = os.path.join(outdir, "throughput.png")
    gpfile = os.path.join(work, "throughput.gp")
    if not any(v is not None for r in stream + lat
               for v in r["values"].values()):
        # still a picture, so that the report's link is not dangling
        with open(gpfile, "w") as f:
            f.write(f"""set terminal png size 600,200
set output '{png}'
unset border
unset tics
set label 1 'no measurement to plot ({title})' at graph 0.5, 0.5 center
plot [0:1][0:1] NaN notitle
""")
        subprocess.run([gp, gpfile], capture_output=True, text=True)
        return "no measurement to plot"

    def dat(name, rs, label):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write("# label " + " ".join(PHASES) + "\n")
            for r in rs:
                vals = [r["values"].get(p) for p in PHASES]
                f.write('"%s" %s\n' % (label(r), " ".join(
                    "NaN" if v is None else "%.3f" % v for v in vals)))
        return path

    def slabel(r):
        m = r["metric"].replace("stream, ", "")
        m = m.replace("1 connection, SO_SNDBUF/SO_RCVBUF ", "1 conn ")
        m = m.replace("1 connection, default buffers", "1 conn default")
        return m.replace(" parallel connections, default buffers", " conns")

    def llabel(r):
        return r["metric"].split(",")[0].replace("request/response ", "")

    def measured(rs):
        return any(v is not None for r in rs for v in r["values"].values())

    cols = ", ".join("'FILE' using %d:xtic(1) title '%s'" % (i + 2, t)
                     for i, t in enumerate(PHASE_TITLE[p] for p in PHASES))
    # a panel only for what was measured (a run of some tests only, say):
    # gnuplot refuses a panel without a single value
    panels = []
    if measured(stream):
        panels.append(f"""set title 'Bulk throughput (Mbit/s, higher is better)'
set ylabel 'Mbit/s'
unset logscale y
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
plot {cols.replace('FILE', dat("throughput.dat", stream, slabel))}
""")
    if measured(lat):
        panels.append(f"""set title 'Request/response p50 round trip (us, lower is better; raw = 2 x ib_write_lat)'
set ylabel 'us'
set offsets 0, 0, 0, 0
set logscale y
set yrange [*:*]
plot {cols.replace('FILE', dat("latency.dat", lat, llabel))}
""")
    script = f"""
set terminal pngcairo size 1100,{450 * len(panels)} noenhanced font ',10'
set output '{png}'
set datafile missing 'NaN'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key top left
set grid ytics
set xtics rotate by -20
set multiplot layout {len(panels)},1 title '{title}'
{"".join(panels)}unset multiplot
"""
    with open(gpfile, "w") as f:
        f.write(script)
    r = subprocess.run([gp, gpfile], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png):
        # pngcairo may be missing: the plain png terminal then
        script = script.replace("pngcairo", "png")
        with open(gpfile, "w") as f:
            f.write(script)
        r = subprocess.run([gp, gpfile], capture_output=True, text=True)
        if r.returncode != 0:
            return "gnuplot failed: " + r.stderr.strip()[-300:]
    return None


README_BEGIN = "<!-- bench-results:begin (tools/testing/bench/report.py) -->"
README_END = "<!-- bench-results:end -->"


def readme_update(path, outdir, date, envline, git, quick, rounds, table,
                  warn=None):
    """Replace the README's block between the bench-results markers."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        print(f"report: README not updated: {e}", file=sys.stderr)
        return
    b, e = text.find(README_BEGIN), text.find(README_END)
    if b < 0 or e < b:
        print(f"report: no bench-results markers in {path}", file=sys.stderr)
        return
    rel = os.path.relpath(outdir, os.path.dirname(os.path.abspath(path)))
    block = [README_BEGIN, ""]
    if quick:
        block += ["> QUICK smoke run: these numbers only show that the "
                  "pipeline works.", ""]
    if warn:
        block += [f"> {warn}.", ""]
    med = (f"; each cell the median of {rounds} rounds, min–max in "
           "brackets" if rounds > 1 else "")
    block += [f"Measured {date} ({envline}; source {git}{med}); details "
              f"and method in [{rel}/results.md]({rel}/results.md).", ""]
    block += table
    block += ["", f"![throughput and latency]({rel}/throughput.png)", "",
              README_END]
    text = text[:b] + "\n".join(block) + text[e + len(README_END):]
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    args, opts = [], {}
    it = iter(argv[1:])
    for a in it:
        if a.startswith("--"):
            opts[a[2:]] = next(it, "")
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rdir, outdir = args
    os.makedirs(outdir, exist_ok=True)
    idir = find_inputs(rdir)
    recs, bad = [], 0
    inputs = {}
    for name in ("bench.jsonl", "bench.g1.jsonl"):
        r, b = read_jsonl(os.path.join(idir, name))
        inputs[name] = len(r)
        recs += r
        bad += b
    d = Data(recs)
    host = {}
    if opts.get("host-env"):
        try:
            with open(opts["host-env"]) as f:
                host = json.load(f)
        except (OSError, ValueError):
            host = {}
    quick = bool(host.get("quick") or d.env.get("quick"))
    # the net/smc column names the kernel series its module came from
    PHASE_TITLE["intree"] = "Linux net/smc " + \
        (host.get("intree_series") or "6.1")
    phases_state = {p: d.status(p) for p in PHASES}
    rounds = d.rounds
    rows = build_rows(d)
    pace = host_pace(d)
    pace_note = pace_warning(pace)
    now = datetime.datetime.now(datetime.timezone.utc)
    date = host.get("date") or now.strftime("%Y-%m-%d %H:%M UTC")

    suite = []
    if opts.get("suite-log"):
        try:
            with open(opts["suite-log"], errors="replace") as f:
                suite = [l.rstrip() for l in f]
        except OSError:
            pass
    harness_fail = [l for l in suite if l.startswith("not ok")]
    harness_sum = next((l for l in reversed(suite) if " passed, " in l), "")

    result = {
        "generated": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": quick,
        "host": host,
        "guest": d.env,
        "phases": phases_state,
        "rounds": rounds,
        "phase_rounds": d.phase,
        "inputs": inputs,
        "unparsable_lines": bad,
        "harness": {"summary": harness_sum, "failures": harness_fail},
        "table": rows,
        "targets": targets(rows),
        "host_pace": pace,
        "records": {"guest0": [r for r in recs if r.get("guest", 0) == 0],
                    "guest1": [r for r in recs if r.get("guest") == 1]},
    }
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")

    envline = (f"host: {host.get('cpu', '?')}, {host.get('host_cpus', '?')} "
               f"CPUs; {host.get('qemu', 'QEMU')} TCG, two guests with "
               f"{d.env.get('ncpu', '?')} vCPU and "
               f"{(d.env.get('mem_kib') or 0) // 1024} MiB each, joined by a "
               f"UDP dgram netdev, Soft-RoCE rxe; guest kernel "
               f"{d.env.get('kernel', host.get('kver', '?'))}")
    title = ("QUICK smoke run: " if quick else "") + \
        f"smc bench {date} ({d.env.get('kernel', '?')}, QEMU TCG, rxe" + \
        (f", medians of {rounds} rounds)" if rounds > 1 else ")")
    perr = plot(rows, outdir, opts.get("work") or outdir, title)

    md = ["<!-- SPDX-License-Identifier: GPL-2.0 -->",
          "<!-- Generated by tools/testing/bench/report.py (`make bench`): "
          "do not edit. -->", "", "# smc benchmark results", ""]
    if quick:
        md += ["> **QUICK smoke run (BENCH_QUICK=1)**: about "
               f"{d.env.get('secs', 2)} s per measurement and shortened "
               "lists, on a loaded host: these numbers only show that the "
               "pipeline works. Regenerate with `make bench`.", ""]
    md += [f"- date: {date}",
           f"- environment: {envline}",
           f"- source: {host.get('git', '?')}",
           f"- measurement: {d.env.get('secs', '?')} s per test; "
           f"idle connections: {d.env.get('idle_conns', '?')}",
           f"- rounds: {rounds}, each cell the median of {rounds} runs "
           "(min–max in brackets), ours and net-smc alternating"
           if rounds > 1 else "- rounds: 1, each cell a single run",
           f"- Linux net/smc: {host.get('intree_module') or 'smc.ko built from linux-source-6.1 with the two rxe fixes'}",
           "- phases: " + "; ".join(f"{PHASE_TITLE[p]}: {phases_state[p]}"
                                    for p in PHASES)]
    if d.env.get("ours_sysctl"):
        md.append(f"- ours with net.smc sysctls: {d.env['ours_sysctl']} "
                  "(BENCH_OURS_SYSCTL, not the module's defaults)")
    if harness_sum:
        md.append(f"- guest harness: {harness_sum}")
    if pace:
        md.append("- host pace (ms for a fixed loop in the client guest, "
                  "read before and after each test; lower is faster; "
                  "median over each phase's tests, and the range of its "
                  "rounds' medians): " +
                  pace_text(pace) + (" ⚠" if pace_note else ""))
    md += ["", "Ratios are ours divided by the other: for ↑ metrics above 1 "
           "is better, for ↓ metrics below 1 is better. ⚠ marks a cell "
           "with a note below. TCG guests: use ratios, not absolutes.", ""]
    table = md_table(d, rows)
    md += table
    md += ["", "![throughput and latency](throughput.png)", ""]
    # targets.md, written by hand, need not sit beside OUT-DIR (BENCH_OUT)
    targets_rel = os.path.relpath(
        os.path.abspath(opts.get("targets") or
                        os.path.join(outdir, "targets.md")),
        os.path.abspath(outdir))
    md += ["## Targets", "",
           "The goals of the benchmark issue, from this run's medians "
           "(why the missed ones are missed: "
           f"[targets.md]({targets_rel})).", ""]
    if pace_note:
        md += ["The host's speed changed during this run (see Notes): "
               "read the met and missed below with that in mind.", ""]
    md += md_targets(result["targets"]) + [""]
    if perr:
        md += [f"(plot: {perr})", ""]
    notes = [(r["metric"], p, n) for r in rows for p, n in r["notes"].items()
             if n != "missing" and d.usable(p)]
    if notes or pace_note:
        # one line per phase and note, listing the rows it applies to
        grouped = {}
        for m, p, n in notes:
            grouped.setdefault((p, n), []).append(m)
        md += ["## Notes", ""]
        if pace_note:
            md.append(f"- {pace_note}")
        md += [f"- {PHASE_TITLE[p]}: {n} ({metrics_text(ms)})"
               for (p, n), ms in grouped.items()]
        md.append("")
    if harness_fail:
        md += ["## Guest harness failures", ""]
        md += [f"- `{l}`" for l in harness_fail[:40]]
        md.append("")
    md += ["## How each number is measured", "",
           "- raw RDMA: perftest `ib_write_bw -D T` (64 KiB writes, one QP) "
           "and `ib_write_lat -n N` between the guests' rxe0 over the IPv4 "
           "RoCE v2 GID; ib_write_lat reports half the round trip, doubled "
           "here. CPU of raw is that of busy-polling perftest. Every stream "
           "row compares with the same single-QP ib_write_bw figure.",
           "- TCP / ours / net-smc: `smc_bench` (tools/testing/bench) with "
           "`-f tcp` or `-f smc`, the same sizes; server in guest 1, client "
           "in guest 0. stream: bytes the server received / time until the "
           "last stream's count came back; \"default buffers\" sets no "
           "SO_SNDBUF/SO_RCVBUF, so each module uses its own defaults "
           "(ours: net.smc.wmem/rmem 512 KiB; Linux's net/smc 6.1: 64 KiB "
           "RMBs). rr: client-side round trip of "
           "S bytes each way (TCP_NODELAY). crr: socket+connect+1 B each "
           "way+close per connection. CPU: busy jiffies (user, nice, "
           "system, irq, softirq) of both guests from /proc/stat over the "
           "test, per GiB received (TCG guests run flat out: this is "
           "mostly the inverse of throughput). Memory: drop of free pages "
           "(buddy + per-CPU lists, /proc/zoneinfo) after drop_caches "
           "with K more idle connections open, divided by K; one "
           "connection held open before the baseline keeps the link "
           "group out of the figure; measured first in each phase, in "
           "round 1 only, with default buffers and then, after the modules "
           "were loaded anew, at equal sizes (SO_SNDBUF/SO_RCVBUF 64 KiB), "
           "which the memory target compares.",
           "- Rounds (BENCH_ROUNDS): the whole phase list (raw, TCP, ours, "
           "net-smc) runs N times in a row with the modules loaded anew, "
           "so that ours and net-smc alternate in time and a drift of the "
           "shared host hits both. Each cell is the median of the rounds' "
           "values (for an even count the mean of the middle two), the "
           "brackets give the smallest and the largest; ratios are those "
           "of the medians, the plot shows the medians. Every round's "
           "values are in results.json (table[].samples).",
           "- Host pace: before and after each test (outside its CPU "
           "window) the client guest runs `smc_bench -m pace`, the fastest "
           "of three runs of a fixed integer loop, in ms. A TCG guest runs "
           "at whatever speed the host gives it just then, so the pace "
           "shows whether the phases a ratio compares met the same host; "
           f"when the medians of a phase's tests in one round spread over "
           f"{PACE_SPREAD}x across the run, or the medians of ours and "
           f"net-smc are more than {PACE_SIDES}x apart, the report warns.",
           "- SMC-R use is checked through rxe0's packet counters and, for "
           "ours, the TCP fallback counters (notes above when suspicious).",
           "- CDC messages per MiB (ours only): CDCs both guests' modules "
           "sent (debugfs stats, smcr_wire: with data and without) during "
           "the test, per MiB the server received.",
           ""]
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(md))
    if opts.get("readme"):
        readme_update(opts["readme"], outdir, date, envline,
                      host.get("git", "?"), quick, rounds, table,
                      pace_note)
    print("\n".join(table))
    if perr:
        print("report: " + perr, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
