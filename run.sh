#!/usr/bin/env bash
# Set up what the project needs on this machine, then build the example site or run the tests.
#
#   ./run.sh site [build options]   install, then build the embedded example into _site/
#   ./run.sh test [pytest options]  install (test tools too), run ruff and mypy, then the whole test suite
#   ./run.sh quick [pytest options] install, run ruff and mypy, then the tests that need no browser,
#                                   nginx, registry or shared data and are not slow (3 to 4 min on 2 idle cores)
#   ./run.sh core [pytest options]  install, run ruff, then the core loop: the tests above that are not
#                                   heavy, the rules and models without whole builds (under a minute on 2 idle cores)
#
# Safe to run again: system packages are installed only when missing, and the
# virtualenv is refreshed only when pyproject.toml or constraints.txt change.
set -euo pipefail

cd "$(dirname "$0")"
VENV=.venv

SITE_PACKAGES=(graphviz)                          # `dot` draws the SVG graphs
TEST_PACKAGES=(graphviz chromium nginx shellcheck docker-registry apache2-utils openssl)  # browser tests, the nginx endpoint, run: steps of workflows, the registry scrape (htpasswd, test CA)
QUICK_PACKAGES=(graphviz shellcheck)              # the quick loop leaves out browser and nginx tests
# The markers (pyproject.toml) of tests the quick loop leaves out.
QUICK_MARKERS="not (browser or nginx or registry or real_data or slow)"
CORE_MARKERS="not (browser or nginx or registry or real_data or slow or heavy)"

log() { printf '==> %s\n' "$*" >&2; }

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing system packages: ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    local log_file
    log_file=$(mktemp)
    if ! { "${sudo[@]}" apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
               --no-install-recommends "${missing[@]}"; } >"$log_file" 2>&1; then
        cat "$log_file" >&2
        log "apt-get failed; install ${missing[*]} by hand and run again"
        exit 1
    fi
    rm -f "$log_file"
}

python_env() {
    local target=$1 stamp="$VENV/.installed-${1//[^a-z]/}"
    local wanted
    wanted=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating virtualenv $VENV"
        python3 -m venv "$VENV"
    fi
    if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        log "installing Python packages ($target)"
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check -c constraints.txt -e "$target"
        echo "$wanted" > "$stamp"
    fi
}

# ruff and mypy, configured in pyproject.toml; either failing fails the test command.
lint() {
    log "ruff check"
    "$VENV/bin/ruff" check --quiet .
    log "mypy"
    "$VENV/bin/mypy" --no-error-summary
}

case "${1:-}" in
    site)
        shift
        apt_install "${SITE_PACKAGES[@]}"
        python_env .
        exec "$VENV/bin/python" build.py "$@"
        ;;
    test)
        shift
        apt_install "${TEST_PACKAGES[@]}"
        python_env ".[test]"
        lint
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    quick)
        shift
        apt_install "${QUICK_PACKAGES[@]}"
        python_env ".[test]"
        lint
        # -n auto: one worker per core; these tests share no servers, so they spread safely.
        exec "$VENV/bin/python" -m pytest -n auto -m "$QUICK_MARKERS" "$@"
        ;;
    core)
        shift
        apt_install "${QUICK_PACKAGES[@]}"
        python_env ".[test]"
        log "ruff check"
        "$VENV/bin/ruff" check --quiet .
        exec "$VENV/bin/python" -m pytest -n auto -m "$CORE_MARKERS" "$@"
        ;;
    *)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
