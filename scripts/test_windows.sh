#!/usr/bin/env bash
# Tests kaname.exe under Wine on Linux: the Windows unit tests of the engine and search crates
# (the memory cap among them) run as Windows programs, and the end-to-end suites of tests/
# (the Linux test binaries) drive kaname.exe through scripts/wine_kaname.sh instead of the
# Linux binary (KANAME_TEST_BIN; tests/common/mod.rs), with tests/windows.rs's Windows cases.
#
#   bash scripts/test_windows.sh              # build (scripts/build_windows.sh), then test
#   KANAME_WINE_TESTS="usi_session windows" bash scripts/test_windows.sh   # some suites only
#   bash scripts/test_windows.sh --run CMD...  # CMD in the Wine root, in the checkout (no build):
#       bash scripts/test_windows.sh --run wine target/x86_64-pc-windows-gnu/release/kaname.exe bench
#
# Wine: Debian's Wine 10 in a Debian trixie root made by debootstrap (bookworm's Wine 8 cannot
# run Rust's std: it lacks bcryptprimitives.dll), kept in the cache ($KANAME_WIN_CACHE, default
# ~/.cache/kaname-windows/wine-trixie, 1.5 GB; made once, about 75 s). Needs root (debootstrap,
# chroot, mounts). The tests run in the root with the checkout bind-mounted at its own path,
# inside a private mount and PID namespace (unshare), so no mount outlives the run and no Wine
# process either; and under a memory cgroup of $KANAME_WINE_MEMORY_LIMIT (default 8G) where the
# machine has one, so a test that touches more than it should is killed, not the machine.
#
# Exit status: 0 all passed; 69 when a piece (toolchain, Wine) cannot be had (the message says
# which; .ci/run skips loudly); anything else is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
SELF=test_windows.sh
WHAT="TEST kaname.exe UNDER WINE"
# shellcheck source=scripts/windows_lib.sh
. scripts/windows_lib.sh
TARGET=x86_64-pc-windows-gnu
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
EXE=$TARGET_DIR/$TARGET/release/kaname.exe
WINE_ROOT=$CACHE/wine-trixie
MEMORY_LIMIT=${KANAME_WINE_MEMORY_LIMIT:-8G}
# The end-to-end suites run under Wine (tests/scripts.rs is left out: it tests Python scripts).
E2E=${KANAME_WINE_TESTS:-"windows usi_session options book limits cli analyse variants fuzz_usi"}
LIST=$TARGET_DIR/wine-tests.list
START=$(date +%s)

# ---------------------------------------------------------------------------------------------
# Inside the Wine root: run every test binary of the list, report each, fail if any failed.
if [ "${1:-}" = --inside ]; then
    export WINEDEBUG=-all WINEPREFIX=/root/.wine
    wineserver -p # one server for the whole run (the PID namespace ends it)
    declare -a summary=()
    failed=0
    while IFS=$'\t' read -r kind name path; do
        t0=$(date +%s)
        echo "=== $SELF: $name ($kind) ==="
        case $kind in
            unit) cmd=(wine "$path" --test-threads=2) ;;
            e2e) cmd=(env KANAME_TEST_BIN="$REPO/scripts/wine_kaname.sh" KANAME_TEST_WINE=1 KANAME_EXE="$EXE" "$path") ;;
        esac
        rc=0
        timeout --kill-after=10 1200 "${cmd[@]}" </dev/null || rc=$?
        summary+=("$(printf '%-28s %s (%d s)' "$name" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" $(($(date +%s) - t0)))")
        [ $rc = 0 ] || failed=$((failed + 1))
    done <"$LIST"
    echo "=== $SELF: summary ==="
    printf '  %s\n' "${summary[@]}"
    exit $((failed > 0))
fi

# ---------------------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || missing "Wine runs in a Debian root made by debootstrap and entered by chroot: run as root"
for tool in unshare chroot mount timeout; do
    command -v $tool >/dev/null || missing "$tool (util-linux/coreutils) is not on PATH"
done

# Runs "$@" in the root $1 inside private mount and PID namespaces: /proc, /dev, a fresh /tmp
# and the checkout (and the target directory) at their own paths. Nothing is left mounted
# after, whatever happens: the mounts die with the namespace.
in_root() {
    local root=$1
    shift
    local binds=("$REPO")
    case "$TARGET_DIR" in "$REPO"/*) ;; *) binds+=("$TARGET_DIR") ;; esac
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    # A failure to set the root up is this script's own (status 70), not a missing piece.
    unshare --mount --propagation private --pid --fork --kill-child -- bash -c '
        set -e
        trap "exit 70" ERR
        root=$1 cgroup=$2
        shift 2
        [ -z "$cgroup" ] || echo $$ >"$cgroup/cgroup.procs"
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs -o size=4g tmpfs "$root/tmp"
        while [ "$1" != -- ]; do mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; done
        shift
        exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
            ${CI:+CI=$CI} ${CARGO_TARGET_DIR:+CARGO_TARGET_DIR=$CARGO_TARGET_DIR} "$@"
    ' in_root "$root" "${CGROUP:-}" "${binds[@]}" -- "$@"
}

# A memory cgroup for the run where the machine lets us make one (v1 or v2), else none.
CGROUP=
make_cgroup() {
    local v1 v2 d
    v1=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
    v2=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
    if [ -n "$v1" ] && [ -d "/sys/fs/cgroup/memory$v1" ]; then
        d=/sys/fs/cgroup/memory${v1%/}/kaname-wine-$$
        mkdir "$d" 2>/dev/null && echo "$MEMORY_LIMIT" >"$d/memory.limit_in_bytes" 2>/dev/null && CGROUP=$d
    elif [ -n "$v2" ] && [ -f "/sys/fs/cgroup${v2%/}/cgroup.controllers" ]; then
        d=/sys/fs/cgroup${v2%/}/kaname-wine-$$
        mkdir "$d" 2>/dev/null && echo "$MEMORY_LIMIT" >"$d/memory.max" 2>/dev/null && CGROUP=$d
    fi
    if [ -n "$CGROUP" ]; then
        say "memory limit $MEMORY_LIMIT (cgroup $CGROUP)"
    else
        [ -z "${d:-}" ] || rmdir "$d" 2>/dev/null || true
        say "no memory cgroup could be made: the run has no memory limit of its own"
    fi
}
drop_cgroup() {
    [ -n "$CGROUP" ] || return 0
    local peak
    peak=$(cat "$CGROUP/memory.max_usage_in_bytes" "$CGROUP/memory.peak" 2>/dev/null | head -1 || true)
    [ -z "$peak" ] || say "peak memory of the run: $((peak >> 20)) MiB"
    rmdir "$CGROUP" 2>/dev/null || true
}

# After a failed step in the root being made: a missing piece (69), or this script's failure
# to set the root up (in_root's 70), which is no reason to skip.
root_failed() {
    [ "$1" = 70 ] && { say "FAILED to enter the Wine root (see $CACHE/wine-install.log)"; exit 1; }
    missing "$2 (see $CACHE/wine-install.log)"
}

ensure_root() {
    # The Wine root, made once: debootstrap (the host's, or Debian's package unpacked into the
    # cache), Wine from trixie, a Wine prefix. Made in a temporary folder, renamed when whole.
    if [ ! -f "$WINE_ROOT/.kaname-ready" ]; then
        t0=$(date +%s)
        tmp=$WINE_ROOT.tmp
        if [ -e "$tmp" ]; then
            grep -q " $tmp/" /proc/mounts && { say "$tmp has mounts on it; not removing it"; exit 1; }
            rm -rf --one-file-system "$tmp"
        fi
        if command -v debootstrap >/dev/null; then
            debootstrap=(debootstrap)
        else
            dbs=$CACHE/debootstrap
            if [ ! -x "$dbs/usr/sbin/debootstrap" ]; then
                say "fetching Debian's debootstrap"
                apt_update
                rm -rf "$dbs" && mkdir -p "$dbs"
                apt_download debootstrap "$dbs"
                dpkg-deb -x "$dbs"/debootstrap_*.deb "$dbs"
            fi
            export DEBOOTSTRAP_DIR=$dbs/usr/share/debootstrap
            debootstrap=("$dbs/usr/sbin/debootstrap")
        fi
        command -v wget >/dev/null || host_install wget # debootstrap downloads with it
        say "making the Wine root (Debian trixie, minbase) in $tmp"
        mkdir -p "$tmp"
        "${debootstrap[@]}" --variant=minbase --keyring="$KEYRING" trixie "$tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
            || missing "debootstrap of Debian trixie from $MIRROR failed (see $CACHE/debootstrap.log: $(tail -1 "$CACHE/debootstrap.log"))"
        say "installing Wine in it"
        in_root "$tmp" sh -c 'export DEBIAN_FRONTEND=noninteractive
            apt-get update -q && apt-get install -y -q --no-install-recommends wine wine64' >"$CACHE/wine-install.log" 2>&1 \
            || root_failed $? "apt-get install wine wine64 in the trixie root failed"
        # The prefix (C:\ and the registry), made once: its first start prints harmless noise.
        in_root "$tmp" sh -c 'WINEDEBUG=-all wineboot -i' >>"$CACHE/wine-install.log" 2>&1 \
            || root_failed $? "wineboot in the trixie root failed"
        in_root "$tmp" sh -c 'wine --version' >"$tmp/.kaname-ready"
        mv "$tmp" "$WINE_ROOT"
        say "Wine root ready: $(cat "$WINE_ROOT/.kaname-ready") ($(($(date +%s) - t0)) s)"
    fi
}

if [ "${1:-}" = --run ]; then
    shift
    ensure_root
    in_root "$WINE_ROOT" env WINEDEBUG=-all bash -c 'cd "$0" && exec "$@"' "$REPO" "$@"
    exit
fi

# 1. kaname.exe and the Windows unit tests (build_windows.sh's exit 69 passes through).
bash scripts/build_windows.sh
units=$(bash scripts/build_windows.sh --cargo test --release -p engine -p search --lib --no-run \
    --message-format=json-render-diagnostics | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p')

# 2. The Linux end-to-end test binaries (the Linux suite built them already).
# (--workspace, as the Linux suite: the same features, so nothing is built again.)
e2e=$(cargo test --release --workspace --no-run --message-format=json-render-diagnostics | grep '"executable":"/')
{
    for u in $units; do printf 'unit\t%s\t%s\n' "$(basename "$u" | sed 's/-[0-9a-f]*\.exe$/ (Windows unit tests)/')" "$u"; done
    for t in $E2E; do
        path=$(printf '%s\n' "$e2e" | grep -F "\"src_path\":\"$REPO/tests/$t.rs\"" \
            | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | head -1)
        [ -n "$path" ] || { say "no test binary for tests/$t.rs"; exit 1; }
        printf 'e2e\t%s\t%s\n' "tests/$t.rs" "$path"
    done
} >"$LIST"

# 3. The Wine root (made once), then the tests.
ensure_root
say "running under $(cat "$WINE_ROOT/.kaname-ready"): $(cut -f2 "$LIST" | paste -sd, - | sed 's/,/, /g')"
make_cgroup
rc=0
in_root "$WINE_ROOT" bash "$REPO/scripts/test_windows.sh" --inside || rc=$?
drop_cgroup
say "done in $(($(date +%s) - START)) s: $([ $rc = 0 ] && echo "all passed" || echo "FAILED")"
exit $rc
