#!/usr/bin/env bash
# The system packages every test tier needs, in one place (used by .ci/run and the Makefile).
#
#   tools/deps.sh check     list what is missing, each with its fix; exit 1 if anything is
#   tools/deps.sh install   install what is missing (apt-get, as root or through sudo) and start
#                           Redis on TUNEFARM_TEST_REDIS_PORT (default 6379) if none answers
#   tools/deps.sh ensure    install when it can (root, or passwordless sudo), else check
#   tools/deps.sh ensure gcc python3-venv    only these (what `make run` needs)
#
# Tiers: Redis (integration, browser, fuzz), Chromium (browser), pocl + clinfo (OpenCL),
# kubectl (deploy), promtool + prometheus (alert rules and dashboards: deploy, integration),
# nvcc (the cuda backend's builds; no GPU needed), gcc and python3-venv,
# PostgreSQL (the record store's tests; they create and drop their own databases as the
# `postgres` role over 127.0.0.1, $TUNEFARM_TEST_POSTGRES to point elsewhere).
set -uo pipefail

REDIS_PORT="${TUNEFARM_TEST_REDIS_PORT:-6379}"
export PATH="$PATH:/usr/local/cuda/bin"

# name @ probe (a shell test) @ apt packages @ the fix when apt cannot (else apt-get install)
DEPS=(
    "gcc@command -v gcc@gcc libc6-dev@"
    "python3-venv@probe_venv@python3-venv@"
    "redis@command -v redis-server && command -v redis-cli@redis-server redis-tools@"
    "chromium@command -v chromium@chromium@"
    "opencl@command -v clinfo && clinfo -l 2>/dev/null | grep -q Device@pocl-opencl-icd ocl-icd-opencl-dev clinfo@"
    "kubectl@command -v kubectl@kubectl@install kubectl >= 1.27: https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/"
    "prometheus@command -v promtool && command -v prometheus@prometheus@"
    "postgres@command -v pg_isready@postgresql@"
    "nvcc@command -v nvcc@nvidia-cuda-toolkit@install the CUDA toolkit >= 12 (NVIDIA's apt repository or installer; Debian: nvidia-cuda-toolkit from non-free)"
)

probe_venv() {
    local d
    d="$(mktemp -d)"
    python3 -m venv "$d/v" >/dev/null 2>&1
    local rc=$?
    rm -rf "$d"
    return $rc
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo "$@"
    else
        return 1
    fi
}

can_install() {
    command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }
}

apt_updated=0
apt_install() {
    if [ "$apt_updated" -eq 0 ]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || return 1
        apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}


PG_URL="${TUNEFARM_TEST_POSTGRES:-postgresql://postgres@127.0.0.1:5432}"
postgres_answers() { psql "$PG_URL/postgres" -Atqc "select 1" >/dev/null 2>&1; }

# The packaged cluster, started when it is down (Debian's pg_ctlcluster, else the service).
start_postgres() {
    postgres_answers && return 0
    if command -v pg_lsclusters >/dev/null 2>&1; then
        pg_lsclusters -h 2>/dev/null | while read -r version cluster _; do
            as_root pg_ctlcluster "$version" "$cluster" start >/dev/null 2>&1
        done
    else
        as_root service postgresql start >/dev/null 2>&1
    fi
    for _ in $(seq 1 50); do
        postgres_answers && return 0
        sleep 0.2
    done
    return 1
}

redis_answers() { redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; }

start_redis() {
    redis_answers && return 0
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
        --appendonly no >/dev/null || return 1
    for _ in $(seq 1 50); do
        redis_answers && return 0
        sleep 0.2
    done
    return 1
}

# kubectl is not in Debian at a version the deploy tests can use: when apt has none, take the
# official release binary (dl.k8s.io, checked against its published sha256).
install_kubectl() {
    [ "$(id -u)" -eq 0 ] || return 1
    local arch
    arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
    local dir="${KUBECTL_DIR:-/usr/local/bin}"
    python3 - "$arch" "$dir" "${KUBECTL_BASE:-https://dl.k8s.io/release}" <<'PY' && chmod 755 "$dir/kubectl"
import hashlib, sys, urllib.request
arch, where, base = sys.argv[1:4]
get = lambda url: urllib.request.urlopen(url, timeout=300).read()
version = get(f"{base}/stable.txt").decode().strip()
binary = get(f"{base}/{version}/bin/linux/{arch}/kubectl")
want = get(f"{base}/{version}/bin/linux/{arch}/kubectl.sha256").decode().split()[0]
if hashlib.sha256(binary).hexdigest() != want:
    sys.exit(f"deps: kubectl {version}: checksum mismatch")
open(f"{where}/kubectl", "wb").write(binary)
print(f"deps: installed kubectl {version} in {where}")
PY
}

missing=()
fixes=()
ONLY=()  # names given on the command line: only those (default: all)
wanted() { [ "${#ONLY[@]}" -eq 0 ] || [[ " ${ONLY[*]} " == *" $1 "* ]]; }

scan() {
    missing=()
    fixes=()
    local d name probe pkgs fix
    for d in "${DEPS[@]}"; do
        IFS='@' read -r name probe pkgs fix <<<"$d"
        wanted "$name" || continue
        if ! eval "$probe" >/dev/null 2>&1; then
            missing+=("$name")
            fixes+=("${fix:-apt-get install -y $pkgs}")
        fi
    done
}

check() {
    scan
    local i
    for i in "${!missing[@]}"; do
        echo "deps: missing ${missing[$i]}: ${fixes[$i]}" >&2
    done
    if wanted redis && command -v redis-cli >/dev/null 2>&1 && ! redis_answers; then
        echo "deps: no Redis answers on port $REDIS_PORT: redis-server --daemonize yes --port $REDIS_PORT --save ''" >&2
        missing+=("redis (not running)")
    fi
    if wanted postgres && command -v pg_isready >/dev/null 2>&1 && ! postgres_answers; then
        echo "deps: PostgreSQL does not answer at $PG_URL as the postgres role: start it (pg_ctlcluster VERSION main start) and allow that role over 127.0.0.1, or set TUNEFARM_TEST_POSTGRES" >&2
        missing+=("postgres (not answering)")
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
        if [ "${#ONLY[@]}" -eq 0 ]; then
            echo "deps: ${#missing[@]} missing; as root, 'make deps' installs them (SKIP_DEPS=1 make test runs without, skipping those tiers)" >&2
        else
            echo "deps: ${#missing[@]} missing; as root, 'make deps' installs them" >&2
        fi
        return 1
    fi
    if [ "${#ONLY[@]}" -eq 0 ]; then echo "deps: every tier's tools are here"; else echo "deps: ${ONLY[*]}: here"; fi
}

install() {
    scan
    local d name probe pkgs fix failed=0
    for d in "${DEPS[@]}"; do
        IFS='@' read -r name probe pkgs fix <<<"$d"
        [[ " ${missing[*]} " == *" $name "* ]] || continue
        echo "deps: installing $name ($pkgs)"
        apt_install $pkgs || echo "deps: apt-get could not install $name" >&2
    done
    if wanted kubectl; then command -v kubectl >/dev/null 2>&1 || install_kubectl || true; fi
    if wanted redis; then
        start_redis || { echo "deps: redis-server did not start on port $REDIS_PORT" >&2; failed=1; }
    fi
    if wanted postgres; then
        start_postgres || echo "deps: PostgreSQL did not answer at $PG_URL after starting it" >&2
    fi
    check || failed=1
    return $failed
}

action="${1:-check}"
[ "$#" -gt 0 ] && shift
ONLY=("$@")
case "$action" in
    check) check ;;
    install) install ;;
    ensure) if can_install; then install; else check; fi ;;
    *) echo "usage: tools/deps.sh check|install|ensure [NAME...]" >&2; exit 2 ;;
esac
