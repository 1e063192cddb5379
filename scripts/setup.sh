#!/usr/bin/env bash
# Installs what Concur needs on a fresh Debian 12 machine (as root), and
# nothing twice: apt packages only when missing. Toolchains a package manager
# fetches per project (Go modules, npm, cargo crates, Maven) are fetched by
# each implementation's build command instead.
#
# Usage: scripts/setup.sh [--test]
#   --test    also what make test and the bench/ scripts need beyond the main
#             job (make setup and make test): Locust's virtual environment,
#             the reference tools (wrk, ab, nginx), the multi-host Locust
#             test's nftables and the report test's Chromium. make bench's
#             quick profile measures with concur load alone and opens no
#             browser, so a fresh machine's make bench fetches none of them
#             (Chromium alone is an 81 MB package, 290 MB installed).
#             --locust is its former name.
set -euo pipefail

test_tools=no
for arg in "$@"; do
  case $arg in
    --test | --locust) test_tools=yes ;;
    *) echo "setup: unknown argument '$arg'; the only one is --test (also what make test needs: Locust, wrk, ab, nginx, nftables, Chromium)" >&2; exit 2 ;;
  esac
done

want=(
  # BEAM implementations: Erlang/OTP, Elixir, Debian's mochiweb and jiffy, libxcrypt for the bcrypt NIF,
  # and Debian's PostgreSQL driver for elixir's database routes (Hex is not reachable)
  erlang-nox erlang-dev elixir erlang-mochiweb erlang-jiffy libcrypt-dev erlang-p1-pgsql
  # Ruby implementations: Ruby, Puma, Rails, Sinatra, Rack and bcrypt, all from Debian (RubyGems is not used);
  # for the database routes the pg gem, Sequel (ruby-rack, ruby-sinatra) and Active Record (ruby-rails)
  ruby ruby-bundler puma ruby-sinatra ruby-rack ruby-rails ruby-bcrypt ruby-rack-test rake
  ruby-pg ruby-sequel ruby-activerecord
  # Python implementations: each builds its own virtual environment from PyPI
  python3-venv
  # The database routes (SPEC §8): PostgreSQL 15, its contrib modules (pg_stat_statements) included
  postgresql-15
  # Build basics
  build-essential pkg-config ca-certificates curl
)
if [ "$test_tools" = yes ]; then
  want+=(
    # Benchmarks against reference tools (bench/, the load generator's tests)
    wrk apache2-utils nginx-light
    # The multi-host Locust test: network namespaces (ip), NAT into the server's loopback (nft)
    iproute2 nftables
    # The report's test renders it in a headless browser
    chromium
  )
fi
command -v go >/dev/null || want+=(golang-go)
command -v node >/dev/null || want+=(nodejs npm)
command -v mvn >/dev/null || want+=(maven)
command -v java >/dev/null || want+=(default-jdk-headless)

missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# nginx-light starts a system nginx on port 80; the benchmarks start their own.
if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then systemctl stop nginx || true; fi

# Locust, the second load generator (`concur run --generator locust`), in a
# virtual environment of its own, from a requirements file pinned with hashes
# (tools/locust/requirements.in, compiled by pip-compile --generate-hashes).
# A failure here only skips Locust points, each run saying so in one line.
locust_dir="$(cd "$(dirname "$0")/.." && pwd)/tools/locust"
if [ "$test_tools" = yes ] && { [ ! -x "$locust_dir/.venv/bin/locust" ] || ! cmp -s "$locust_dir/requirements.txt" "$locust_dir/.venv/requirements.txt"; }; then
  echo "setup: installing Locust into tools/locust/.venv"
  rm -rf "$locust_dir/.venv"
  if python3 -m venv "$locust_dir/.venv" \
    && "$locust_dir/.venv/bin/pip" install -q --require-hashes -r "$locust_dir/requirements.txt"; then
    cp "$locust_dir/requirements.txt" "$locust_dir/.venv/requirements.txt"
  else
    echo "setup: Locust could not be installed; Locust points will be skipped (see the messages above)" >&2
    rm -rf "$locust_dir/.venv"
  fi
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo is missing; install Rust (https://rustup.rs or apt install cargo)" >&2
  exit 1
fi
echo "setup: ok"
