#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Sums the CPU profiles of `make bench` (BENCH_PERF, *.sym files of perf
# report --sort dso,sym) by where the time went: idle, user space, each
# named kernel module, the rest of the kernel.
"""Usage: perf_modules.py [--module NAME=KO]... [--top N] FILE.sym...

Every kernel symbol is looked up in the modules given (their function
symbols, by nm); what none of them holds counts as "kernel". Prints, per
file, the share of all samples that was idle and, of the busy rest, the
share of user space, of each module and of the kernel (and of the
kernel's parts: virtio device, network stack, scheduling and interrupts,
memory, the rest, by symbol name), then the top symbols of each.
"""

import argparse
import collections
import os
import re
import subprocess
import tempfile
import sys

IDLE = {"native_safe_halt", "pv_native_safe_halt", "default_idle",
        "arch_cpu_idle", "cpu_idle_poll", "default_idle_call", "do_idle",
        "acpi_idle_do_entry"}
LINE = re.compile(r"^\s*([0-9.]+)%\s+(\S+)\s+\[(.)\]\s+(\S+)")
# the rest of the kernel, by the first of these that matches the symbol
KERNEL_GROUPS = [
    ("k:virtio", r"^(vp_|virtnet|virtqueue|vring|start_xmit|receive_buf|"
                 r"page_to_skb|free_old_xmit)"),
    ("k:net", r"^_*(tcp|udp|ip_|ip4|ip6|ipv4|inet|sk_|sock|skb|alloc_skb|"
              r"kfree_skb|consume_skb|dev_|netif|net_|napi|neigh|fib|nf_|"
              r"raw_v4|rt_|dst_|eth_|validate_xmit|sch_|qdisc|csum|"
              r"crc32)"),
    ("k:sched", r"^_*(schedule|finish_task_switch|try_to_wake|wake_up|"
                r"enqueue|dequeue|pick_next|update_curr|select_task|"
                r"ttwu|activate_task|switch_|context_switch|"
                r"_raw_spin_unlock_irq|handle_softirqs|do_softirq|"
                r"__local_bh_enable|irq_exit|tick_|hrtimer|ktime)"),
    ("k:mm", r"^_*(page|alloc_pages|get_page|free_|kmem|kmalloc|kfree|"
             r"slab|clear_page|memset|memcpy|copy_|handle_mm|do_user_addr|"
             r"filemap|unmap|rmap|lru|folio|mod_memcg|lock_page|"
             r"next_uptodate)"),
]
KERNEL_RE = [(g, re.compile(r)) for g, r in KERNEL_GROUPS]


def kernel_group(sym):
    for g, r in KERNEL_RE:
        if r.match(sym):
            return g
    return "k:other"


def module_symbols(path):
    """Function names of a .ko (nm: t/T), without .cold/.isra suffixes;
    a compressed module (.ko.xz/.zst/.gz, as kernels since 6.x install
    them) is unpacked into a temporary file for nm."""
    unpack = {".xz": ["xz", "-dc"], ".zst": ["zstd", "-qdc"],
              ".gz": ["gzip", "-dc"]}.get(os.path.splitext(path)[1])
    if unpack:
        with tempfile.NamedTemporaryFile(suffix=".ko") as tmp:
            subprocess.run(unpack + [path], stdout=tmp, check=True)
            tmp.flush()
            return module_symbols(tmp.name)
    out = subprocess.run(["nm", path], capture_output=True, text=True,
                         check=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tT":
            names.add(f[2])
    return names


def base(sym):
    return sym.split(".", 1)[0]


def profile(path, modules):
    """{category: percent of all samples}, {module: Counter(sym: pct)}"""
    cat = collections.Counter()
    top = collections.defaultdict(collections.Counter)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            pct, dso, kind, sym = float(m[1]), m[2], m[3], m[4]
            if kind != "k":
                cat["user"] += pct
                continue
            if base(sym) in IDLE:
                cat["idle"] += pct
                continue
            for name, syms in modules.items():
                if sym in syms or base(sym) in syms:
                    cat[name] += pct
                    top[name][sym] += pct
                    break
            else:
                cat["kernel"] += pct
                cat[kernel_group(sym)] += pct
                top["kernel"][sym] += pct
    return cat, top


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", action="append", default=[],
                    help="NAME=PATH of a .ko whose functions count as NAME")
    ap.add_argument("--top", type=int, default=8,
                    help="symbols listed per module (default 8)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    modules = {}
    for spec in a.module:
        name, _, path = spec.partition("=")
        if not path or not os.path.exists(path):
            sys.exit(f"--module {spec}: no such file")
        modules[name] = module_symbols(path)
    cols = (["user"] + list(modules) + ["kernel"] +
            [g for g, _ in KERNEL_GROUPS] + ["k:other"])
    print("| profile | idle % | " + " | ".join(f"{c} % of busy" for c in cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    tops = []
    for path in a.files:
        cat, top = profile(path, modules)
        busy = sum(v for k, v in cat.items()
                   if k != "idle" and not k.startswith("k:"))
        name = os.path.basename(path).rsplit(".", 1)[0]
        cells = [f"{100 * cat[c] / busy:.1f}" if busy else "-" for c in cols]
        print(f"| {name} | {cat['idle']:.1f} | " + " | ".join(cells) + " |")
        for mod, cnt in top.items():
            syms = ", ".join(f"{s} {100 * p / busy:.1f}"
                             for s, p in cnt.most_common(a.top))
            tops.append(f"- {name}, {mod} (% of busy): {syms}")
    if tops:
        print()
        print("\n".join(tops))


if __name__ == "__main__":
    main()
