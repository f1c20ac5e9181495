#!/usr/bin/env python3
"""Scripts/lib/soak-report.py: the figures of a Scripts/soak run, one `soak: ...` line each.

Reads the work directory Scripts/soak filled (SOAK_DIR) and the figures it passes in the
environment; prints the report on stdout and exits 0 only when there was no crash, no
acknowledged save was lost and the refresh rule held (else 1). See docs/soak.md.
"""

import glob
import json
import os
import re
import sys
from collections import Counter, defaultdict

CRASH = re.compile(r"Fatal error|Precondition failed|Assertion failed|Stack dump|Program crashed|Current stack trace|crashed:")
SLACK_MS = 50  # rounding between the server's milliseconds and the client's clock


def number(path, default=0):
    try:
        with open(path) as f:
            return int(f.read().strip() or default)
    except (OSError, ValueError):
        return default


def lines(path):
    try:
        with open(path) as f:
            return [line for line in f.read().splitlines() if line.strip()]
    except OSError:
        return []


def main():
    d = os.environ["SOAK_DIR"]
    ttl = float(os.environ["SOAK_TTL"])
    env = lambda name: int(os.environ.get(name, "0") or 0)

    ops = []
    for path in glob.glob(os.path.join(d, "ops", "*")):
        for line in lines(path):
            f = line.split()
            if len(f) == 9:
                ops.append(dict(op=f[2], account=f[3], status=int(f[4]), kind=f[5],
                                refreshed=int(f[6]), adopted=int(f[7]), relogins=int(f[8])))

    def by_status(op):
        statuses = Counter(o["status"] for o in ops if o["op"] == op)
        total = sum(statuses.values())
        failed = total - statuses.get(0, 0)
        detail = ", ".join(f"exit {s}: {n}" for s, n in sorted(statuses.items()) if s != 0)
        return f"{total} ok {statuses.get(0, 0)} failed {failed}" + (f" ({detail})" if detail else "")

    # The server's refresh log, one drain per server run (a restart loses nothing before it).
    instances = []
    dropped = 0
    for line in lines(os.path.join(d, "refresh-log.jsonl")):
        try:
            drained = json.loads(line)
        except ValueError:
            continue
        if not isinstance(drained, dict) or "entries" not in drained:
            continue  # no log: this server run is not checked, and the rule cannot PASS without one
        instances.append(drained["entries"])
        dropped += drained.get("dropped", 0)
    per_login = Counter()
    reused = Counter()
    too_soon = Counter()
    min_gap = None
    for entries in instances:
        times = defaultdict(list)
        for e in entries:
            if e.get("outcome") == "refreshed":
                per_login[e["login"]] += 1
                times[e["login"]].append(e["at"])
            elif e.get("outcome") == "reused":
                reused[e["login"]] += 1
        for login, ats in times.items():
            ats.sort()
            for a, b in zip(ats, ats[1:]):
                gap = b - a
                min_gap = gap if min_gap is None else min(min_gap, gap)
                if gap < ttl * 1000 / 2 - SLACK_MS:
                    too_soon[login] += 1
    stats = []
    for line in lines(os.path.join(d, "stats.jsonl")):
        try:
            stats.append(json.loads(line))
        except ValueError:
            pass
    total = lambda key: sum(s.get(key, 0) for s in stats)
    refreshes = sum(per_login.values())
    rule_ok = sum(reused.values()) == 0 and sum(too_soon.values()) == 0 and dropped == 0 and len(instances) > 0

    # Crashes: vault processes that died of a signal or printed a crash report, the agent
    # dying early or of a signal, the server dying of itself (a crash report in its stderr).
    crashes = [o for o in ops if o["kind"] in ("signal", "crash-report")]
    hung = [o for o in ops if o["kind"] == "hung"]
    agent_alive = env("SOAK_AGENT_ALIVE")
    agent_status = env("SOAK_AGENT_STATUS")
    agent_crashed = (not agent_alive) or agent_status > 128
    try:
        with open(os.path.join(d, "agent.err"), errors="replace") as f:
            agent_crashed = agent_crashed or bool(CRASH.search(f.read()))
    except OSError:
        pass
    server_crashes = 0
    for path in glob.glob(os.path.join(d, "server-logs", "*.err")):
        with open(path, errors="replace") as f:
            if CRASH.search(f.read()):
                server_crashes += 1
    crash_count = len(crashes) + int(agent_crashed) + server_crashes

    lost = env("SOAK_LOST")
    stale = len(lines(os.path.join(d, "stale-loads")))
    errors = Counter(o["status"] for o in ops if o["status"] != 0)
    restarts = number(os.path.join(d, "restarts"))
    accounts = env("SOAK_ACCOUNTS")
    hwm = lines(os.path.join(d, "agent-hwm"))

    out = print
    out(f"soak: ran {env('SOAK_ELAPSED')} s, {env('SOAK_WORKERS')} workers, {accounts} accounts, "
        f"{len(ops)} vault processes; server restarts {restarts}, fault windows {number(os.path.join(d, 'fault-windows'))} "
        f"(faulted refreshes {total('faultedRefreshes')}), etcd member kills {number(os.path.join(d, 'member-kills'))}")
    out(f"soak: requests {by_status('request')}")
    out(f"soak: tokens {by_status('token')}")
    out(f"soak: saves {by_status('save')}")
    out(f"soak: loads {by_status('load')}")
    gap = "none" if min_gap is None else f"{min_gap} ms"
    per_account = ", ".join(f"{k} {v}" for k, v in sorted(per_login.items())) or "none"
    out(f"soak: refreshes {refreshes} ({per_account}; the server counted {total('refreshes')}, failed {total('failedRefreshes')}); "
        f"refresh tokens spent twice {sum(reused.values())}, refreshes under {int(ttl * 500)} ms after the last {sum(too_soon.values())} "
        f"(shortest gap {gap}), log entries dropped {dropped}: {'PASS' if rule_ok else 'FAIL'}")
    relogins = sum(o["relogins"] for o in ops)
    out(f"soak: silent re-logins {relogins} by the workers (vault -v), server logins {total('logins')} "
        f"({accounts} first logins; restarts {restarts} x accounts {accounts} = {restarts * accounts} forced), "
        f"failed logins {total('failedLogins')}; refreshes by the workers {sum(o['refreshed'] for o in ops)}, "
        f"adopted from another process {sum(o['adopted'] for o in ops)}")
    out("soak: errors by exit code: " + (", ".join(f"{s}: {n}" for s, n in sorted(errors.items())) or "none")
        + f" (hung and killed after the op timeout: {len(hung)})")
    out(f"soak: crashes {crash_count} (vault processes {len(crashes)}, agent {int(agent_crashed)}, server {server_crashes})")
    out(f"soak: acknowledged saves lost {lost} (of {env('SOAK_CHECKED')} items checked); stale loads {stale}")
    out(f"soak: peak memory (VmHWM) of the vault agent, alive {env('SOAK_AGENT_LIVED')} s "
        f"({'the whole soak' if agent_alive else 'DIED early'}): {hwm[0] if hwm else 'unknown'}")
    ok = crash_count == 0 and lost == 0 and rule_ok
    out(f"soak: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
