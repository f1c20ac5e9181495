#!/usr/bin/env python3
# Scripts/lib/order-from-callgrind.py BINARY TRACE... : the functions of BINARY each callgrind
# TRACE ran that no earlier trace ran, one mangled name per line, for lld's
# --symbol-ordering-file (Scripts/generate-order-file). Callgrind's compressed names:
# "ob=(N) path" and "fn=(N) name" define a name once, "(N)" reuses it.
import os, re, sys
# callgrind names the binary by its real path (links resolved).
binary, traces = os.path.realpath(sys.argv[1]), sys.argv[2:]
seen, order = set(), []
for path in traces:
    objects, functions, current, new = {}, {}, None, []
    for line in open(path, errors="replace"):
        match = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not match:
            continue
        kind, number, name = match.groups()
        table = objects if kind.endswith("ob") else functions
        if name:
            table[number] = name
        if kind == "ob":
            current = objects.get(number)
        elif kind == "fn" and current is not None and os.path.realpath(current) == binary:
            function = functions.get(number)
            if function and not function.startswith("0x") and function not in seen:
                seen.add(function)
                new.append(function)
    order += sorted(new)  # by name within a trace: a stable file, modules kept together
if not order:
    sys.exit("order-from-callgrind: no function of %s in the traces" % binary)
print("\n".join(order))
