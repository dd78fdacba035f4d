#!/usr/bin/env bash
# Builds target/x86_64-pc-windows-gnu/release/kaname.exe on Linux (Debian), from nothing but
# Debian's packages and crates.io, with the project's Rust version (Cargo.toml's rust-version).
#
#   bash scripts/build_windows.sh                  # the release exe
#   bash scripts/build_windows.sh --setup          # only the toolchain: linker and std source
#   bash scripts/build_windows.sh --cargo ARGS...  # cargo ARGS for the Windows target (tests...)
#
# The route: rustup's toolchain carries only the Linux std and cannot download another here, so
# the Windows std is built from source (cargo -Zbuild-std, unstable: RUSTC_BOOTSTRAP=1 on the
# stable compiler). The source is Debian's rust-src package of exactly the compiler's version
# (trixie-backports carries every recent release), unpacked into a cache and linked into the
# toolchain's sysroot where rustup's own rust-src component would go; the linker is MinGW-w64
# (Debian's gcc-mingw-w64-x86-64-posix). Idempotent: a second run checks and lets cargo find
# nothing to do.
#
# Cache (outside the checkout): $KANAME_WIN_CACHE, by default ~/.cache/kaname-windows (see
# scripts/windows_lib.sh).
# Exit status 69 (EX_UNAVAILABLE) when a piece cannot be had (the message names it); any other
# failure is the build's own.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
TARGET=x86_64-pc-windows-gnu
LINKER_PKG=gcc-mingw-w64-x86-64-posix
LINKER=x86_64-w64-mingw32-gcc
START=$(date +%s)
SELF=build_windows.sh
WHAT="BUILD kaname.exe"
# shellcheck source=scripts/windows_lib.sh
. scripts/windows_lib.sh

mode=build
cargo_args=(build --release)
case "${1:-}" in
    --setup) mode=setup ;;
    --cargo)
        shift
        cargo_args=("$@")
        ;;
    "") ;;
    *)
        say "unknown argument '$1' (--setup, --cargo ARGS...)"
        exit 2
        ;;
esac

# --- the compiler: the project's Rust version -------------------------------------------
want=$(sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' Cargo.toml | head -1)
[ -n "$want" ] || { say "Cargo.toml declares no rust-version"; exit 2; }
command -v rustc >/dev/null && command -v cargo >/dev/null \
    || missing "no Rust toolchain (rustc, cargo) on PATH; install Rust $want with rustup"
version_of() { rustc -V | awk '{print $2}'; }
have=$(version_of)
if [ "$have" != "$want" ] && [ "${have#"$want".}" = "$have" ]; then
    # Another default toolchain: take rustup's toolchain of the project's version if it has one.
    tc=$(rustup toolchain list 2>/dev/null | awk '{print $1}' | grep -E "^$want(\.[0-9]+)?-" | head -1 || true)
    [ -n "$tc" ] || missing "Cargo.toml's rust-version is $want but rustc is $have and rustup has no $want \
toolchain ('rustup toolchain install $want' needs rustup's download server)"
    export RUSTUP_TOOLCHAIN=$tc
    have=$(version_of)
fi
SYSROOT=$(rustc --print sysroot)
say "rustc $have (${RUSTUP_TOOLCHAIN:-default toolchain}), sysroot $SYSROOT"

# --- the linker ---------------------------------------------------------------------------
if ! command -v "$LINKER" >/dev/null; then
    host_install "$LINKER_PKG"
    command -v "$LINKER" >/dev/null || missing "$LINKER_PKG installed but $LINKER is not on PATH"
fi

# --- the standard library's source of exactly this compiler's version ---------------------
SRC_LINK=$SYSROOT/lib/rustlib/src/rust
if [ ! -f "$SRC_LINK/library/std/Cargo.toml" ]; then
    if [ -e "$SRC_LINK" ] && [ ! -L "$SRC_LINK" ]; then
        missing "$SRC_LINK exists but holds no library/std: remove it or install rustup's rust-src $have"
    fi
    unpacked=$CACHE/rust-src-$have
    if [ ! -f "$unpacked/.complete" ]; then
        say "fetching Debian's rust-src $have (the std's source, for -Zbuild-std)"
        apt_update
        debver=$(apt_version rust-src "^$(printf '%s' "$have" | sed 's/\./\\./g')[+~-]")
        if [ -z "$debver" ]; then
            offered=$(apt_version rust-src . | tr '\n' ' ')
            missing "Debian has no rust-src $have in $SUITES (the newest: ${offered:-none}); the std's source must \
match the compiler exactly"
        fi
        rm -rf "$unpacked" "$unpacked.tmp"
        mkdir -p "$unpacked.tmp"
        apt_download "rust-src=$debver" "$unpacked.tmp"
        dpkg-deb -x "$unpacked.tmp"/rust-src_*.deb "$unpacked.tmp/root"
        src=$(find "$unpacked.tmp/root/usr/src" -maxdepth 1 -name 'rustc-*' | head -1)
        [ -f "$src/library/std/Cargo.toml" ] || missing "rust-src=$debver holds no library/std"
        rm -f "$unpacked.tmp"/rust-src_*.deb
        # -Zbuild-std reads library/ only; the compiler's source is most of the package.
        find "$src" -mindepth 1 -maxdepth 1 ! -name library -exec rm -rf {} +
        echo "$debver" >"$unpacked.tmp/.complete"
        mv "$unpacked.tmp" "$unpacked"
    fi
    src=$(find "$unpacked/root/usr/src" -maxdepth 1 -name 'rustc-*' | head -1)
    mkdir -p "$(dirname "$SRC_LINK")"
    ln -sfn "$src" "$SRC_LINK"
    say "std source: $SRC_LINK -> $src (Debian rust-src $(cat "$unpacked/.complete"))"
fi

[ "$mode" = setup ] && { say "toolchain ready ($(($(date +%s) - START)) s)"; exit 0; }

# --- the build ------------------------------------------------------------------------------
# The linker and the CPU level of the Windows target are in .cargo/config.toml.
export RUSTC_BOOTSTRAP=1
# std's features: cargo's defaults, and std_detect's RUST_STD_DETECT_UNSTABLE (a space-separated
# list of CPU features that run-time detection then reports absent, e.g. "avx2 avxvnni": the
# portable code paths of the same exe, which tests/windows.rs runs).
cargo "${cargo_args[0]}" --target "$TARGET" -Zbuild-std=std,panic_unwind \
    -Zbuild-std-features=panic-unwind,backtrace,default,std_detect/std_detect_env_override "${cargo_args[@]:1}"

if [ "${cargo_args[*]}" = "build --release" ]; then
    exe=${CARGO_TARGET_DIR:-$REPO/target}/$TARGET/release/kaname.exe
    [ "$(head -c2 "$exe")" = MZ ] || { say "$exe is not a Windows executable"; exit 1; }
    # Only DLLs every Windows 10 or later has: no MinGW runtime DLL to ship beside the exe.
    dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/.*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u | tr '\n' ' ')
    for d in $dlls; do
        case "$d" in
            kernel32.dll | ntdll.dll | msvcrt.dll | advapi32.dll | bcryptprimitives.dll | api-ms-win-*.dll | userenv.dll | ws2_32.dll) ;;
            *)
                say "$exe imports $d, which a Windows machine may lack"
                exit 1
                ;;
        esac
    done
    say "built $exe ($(stat -c %s "$exe") bytes; imports $dlls) in $(($(date +%s) - START)) s"
fi
