# shellcheck shell=bash disable=SC2154 # etcd_dir and etcd are the caller's (below)
# Scripts/lib/etcd-cluster.bash: a private three-member etcd cluster on loopback, for
# Scripts/with-etcd and the soak scripts (sourced, not run). Needs `etcd_dir` (the
# members' data and logs go there) and `etcd` (the etcd binary) set before
# etcd_cluster_start.
#
#   etcd_cluster_start TOKEN   start m1 m2 m3 as a new cluster; sets etcd_endpoints
#   etcd_member_start I        (re)start member I (0..2) on its data; its pid in $etcd_dir/mI.pid
#   etcd_member_kill I         SIGKILL member I and reap it
#   etcd_wait_healthy SECONDS  wait until every member answers /health (1 when it did not)
#   etcd_leader                print the leader's index (0..2), or nothing
#   etcd_stop_all              SIGTERM every member, SIGKILL after 5 s
#   free_loopback_ports N      print N free loopback ports, one a line
# Short heartbeats and elections (50 ms, 500 ms) make a lost leader quickly replaced.

etcd_names=(m1 m2 m3)
etcd_client=()
etcd_peer=()
etcd_cluster=""
etcd_endpoints=""
etcd_token=""

free_loopback_ports() {
    python3 - "$1" <<'PY'
import socket, sys
sockets = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    sockets.append(s)
for s in sockets:
    print(s.getsockname()[1])
PY
}

etcd_member_start() {
    local i=$1 name=${etcd_names[$1]}
    mkdir -p "$etcd_dir/$name"
    "$etcd" --name "$name" --data-dir "$etcd_dir/$name/data" \
        --listen-client-urls "${etcd_client[$i]}" --advertise-client-urls "${etcd_client[$i]}" \
        --listen-peer-urls "${etcd_peer[$i]}" --initial-advertise-peer-urls "${etcd_peer[$i]}" \
        --initial-cluster "$etcd_cluster" --initial-cluster-state new --initial-cluster-token "$etcd_token" \
        --heartbeat-interval 50 --election-timeout 500 --logger zap --log-outputs "$etcd_dir/$name/etcd.log" \
        </dev/null >/dev/null 2>&1 &
    echo $! >"$etcd_dir/$name.pid"
}

etcd_member_kill() {
    local pid
    pid=$(cat "$etcd_dir/${etcd_names[$1]}.pid" 2>/dev/null) || return 0
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

etcd_cluster_start() {
    local ports i
    etcd_token=$1
    mapfile -t ports < <(free_loopback_ports 6)
    for i in 0 1 2; do
        etcd_client[i]="http://127.0.0.1:${ports[$i]}"
        etcd_peer[i]="http://127.0.0.1:${ports[$((i + 3))]}"
        etcd_cluster+="${etcd_cluster:+,}${etcd_names[$i]}=${etcd_peer[$i]}"
        etcd_endpoints+="${etcd_endpoints:+,}${etcd_client[$i]}"
    done
    for i in 0 1 2; do etcd_member_start "$i"; done
}

etcd_healthy() { curl -fsS --max-time 2 "$1/health" 2>/dev/null | grep -q '"health":"true"'; }

etcd_wait_healthy() {
    local deadline=$((SECONDS + $1)) i
    for i in 0 1 2; do
        until etcd_healthy "${etcd_client[$i]}"; do
            ((SECONDS < deadline)) || return 1
            sleep 0.2
        done
    done
}

etcd_leader() {
    local i out id lead
    for i in 0 1 2; do
        out=$(curl -sS --max-time 1 -d '{}' "${etcd_client[$i]}/v3/maintenance/status" 2>/dev/null) || continue
        id=$(sed -n 's/.*"member_id":"\([0-9]*\)".*/\1/p' <<<"$out")
        lead=$(sed -n 's/.*"leader":"\([0-9]*\)".*/\1/p' <<<"$out")
        if [[ -n "$id" && "$id" == "$lead" ]]; then echo "$i"; return; fi
    done
}

etcd_stop_all() {
    local file pids=() pid
    for file in "$etcd_dir"/m?.pid; do [[ -e "$file" ]] && pids+=("$(cat "$file")"); done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for _ in $(seq 50); do
        local running=0
        for pid in "${pids[@]}"; do if kill -0 "$pid" 2>/dev/null; then running=1; fi; done
        ((running)) || break
        sleep 0.1
    done
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
