# Shared by scripts/build_windows.sh and scripts/test_windows.sh (sourced, not run): the cache,
# the messages, and apt with a configuration of our own for Debian's packages that the host's
# sources do not list (the host's apt configuration stays as it is; the lists live in the cache).
#
# KANAME_WIN_CACHE      the cache, outside the checkout (default ~/.cache/kaname-windows)
# KANAME_DEBIAN_MIRROR  Debian's archive (default http://deb.debian.org/debian)

CACHE=${KANAME_WIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kaname-windows}
MIRROR=${KANAME_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Suites for rust-src of the compiler's version and for debootstrap, in order.
SUITES=${KANAME_DEBIAN_SUITES:-"trixie-backports trixie forky sid"}
APT_DIR=$CACHE/apt
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

say() { echo "$SELF: $*" >&2; }

# A piece that cannot be had: the message names it; exit status 69 (EX_UNAVAILABLE) tells
# .ci/run to skip the Windows part loudly instead of failing.
missing() {
    say "CANNOT $WHAT: $*"
    exit 69
}

apt_opts() {
    echo "-o Dir::Etc::SourceList=$APT_DIR/sources.list -o Dir::Etc::SourceParts=/dev/null" \
        "-o Dir::State::Lists=$APT_DIR/lists -o Dir::State::status=$APT_DIR/status" \
        "-o Dir::Cache=$APT_DIR/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root" \
        "-o Acquire::Retries=3"
}

# Fetches the package lists of $SUITES (once a run).
apt_update() {
    [ -n "${APT_UPDATED:-}" ] && return 0
    command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
        || missing "Debian's packages: apt-get and dpkg-deb are missing"
    [ -f "$KEYRING" ] || missing "Debian's archive keys ($KEYRING, package debian-archive-keyring)"
    mkdir -p "$APT_DIR"/lists/partial "$APT_DIR"/cache/archives/partial
    : >"$APT_DIR/status"
    : >"$APT_DIR/sources.list"
    for s in $SUITES; do
        echo "deb [signed-by=$KEYRING] $MIRROR $s main" >>"$APT_DIR/sources.list"
    done
    # shellcheck disable=SC2046
    apt-get $(apt_opts) -q update >"$APT_DIR/update.log" 2>&1 \
        || missing "apt-get update of $SUITES from $MIRROR failed (see $APT_DIR/update.log)"
    if grep -E "^(W|E): " "$APT_DIR/update.log" | grep -v "unsandboxed" >&2; then
        say "(apt's warnings above)"
    fi
    APT_UPDATED=1
}

# The newest version of package $1 in $SUITES matching the extended regexp $2 (empty if none).
apt_version() {
    # shellcheck disable=SC2046
    apt-cache $(apt_opts) madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' \
        | grep -E "$2" | head -1 || true
}

# Downloads package $1 (a name or name=version) into directory $2.
apt_download() {
    # shellcheck disable=SC2046
    (cd "$2" && apt-get $(apt_opts) -q download "$1" >/dev/null 2>&1) || missing "apt-get download $1 failed"
}

# Installs the host's Debian packages "$@" (as root), updating the host's package lists first
# when an install from the lists as they are fails.
host_install() {
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || missing "Debian's $* (install them as root)"
    say "installing Debian's $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends "$@" >/dev/null; } \
        || missing "apt-get install $* failed"
}
