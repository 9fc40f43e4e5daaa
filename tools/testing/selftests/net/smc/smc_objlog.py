#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Pairs the module's "<type> <ptr> created/destroyed" debug lines (dynamic
# debug, enabled at insmod by smc_lib.sh) in the whole kernel log of a run.
"""Usage: smc_objlog.py [--live TYPE=N ...] [--refs TYPE ...]

Reads every record of /dev/kmsg from the oldest (not from the last
`dmesg -C`), walks them in order and keeps, per object type, the set of
objects alive: a creation of an object already alive, or a destruction of
one never created, is an error; so is any object left alive at the end,
except as many of each TYPE as --live allows (RDMA devices live as long as
the device). A --refs TYPE counts references to the printed object (one
object may hold several at once): only more destroyed than created, or any
left at the end, is an error. "smc_objlog: step NAME" records, written by run_guest.sh, say
in which test an unmatched line fell.

Exit 0: every line paired; 1: unmatched lines (listed); 4: nothing to
check (no debug lines, or the log lost records: say why).
"""

import errno
import os
import re
import sys

LINE = re.compile(r'^smc: (\w+) (\S+) (created|destroyed)$')
STEP = re.compile(r'^smc_objlog: step (\S+)')


def kmsg_records():
    """Every record's (seq, message); raises LookupError if any was lost."""
    fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
    first = True
    try:
        while True:
            try:
                rec = os.read(fd, 8192)
            except OSError as e:
                if e.errno == errno.EAGAIN:
                    return
                if e.errno == errno.EPIPE:
                    raise LookupError('records overwritten while reading')
                raise
            head, _, rest = rec.decode(errors='replace').partition(';')
            fields = head.split(',')
            seq = int(fields[1])
            if first and seq != 0:
                raise LookupError(f'oldest record is #{seq}: the log wrapped '
                                  '(boot with a larger log_buf_len)')
            first = False
            yield seq, rest.split('\n', 1)[0]
    finally:
        os.close(fd)


def main(argv):
    allowed = {}
    refs = set()
    args = argv[1:]
    while args:
        if args[0] == '--live' and len(args) > 1:
            t, _, n = args[1].partition('=')
            allowed[t] = int(n)
            args = args[2:]
        elif args[0] == '--refs' and len(args) > 1:
            refs.add(args[1])
            args = args[2:]
        else:
            print(__doc__, file=sys.stderr)
            return 2
    live = {}		# (type, ptr) -> [step it was created in, count]
    errors = []
    pairs = 0
    step = '(before the first step)'
    try:
        for seq, msg in kmsg_records():
            m = STEP.match(msg)
            if m:
                step = m.group(1)
                continue
            m = LINE.match(msg)
            if not m:
                continue
            typ, ptr, what = m.groups()
            if '(' in ptr:
                print(f'# pointers not hashed yet: {msg}')
                return 4
            key = (typ, ptr)
            if what == 'created':
                if key not in live:
                    live[key] = [step, 1]
                elif typ in refs:
                    live[key][1] += 1
                else:
                    errors.append(f'#{seq} in {step}: {typ} {ptr} created '
                                  f'again (still alive from {live[key][0]})')
            elif key in live:
                live[key][1] -= 1
                if not live[key][1]:
                    del live[key]
                pairs += 1
            else:
                errors.append(f'#{seq} in {step}: {typ} {ptr} destroyed, '
                              'never created')
    except LookupError as e:
        print(f'# {e}')
        return 4
    except OSError as e:
        print(f'# /dev/kmsg: {e}')
        return 4
    if not pairs and not live and not errors:
        print('# no object lines in the log (dynamic debug not enabled?)')
        return 4
    left = {}
    for (typ, ptr), (where, n) in sorted(live.items()):
        left.setdefault(typ, []).extend([f'{ptr} (from {where})'] * n)
    for typ, objs in sorted(left.items()):
        if len(objs) != allowed.get(typ, 0):
            errors.append(f'{len(objs)} {typ} still alive, '
                          f'{allowed.get(typ, 0)} expected: ' +
                          ', '.join(objs[:10]))
    print(f'# {pairs} destructions paired with their creations, '
          f'{sum(len(v) for v in left.values())} left alive')
    for e in errors[:40]:
        print(f'# {e}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
