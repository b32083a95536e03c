#!/usr/bin/env bash
# CI: docs/development.md's plain install, `python3 -m venv v && v/bin/pip install -e .`, with Debian 12's pip
# (23.0.1, older than pip 23.3, which began to match extra names like `html_clean` to `html-clean`) gives a service
# that starts: `botyard serve` on a temporary data directory and port answers /healthz with 200 (issue 19). Unpinned
# on purpose, as a user installs (make and the rest of CI install from constraints.txt). Exit status non-zero when
# it does not.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
OLD_PIP="${OLD_PIP:-23.0.1}"
START_SECONDS="${START_SECONDS:-120}"

scratch="$(mktemp -d /tmp/botyard-old-pip.XXXXXX)"
server=""
cleanup() {
  if [[ -n "$server" ]] && kill -0 "$server" 2>/dev/null; then
    kill "$server" && wait "$server" || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

fail() {
  echo "old-pip-install: FAILED: $*" >&2
  if [[ -s "$scratch/serve.log" ]]; then
    echo "--- botyard serve output ---" >&2
    tail -n 40 "$scratch/serve.log" >&2
  fi
  exit 1
}

started=$SECONDS
"$PYTHON" -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q "pip==$OLD_PIP" || fail "could not install pip $OLD_PIP"
"$scratch/venv/bin/pip" install -q -e . || fail "pip $OLD_PIP could not install the project"
# The parsers too, which the service may come to import only when a document arrives.
"$scratch/venv/bin/python" -c "import botyard.main, botyard.ingestion.parse" || fail "pip $OLD_PIP left an import out"

installed=$SECONDS
port="$("$scratch/venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir "$scratch/data"
env -u BOTYARD_DATABASE_URL BOTYARD_DATA_DIR="$scratch/data" "$scratch/venv/bin/botyard" serve --port "$port" >"$scratch/serve.log" 2>&1 &
server=$!

healthz="http://127.0.0.1:$port/healthz"
deadline=$((SECONDS + START_SECONDS))
until "$scratch/venv/bin/python" -c '
import sys, urllib.request
try:
    sys.exit(urllib.request.urlopen(sys.argv[1], timeout=2).status != 200)
except OSError:
    sys.exit(1)
' "$healthz"; do
  kill -0 "$server" 2>/dev/null || fail "botyard serve (installed by pip $OLD_PIP) exited before answering $healthz"
  ((SECONDS < deadline)) || fail "botyard serve (installed by pip $OLD_PIP) did not answer $healthz in ${START_SECONDS}s"
  sleep 0.5
done
echo "old-pip-install: pip $OLD_PIP installed a service that answers /healthz" \
  "(install $((installed - started))s, start $((SECONDS - installed))s)"
