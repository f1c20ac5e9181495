# shellcheck shell=bash
# Scripts/lib/private-bus.bash: what Scripts/with-keyring, Scripts/with-keepassxc and
# Scripts/with-vault-secret-service share (sourced, not run): a private D-Bus session bus
# with one Secret Service on it, started and stopped the same way.
#
#   private_bus_require WHO TOOL...     exit 4 naming the first TOOL that is missing
#   private_bus_close_inherited         close every descriptor but 0, 1 and 2: a daemon
#                                       holding a caller's pipe would keep that caller
#                                       waiting for EOF (test runners spawn many children
#                                       at once, and not every pipe is close-on-exec)
#   private_bus_workdir NAME            print a fresh private (0700) temporary directory
#   private_bus_home WORK               HOME=WORK/home when HOME is unset or no directory
#                                       (else every keyring call waits for a D-Bus timeout)
#   private_bus_lock_dir WORK           VAULT_LOCK_DIR=WORK/locks unless it is set: vault's
#                                       lock files never go to the account's ~/.cache
#   private_bus_address_escape TEXT     TEXT as a D-Bus address value: bytes other than
#                                       [-0-9A-Za-z_/.*] as %XX (a space, a comma)
#   private_bus_config FILE LISTEN      write a session bus configuration listening on
#                                       LISTEN (a D-Bus address) with no service directory,
#                                       so nothing (gnome-keyring above all) is activated
#   private_bus_record_pid FILE         inside the bus: the bus daemon's pid into FILE
#   private_bus_stop PID TENTHS         TERM, then KILL after TENTHS tenths of a second (a
#                                       daemon started with SIGTERM blocked never sees it)
#   private_bus_stop_recorded FILE COMM stop the pid FILE holds when its command is COMM
#                                       (a pid reused since is left alone)
#   private_bus_has_owner NAME          whether NAME has an owner on the session bus
#   private_bus_wait_owner WHO NAME PID SECONDS LOG
#                                       wait until NAME has an owner; exit 4 showing LOG
#                                       when PID exited first or SECONDS passed
#   private_bus_exit_on_signals         INT, TERM and HUP exit with 130, 143 and 129, so
#                                       the EXIT trap cleans up

private_bus_require() {
    local who=$1 tool
    shift
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "$who: $tool is missing (run Scripts/bootstrap)" >&2
            exit 4
        fi
    done
}

private_bus_close_inherited() {
    local fd_path fd
    for fd_path in "/proc/$$/fd"/*; do
        fd=${fd_path##*/}
        if [[ "$fd" =~ ^[0-9]+$ ]] && ((fd > 2 && fd != 255)); then
            eval "exec $fd>&-" 2>/dev/null || true
        fi
    done
}

private_bus_workdir() {
    local work
    work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    chmod 700 "$work"
    echo "$work"
}

private_bus_home() {
    if [[ -z "${HOME:-}" || ! -d "${HOME:-}" ]]; then
        mkdir -p "$1/home"
        export HOME="$1/home"
    fi
}

private_bus_lock_dir() {
    if [[ -z "${VAULT_LOCK_DIR:-}" ]]; then
        mkdir -p "$1/locks"
        chmod 700 "$1/locks"
        export VAULT_LOCK_DIR="$1/locks"
    fi
}

private_bus_address_escape() {
    local hex
    for hex in $(printf %s "$1" | od -An -v -tx1); do
        case "$hex" in
        2[ad-f] | 3[0-9] | 4[1-9a-f] | 5[0-9af] | 6[1-9a-f] | 7[0-9a]) printf %b "\\x$hex" ;;
        *) printf %%%s "$hex" ;;
        esac
    done
}

private_bus_config() {
    local listen=${2//&/&amp;}
    listen=${listen//</&lt;}
    listen=${listen//>/&gt;}
    cat >"$1" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>$listen</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
}

private_bus_pid_of() {
    gdbus call --session --timeout 2 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID "$1" 2>/dev/null |
        sed -n 's/^(uint32 \([0-9]*\),)$/\1/p'
}

private_bus_record_pid() {
    private_bus_pid_of org.freedesktop.DBus >"$1" || true
}

private_bus_stop() {
    kill "$1" 2>/dev/null || true
    for _ in $(seq "$2"); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
}

private_bus_stop_recorded() {
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 0
    if [[ "$pid" =~ ^[0-9]+$ && "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$2" ]]; then
        private_bus_stop "$pid" 20
    fi
}

private_bus_has_owner() {
    gdbus call --session --timeout 2 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true
}

private_bus_wait_owner() {
    local who=$1 name=$2 pid=$3 seconds=$4 log=$5
    local deadline=$((SECONDS + seconds))
    until private_bus_has_owner "$name"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "$who: the daemon exited before $name had an owner:" >&2
            cat "$log" >&2 || true
            exit 4
        fi
        if ((SECONDS >= deadline)); then
            echo "$who: $name has no owner after $seconds s" >&2
            cat "$log" >&2 || true
            exit 4
        fi
        sleep 0.05
    done
}

private_bus_exit_on_signals() {
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}
