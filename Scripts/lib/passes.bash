# shellcheck shell=bash disable=SC2034 # test_pass_names and test_pass_cmd are read by the callers
# Scripts/lib/passes.bash: the test passes, by name, in one place for Scripts/test (which
# runs them all, in this order) and Scripts/flake-hunt (which reruns one), so that a flake
# hunt runs a pass exactly as the tests do (sourced, not run). Needs `swift_test` (the
# test binary, test_runner; or `swift test --skip-build` and its options, for a run of
# one's own) and `vault_bin` (the folder of the vault that the provider pass serves) set
# before test_pass_command.
#
#   test_runner BIN_DIR          sets swift_test to the test binary of BIN_DIR (the passes)
#   test_pass_names              the passes, in the order Scripts/test runs them
#   test_pass_command NAME       sets test_pass_cmd to pass NAME's command line (its
#                                environment, its wrappers, swift test and its arguments);
#                                returns 1 when there is no such pass
#   test_filter_command ARGS...  sets test_pass_cmd to a run of one's own: swift test ARGS
#                                next to the GNOME Keyring and the etcd cluster
#   test_pool_watched NAME CMD   runs a pass, fails it on a pool stall, keeps its output
#   test_slowest [N]             the N slowest tests of the passes run (default 15)
#
# Separate test processes: the end-to-end CLI tests start many child processes, and the
# library and server tests run in-process servers with deadlines of their own; in one
# process the first would eat the second's timing margins. (No test blocks the Swift
# concurrency pool any more, docs/testing.md; each pass checks it, test_pool_watched.)
# The fleet backend's tests run next to a three-member etcd cluster (Scripts/with-etcd),
# each group on its own: the end-to-end ones (private clusters for the tests that kill
# members, dozens of vault processes) would eat the other CLI tests' timing margins.
# The everyday-use suites (issue 24: typos, help, status, hints, docs examples) start many
# short processes at once; in their own pass they leave the timing margins of the sign-in
# suites (tokens of 2 to 3 s, sixteen processes at expiry) as they were.
# The sign-in suites whose tokens live 2 to 3 s (refreshes at expiry, sixteen processes at
# once) run in a pass of their own too: beside 170 other tests on two cores, a token could
# expire between its refresh and its use. So does the agent's end-to-end suite (an idle
# window of 12 s that a debug agent beside 170 other tests once overran).
# The Secret Service suites run once more against KeePassXC (Scripts/with-keepassxc), one
# instance each, without KeePassXC's autosave: KeePassXC 2.7.4 dies (SIGSEGV) when an
# item is created or deleted while it saves (Scripts/with-keepassxc says why; busy CI
# machines saw it in both tries of a pass). The neighbour attacks run in KeePassXCTests,
# one instance per test. Its passes run one test at a time (--no-parallel), as they
# always have. KeePassXC may still die mid-run (a D-Bus call then waits for ever), so
# each of its passes is bounded and has a second try.

# test_parallel_width [SANITIZER]: at most this many tests run at once in a test process
# (Swift Testing reads SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH; VAULT_TEST_WIDTH
# overrides it). No test body runs on the concurrency pool (docs/testing.md), so nothing
# else limits them: all at once, the CLI pass started some fifty tests and their `vault`
# processes together, at a load of 24 on two cores, and a keyring's first answer took
# more than 5 s. Sanitized code runs 3 to 15 times slower: fewer at once.
test_parallel_width() {
    local width=6
    [[ -z "${1:-}" ]] || width=3
    export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${VAULT_TEST_WIDTH:-$width}"
}

# test_runner BIN_DIR: sets swift_test to the test binary in BIN_DIR, run for Swift Testing
# as `swift test --skip-build` runs it (which adds only NO_COLOR=1 when its output is not a
# terminal): swift test first loads the package graph, 5 s of CPU on an idle machine and
# up to 15 s on a busy one, for every pass. One difference: a filter that matches no test
# fails (exit 69) where swift test passes.
test_runner() {
    swift_test=(env NO_COLOR=1 "$1/vaultPackageTests.xctest" --testing-library swift-testing)
}

test_pass_names=(cli signin everyday etcd-cli etcd library provider keepassxc-store keepassxc-cli keepassxc-own)

test_pass_everyday='CommandShapeTests|StatusCLITests|NotFoundHintTests|RequestOutputCLITests|NetworkErrorCLITests|PassphraseHelpCLITests'
test_pass_everyday+='|DocsExamplesTests|ChildSignalTests|PackagingTests|EverydayAttackTests|ManualPageTests'
test_pass_signin='AuthCLITests|SignInCLITests|ExecCLITests|HTTPAttackTests|PrivateDirectoryRuleTests|LogoutReportTests|AgentEndToEndTests'

# A pass's bound in seconds, widened as the tests' own bounds are under a sanitizer
# (Sanitizer.slowdown: 3 under AddressSanitizer, 5 under ThreadSanitizer).
test_pass_bound() {
    case "${VAULT_TEST_SANITIZER:-}" in
        address) echo $(($1 * 3)) ;;
        thread) echo $(($1 * 5)) ;;
        *) echo "$1" ;;
    esac
}

test_pass_command() {
    # shellcheck disable=SC2154 # swift_test and vault_bin are the caller's
    case "$1" in
        cli) test_pass_cmd=(Scripts/with-keyring "${swift_test[@]}" --filter 'VaultCLITests' --skip 'EtcdCLITests'
            --skip "$test_pass_everyday" --skip "$test_pass_signin" --skip 'KeePassXCTests') ;;
        signin) test_pass_cmd=(Scripts/with-keyring "${swift_test[@]}" --filter "$test_pass_signin" --skip 'EtcdCLITests') ;;
        everyday) test_pass_cmd=(Scripts/with-keyring "${swift_test[@]}" --filter "$test_pass_everyday" --skip 'EtcdCLITests') ;;
        etcd-cli) test_pass_cmd=(Scripts/with-keyring Scripts/with-etcd "${swift_test[@]}" --filter 'EtcdCLITests') ;;
        etcd) test_pass_cmd=(Scripts/with-keyring Scripts/with-etcd "${swift_test[@]}" --filter 'VaultEtcdTests') ;;
        library) test_pass_cmd=(Scripts/with-keyring "${swift_test[@]}" --skip 'VaultCLITests' --skip 'VaultEtcdTests') ;;
        # libsecret: a process of its own
        provider) test_pass_cmd=(env VAULT_BIN="$vault_bin/vault" Scripts/with-vault-secret-service "${swift_test[@]}"
            --filter 'SecretServiceProviderContractTests') ;;
        keepassxc-store) test_pass_cmd=(timeout --kill-after=10 "$(test_pass_bound 300)" Scripts/with-keepassxc "${swift_test[@]}"
            --no-parallel --filter 'SecretServiceStoreTests') ;;
        keepassxc-cli) test_pass_cmd=(timeout --kill-after=10 "$(test_pass_bound 300)" Scripts/with-keepassxc "${swift_test[@]}"
            --no-parallel --filter 'SecretServiceCLITests') ;;
        # KeePassXC's own behaviours, an instance per test (KeePassXCTests starts them): a pass
        # of its own, so that an instance dying mid-test (KeePassXC 2.7.4, SIGSEGV; a fresh
        # clone's cli pass saw one) gets the KeePassXC passes' second try.
        keepassxc-own) test_pass_cmd=(timeout --kill-after=10 "$(test_pass_bound 900)" Scripts/with-keyring "${swift_test[@]}"
            --no-parallel --filter 'KeePassXCTests') ;;
        *) return 1 ;;
    esac
}

test_filter_command() {
    test_pass_cmd=(Scripts/with-keyring Scripts/with-etcd "${swift_test[@]}" "$@")
}

# test_pool_watched NAME COMMAND...: runs COMMAND with VAULT_TEST_POOL_WATCH set to a new
# directory, .build/pool-watch/NAME, where each test process writes the stalls of its
# Swift concurrency pool (Tests/VaultTestSupport/PoolWatch.swift: it ran no job and used
# no CPU for more than 2 s) and its late jobs (a job waited over 2 s while the pool
# computed). Returns COMMAND's status, or 1 when it passed but a process reported a stall:
# a test blocked the pool, and the servers of the others stood still meanwhile. Late jobs
# are counted, not failed: a busy machine's pool is slow, not blocked.
test_pool_watched() {
    local name=$1 status=0 stalls started=$SECONDS
    shift
    local directory="$PWD/.build/pool-watch/$name"
    rm -rf "$directory"
    mkdir -p "$directory"
    # The pass's output also goes to output.log, where test_slowest reads the durations.
    # (Not `"$@"; echo $?`: under set -e a failing pass would end the group, and the script,
    # before its status, time and pool watch were written.)
    {
        passed=0
        VAULT_TEST_POOL_WATCH="$directory" "$@" 2>&1 || passed=$?
        echo "$passed" >"$directory/status"
    } | tee "$directory/output.log" || true
    status=$(cat "$directory/status" 2>/dev/null || echo 1)
    echo "test: the pass $name took $((SECONDS - started)) s (exit $status)" >&2
    stalls=$(cat "$directory"/pool-stalls-* 2>/dev/null || true)
    late=$(cat "$directory"/pool-late-* 2>/dev/null || true)
    if [[ -n "$stalls" ]]; then
        echo "test: the pass $name stalled the concurrency pool (it ran no job and used no CPU for over 2 s):" >&2
        echo "$stalls" >&2
        [[ $status -ne 0 ]] || status=1
    elif [[ -n "$late" ]]; then
        echo "test: pool watch: the pass $name never stalled the concurrency pool;" \
            "$(grep -c . <<<"$late") jobs waited over 2 s for it while it computed, the longest" \
            "$(sed -E 's/.*a job waited ([0-9.]+) seconds.*/\1/' <<<"$late" | sort -g | tail -1 | cut -c1-5) s" \
            "(pool-late-* in $directory)" >&2
    else
        echo "test: pool watch: the pass $name never stalled the concurrency pool" >&2
    fi
    return "$status"
}

# test_slowest [N]: the N (default 15) slowest tests of the passes whose output
# test_pool_watched kept, slowest first, with their pass: where a run's time goes. A time
# can include the test's wait for a slot under the parallel width (a .serialized suite's).
test_slowest() {
    local count=${1:-15}
    grep -HE '^[✔✘] Test .* (passed|failed) after [0-9.]+ seconds' "$PWD"/.build/pool-watch/*/output.log 2>/dev/null |
        sed -E 's#^.*/pool-watch/([^/]+)/output.log:[✔✘] Test (.*) (passed|failed) after ([0-9.]+) seconds.*$#\4 \1 \2#' |
        grep -v '^[0-9.]* [^ ]* run with ' | sort -rn |
        awk -v count="$count" 'NR <= count { printf "  %7.1f s  %-16s", $1, $2; $1 = ""; $2 = ""; sub(/^  /, ""); print }'
}
