#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Minimal QMP client for the test guests' monitor sockets (vm.sh): runs one
# human-monitor command or one QMP command and prints what QEMU answered.
"""usage: qmp.py SOCKET hmp 'info network'
       qmp.py SOCKET COMMAND ['{"json": "arguments"}']"""

import json
import socket
import sys


def talk(path, execute, arguments, timeout=10.0):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    reader = sock.makefile("r", encoding="utf-8", errors="replace")

    def reply():
        # skip asynchronous events (a link change emits NIC_RX_FILTER... etc.)
        while True:
            line = reader.readline()
            if not line:
                raise ConnectionError("monitor closed the connection")
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg

    if "QMP" not in json.loads(reader.readline()):
        raise ConnectionError("no QMP greeting")
    for cmd, args in (("qmp_capabilities", None), (execute, arguments)):
        req = {"execute": cmd}
        if args is not None:
            req["arguments"] = args
        sock.sendall((json.dumps(req) + "\n").encode())
        msg = reply()
        if "error" in msg:
            raise RuntimeError(f"{cmd}: {msg['error'].get('desc', msg['error'])}")
    sock.close()
    return msg["return"]


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[2] == "hmp":
        execute, args = "human-monitor-command", {"command-line": " ".join(argv[3:])}
    else:
        execute = argv[2]
        args = json.loads(argv[3]) if len(argv) > 3 else None
    try:
        ret = talk(argv[1], execute, args)
    except (OSError, ValueError, RuntimeError) as err:
        print(f"qmp: {argv[1]}: {err}", file=sys.stderr)
        return 1
    if isinstance(ret, str):
        sys.stdout.write(ret)
    else:
        print(json.dumps(ret, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
