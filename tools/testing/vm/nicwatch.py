#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Host-side watch of the test guests' virtio-net transmit queues: notifies a
# queue that QEMU stopped taking buffers from, as the guest's driver would.
"""usage: nicwatch.py [--interval S] LOG PID:SOCKET...

QEMU 7.2 under TCG at times stops taking a guest's transmit buffers: the
guest has made buffers available (its ring index, in guest memory, runs
ahead) while QEMU's view stays at its last one, and the guest does not
notify again because, with VIRTIO_RING_F_EVENT_IDX, it notifies only when
its index passes the event index QEMU last published, which it already
has. The guest's transmit watchdog then fires every 5 s for minutes;
neither the guest's link down/up nor the host's set_link restarts it, one
notification of the queue does (seen 2026-12-05: nine minutes stuck, six
link flaps, one notify).

Every INTERVAL seconds (2) each QEMU's virtio-net devices are asked for
their transmit queue's state (x-query-virtio-queue-status) and the guest's
available index is read from guest memory; a queue that made no progress
over two looks while the guest has buffers QEMU has not taken gets one
notify through the device's legacy I/O BAR (VIRTIO_PCI_QUEUE_NOTIFY),
which is harmless when QEMU was merely busy. Each notify, and whether the
queue moved on, goes to LOG. Runs until every PID is gone.
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qmp import talk  # noqa: E402

TXQ = 1                 # virtio-net: queue 0 receives, queue 1 transmits
NOTIFY_OFF = 16         # VIRTIO_PCI_QUEUE_NOTIFY in the legacy I/O BAR


def hmp(sock, line):
    return talk(sock, "human-monitor-command", {"command-line": line})


def nics(sock):
    """{NIC id: legacy I/O BAR address} of the virtio-net devices."""
    out, bar, found = hmp(sock, "info pci"), None, {}
    for line in out.replace("\r", "").splitlines():
        if line.lstrip().startswith("Bus "):
            bar = None
        m = re.search(r"BAR0: I/O at (0x[0-9a-f]+)", line)
        if m:
            bar = int(m.group(1), 16)
        m = re.search(r'id "(nic[0-9]+)"', line)
        if m and bar is not None:
            found[m.group(1)] = bar
    return found


def look(sock, nic):
    """(QEMU's last available index, the guest's available index), None
    while the guest's driver has not set the queue up (booting, reset)."""
    st = talk(sock, "x-query-virtio-queue-status",
              {"path": f"/machine/peripheral/{nic}/virtio-backend",
               "queue": TXQ})
    if not st["vring-avail"]:
        return None
    out = hmp(sock, f"xp /1hu {st['vring-avail'] + 2}")
    guest = int(out.replace("\r", "").split(":")[1].split()[0])
    return st["last-avail-idx"], guest


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def main(argv):
    interval = 2.0
    if len(argv) > 2 and argv[1] == "--interval":
        interval = float(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    log = open(argv[1], "a", buffering=1)
    guests = []
    for arg in argv[2:]:
        pid, sock = arg.split(":", 1)
        guests.append({"pid": int(pid), "sock": sock, "bars": None,
                       "seen": {}, "stuck": {}})

    def say(g, msg):
        log.write(f"{time.strftime('%H:%M:%S', time.gmtime())} "
                  f"{os.path.basename(g['sock'])} {msg}\n")

    while any(alive(g["pid"]) for g in guests):
        time.sleep(interval)
        for g in guests:
            if not alive(g["pid"]) or not os.path.exists(g["sock"]):
                continue
            try:
                if g["bars"] is None:
                    g["bars"] = nics(g["sock"])
                    say(g, f"watching {sorted(g['bars'])}")
                for nic, bar in g["bars"].items():
                    idx = look(g["sock"], nic)
                    if idx is None:
                        g["seen"].pop(nic, None)
                        g["stuck"][nic] = False
                        continue
                    last, guest = idx
                    prev = g["seen"].get(nic)
                    g["seen"][nic] = last
                    if g["stuck"].get(nic):
                        say(g, f"{nic}: transmit queue "
                            f"{'moved on' if last != prev else 'still stuck'}"
                            f" (QEMU {last}, guest {guest})")
                        g["stuck"][nic] = False
                        if last != prev:
                            continue
                    if prev is None or last != prev or guest == last:
                        continue
                    hmp(g["sock"], f"o /w {bar + NOTIFY_OFF:#x} {TXQ}")
                    g["stuck"][nic] = True
                    say(g, f"{nic}: transmit queue stuck at {last}, guest "
                        f"at {guest}: notified")
            except (OSError, ConnectionError, RuntimeError, ValueError,
                    KeyError, IndexError) as e:
                # a guest shutting down, or the monitor busy elsewhere
                say(g, f"look failed: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
