#!/usr/bin/env bash
# appliance installer: `sudo scripts/install.sh` provisions a Raspberry Pi (or any Debian 13 or 12
# machine) into a running appliance; `scripts/install.sh --dev` sets up a development checkout.
# Both modes are idempotent: a second run changes nothing and says so.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
SCRIPT="$ROOT/scripts/install.sh"
readonly SCRIPT

# ----------------------------------------------------------------------------------------------
# Output

CURRENT_STEP="" # named in every error message
step() {
  CURRENT_STEP="$*"
  printf '\n==> %s\n' "$*"
}
info() { printf '    %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
  # die CODE MESSAGE...: a clear message and a distinct exit code (sysexits.h where one fits).
  local code="$1"
  shift
  if [[ -n "$CURRENT_STEP" ]]; then
    printf '\nERROR in step "%s": %s\n' "$CURRENT_STEP" "$*" >&2
  else
    printf '\nERROR: %s\n' "$*" >&2
  fi
  exit "$code"
}

on_error() {
  # The ERR trap: a command failed that no check above expected. Say which, where, and where the
  # log is, instead of ending in silence (set -e alone exits without a word).
  local status="$1" line="$2" command="$3" where="${FUNCNAME[1]:-main}" file="${BASH_SOURCE[1]:-$SCRIPT}"
  if ((BASH_SUBSHELL > 0)); then
    # inside $(...): the detail; the script's own line is reported by the shell that ran it
    printf '    (inside %s, line %s: "%s" exited with status %s)\n' "$where" "$line" "$command" "$status" >&2
    exit "$status"
  fi
  trap - ERR
  if [[ -n "$CURRENT_STEP" ]]; then
    printf '\nERROR: step "%s" failed unexpectedly.\n' "$CURRENT_STEP" >&2
  else
    printf '\nERROR: install.sh failed unexpectedly, before its first step.\n' >&2
  fi
  printf '  %s line %s (%s): "%s" exited with status %s.\n' "$file" "$line" "$where" "$command" "$status" >&2
  if [[ -n "${LOG_FILE_IN_USE:-}" ]]; then
    printf '  Everything this run printed is in %s.\n' "$LOG_FILE_IN_USE" >&2
  fi
  printf '  Run it again after fixing the cause shown above; a second run resumes where this one stopped.\n' >&2
  exit "$EX_SOFTWARE"
}

start_log() {
  # start_log FILE ARGS...: everything from here on goes to the terminal and to FILE.
  local file="$1"
  shift
  mkdir -p "$(dirname "$file")"
  exec > >(tee -a "$file") 2> >(tee -a "$file" >&2)
  LOG_FILE_IN_USE="$file"
  printf '\n===== %s: %s %s\n' "$(date -Is)" "$SCRIPT" "$*"
}

trap_errors() {
  # Inherited by functions and $(...) (errtrace), so no failure anywhere goes unreported.
  set -o errtrace
  trap 'on_error "$?" "$LINENO" "$BASH_COMMAND"' ERR
}

readonly EX_USAGE=64 EX_NOHOST=68 EX_UNAVAILABLE=69 EX_SOFTWARE=70 EX_OSFILE=72 EX_CANTCREAT=73 EX_NOPERM=77 EX_CONFIG=78

usage() {
  cat <<EOF
Usage:
  sudo $SCRIPT [--no-blas] [--quant Q4_K_M|Q5_K_M] [--models-from DIR] [--models-manifest FILE]
      Provision this Raspberry Pi (Raspberry Pi OS Lite 64-bit, trixie or bookworm) as an appliance:
      Debian packages, user 'appliance', venv /opt/appliance, llama.cpp built with NEON and
      OpenBLAS (--no-blas: without), the models, /etc/appliance/appliance.yaml and the
      systemd service. --models-from installs the models from a local folder (offline);
      --models-manifest uses another manifest (JSON, see appliance models list --json).
      Logs to /var/log/appliance-install.log.
  sudo $SCRIPT --uninstall [--purge]
      Remove the service and the venv; --purge also removes config, models, state and the user.
  $SCRIPT --dev [--bench-models]
      Set up this checkout for development: Debian packages (when root), .venv, the package
      editable with extras [$DEV_EXTRAS] and the small models of docs/models.md;
      --bench-models adds the 491 MB Qwen stand-in under .cache/models.
EOF
}

# ----------------------------------------------------------------------------------------------
# Shared helpers

is_root() { [[ "$(id -u)" -eq 0 ]]; }

missing_debian_packages() {
  # Print the packages of "$@" that dpkg does not have installed.
  local pkg status
  for pkg in "$@"; do
    status="$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)"
    [[ "$status" == ii* ]] || printf '%s\n' "$pkg"
  done
}

ensure_debian_packages() {
  # ensure_debian_packages REQUIRED(0|1) PKG...: install what is missing (apt-get update once,
  # only then); without root or apt, say what is missing and how to install it.
  local required="$1"
  shift
  if ! command -v dpkg-query >/dev/null 2>&1; then
    warn "not a Debian system (no dpkg-query): make sure these are installed: $*"
    return 0
  fi
  local missing=()
  mapfile -t missing < <(missing_debian_packages "$@")
  if [[ ${#missing[@]} -eq 0 ]]; then
    info "all ${#} Debian packages present"
    return 0
  fi
  info "missing: ${missing[*]}"
  if ! is_root || ! command -v apt-get >/dev/null 2>&1; then
    local how="sudo apt-get install -y ${missing[*]}"
    if [[ "$required" == 1 ]]; then
      die "$EX_NOPERM" "Debian packages missing: ${missing[*]}. Run as root, or install them first: $how"
    fi
    warn "Debian packages missing (not root, so not installing them): ${missing[*]}"
    warn "install them with: $how"
    return 0
  fi
  info "apt-get update"
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  info "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  mapfile -t missing < <(missing_debian_packages "$@")
  [[ ${#missing[@]} -eq 0 ]] || die "$EX_UNAVAILABLE" "apt-get could not install: ${missing[*]}"
}

preflight() {
  # preflight ARGS...: appliance/setup/preflight.py (standard library only), run by the system's python3
  # unless PREFLIGHT_PYTHON names another; the thresholds and pins install.sh and doctor share.
  "${PREFLIGHT_PYTHON:-python3}" "$ROOT/appliance/setup/preflight.py" "$@"
}

pins() { preflight pins "$1"; }

machine_check() {
  # machine_check EXIT_CODE CHECK ARGS...: the check's finding as a line; a failure ends the install.
  local code="$1" line
  shift
  if line="$(preflight "$@")"; then
    case "$line" in
      warn:*) warn "${line#warn: }" ;;
      *) info "${line#ok: }" ;;
    esac
  elif [[ "$line" == fail:* ]]; then
    die "$code" "${line#fail: }"
  else
    die "$EX_SOFTWARE" "the $1 check could not run: $line"
  fi
}

python_problem() {
  # python_problem PYTHON: nothing when it runs and is new enough, else why not.
  local line
  line="$(PREFLIGHT_PYTHON="$1" preflight python 2>&1)" || true
  case "$line" in
    ok:*) ;;
    fail:*) printf '%s\n' "${line#fail: }" ;;
    *) printf '%s cannot run a Python check (%s)\n' "$1" "${line:-no output}" ;;
  esac
}

python_version() { "$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || echo "none"; }

ensure_venv() {
  # ensure_venv DIR: a venv of a new enough Python (appliance/setup/preflight.py) at DIR, made with $PYTHON
  # when absent.
  local venv="$1" python="${PYTHON:-python3}" problem
  if [[ -x "$venv/bin/python" ]]; then
    problem="$(python_problem "$venv/bin/python")"
    if [[ -n "$problem" ]]; then
      die "$EX_CONFIG" "$venv has $problem. Remove it (rm -rf $venv) and run again."
    fi
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
      die "$EX_CONFIG" "$venv has no working pip (was python3-venv missing when it was made?). Remove it (rm -rf $venv) and run again."
    fi
    info "$venv exists (Python $(python_version "$venv/bin/python")): kept"
    return 0
  fi
  command -v "$python" >/dev/null 2>&1 || die "$EX_UNAVAILABLE" "$python not found: install Debian's python3 (apt-get install python3 python3-venv), or set PYTHON=/path/to/python3.11"
  problem="$(python_problem "$python")"
  [[ -z "$problem" ]] || die "$EX_CONFIG" "$python: $problem. Set PYTHON=/path/to/python3 (3.11 to 3.13)"
  info "creating $venv with $python (Python $(python_version "$python"))"
  "$python" -m venv "$venv" || die "$EX_CANTCREAT" "could not create $venv: on Debian install python3-venv (apt-get install python3-venv)"
}

pip_install() {
  # pip_install VENV ARGS...: pip without its version check, progress bars off (log friendly).
  local venv="$1"
  shift
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --progress-bar off "$@"
}

check_requirements() {
  # check_requirements VENV EXTRAS IMPORTS...: prints what of pyproject.toml's requirements (with the
  # extras) the venv lacks and the modules that fail to import; fails when there is any.
  local venv="$1" extras="$2"
  shift 2
  PREFLIGHT_PYTHON="$venv/bin/python" preflight requirements "$ROOT/pyproject.toml" "$extras" "$@"
}

check_dev_checkout() {
  # check_dev_checkout VENV: the venv imports appliance from this checkout and has every development
  # model file; prints what is wrong and fails otherwise.
  PREFLIGHT_PYTHON="$1/bin/python" preflight dev-checkout "$ROOT"
}

check_pins() {
  # check_pins VENV dev|bench|pi: prints the pins not installed at exactly their version; fails if any.
  PREFLIGHT_PYTHON="$1/bin/python" preflight pins-installed "$2"
}

sha256_file() { sha256sum "$1" | cut -d' ' -f1; }

# ----------------------------------------------------------------------------------------------
# llama.cpp builds (both modes)

# llama-cpp-python has no binary wheel: both modes compile it. pip's own wheel cache is keyed by
# the source package only, not by CMAKE_ARGS or the CPU, so it could hand back a build made with
# other flags or for another CPU (a -march=native build that used AMX, which traps on some x86
# VMs; an Arm build with SVE, which a Pi 5 lacks). So pip's cache is bypassed, and built wheels
# are kept in a cache of our own, one folder per version, flags and (for native builds) CPU.
LLAMA_VERSION="0.3.36" # within pyproject.toml's llama-cpp-python requirement (a unit test checks)
LLAMA_FLAGS_FILE=".appliance-llama-cmake-args" # in the venv: the CMAKE_ARGS its llama.cpp was built with
# Every build compiles only the libraries the bindings load (the file says how); the file's text is part
# of each build's cache key, so changing it builds afresh.
LLAMA_LIBRARY_ONLY="$ROOT/scripts/lib/llama-library-only.cmake"

cached_wheel() {
  # cached_wheel DIR: the path of the llama_cpp_python wheel in DIR, or nothing (DIR may not exist).
  local found=("$1"/llama_cpp_python-*.whl)
  if [[ -f "${found[0]}" ]]; then printf '%s\n' "${found[0]}"; fi
}

wheel_key() { { printf '%s\n' "$@"; cat "$LLAMA_LIBRARY_ONLY"; } | sha256sum | cut -c1-16; }

OS_RELEASE="${APPLIANCE_OS_RELEASE:-/etc/os-release}" # tests point this at made-up files

system_identity() {
  # What any build also depends on, beyond its flags and CPU: the OS release (its libraries) and the
  # compilers. An upgraded system (bookworm to trixie: gcc 12 to 14) never reuses another system's build.
  printf 'os %s\n' "$(preflight os-identity "$OS_RELEASE")"
  printf 'cc %s\n' "$(cc --version 2>/dev/null | head -n 1 || true)"
  printf 'c++ %s\n' "$(c++ --version 2>/dev/null | head -n 1 || true)"
}

wheel_dir_name() {
  # wheel_dir_name KEY: the cache folder of one build, readable by its owner: llama-0.3.36-debian13-KEY.
  printf 'llama-%s-%s-%s\n' "$LLAMA_VERSION" "$(preflight os-identity "$OS_RELEASE" | tr -d ' ')" "$1"
}

build_llama_wheel() {
  # build_llama_wheel DIR CMAKE_ARGS: the wheel, built into DIR (made whole or not at all).
  # APPLIANCE_LLAMA_WHEEL=FILE hands over a wheel built elsewhere instead (for instance on a faster
  # machine with the same flags); it is checked exactly like a wheel built here.
  local dir="$1" cmake_args="$2" partial="$1.partial" library_only
  library_only="-DCMAKE_PROJECT_llama.cpp_INCLUDE=$(printf '%q' "$LLAMA_LIBRARY_ONLY")"
  rm -rf "$partial"
  mkdir -p "$partial"
  if [[ -n "${APPLIANCE_LLAMA_WHEEL:-}" ]]; then
    [[ -f "$APPLIANCE_LLAMA_WHEEL" ]] || die "$EX_OSFILE" "APPLIANCE_LLAMA_WHEEL=$APPLIANCE_LLAMA_WHEEL is not a file"
    info "using the wheel handed over in APPLIANCE_LLAMA_WHEEL: $APPLIANCE_LLAMA_WHEEL"
    cp "$APPLIANCE_LLAMA_WHEEL" "$partial/"
  else
    # Compiler jobs the memory can hold (about 0.8 GB each): a 2 GB Pi 5 compiles on 2 cores, not 4.
    local jobs
    jobs="$(preflight build-jobs "${MEMINFO:-/proc/meminfo}")"
    info "building llama-cpp-python $LLAMA_VERSION with CMAKE_ARGS=\"$cmake_args\", only the libraries its bindings load, $jobs compiler jobs (a few minutes on 2-4 cores)"
    if ! CMAKE_ARGS="$cmake_args $library_only" CMAKE_BUILD_PARALLEL_LEVEL="$jobs" FORCE_CMAKE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV_FOR_BUILD/bin/python" \
      -m pip wheel --progress-bar off --no-cache-dir --no-deps -w "$partial" "llama-cpp-python==$LLAMA_VERSION"; then
      rm -rf "$partial"
      die "$EX_UNAVAILABLE" "llama-cpp-python $LLAMA_VERSION did not build (its output is above). build-essential and cmake are needed (the Debian packages step), and the package index must be reachable."
    fi
  fi
  [[ -n "$(cached_wheel "$partial")" ]] || die "$EX_SOFTWARE" "no llama_cpp_python wheel came out in $partial"
  rm -rf "$dir"
  mv "$partial" "$dir"
}

vet_llama_wheel() {
  # vet_llama_wheel VENV WHEEL MODEL [JUDGE ARGS...]: unpack the wheel; with JUDGE ARGS, ask its library what
  # it was built with and judge that for this CPU (appliance/setup/llama_build.py, as doctor does); install its
  # own requirements; run a real prompt of the model through it in a child process, so that a build this CPU
  # cannot run dies there ("illegal instruction") and not in the service; only then install it into VENV.
  # Returns 1, saying why, when the build is refused: nothing of it is installed then. The flags it was built
  # with (LLAMA_CMAKE_ARGS) go beside it in the venv, for bench/llm.py to build its reference alike.
  local venv="$1" wheel="$2" model="$3" unpacked report requires=()
  shift 3
  unpacked="$(mktemp -d)"
  "$venv/bin/python" -m zipfile -e "$wheel" "$unpacked"
  if [[ $# -gt 0 ]]; then
    info "what llama.cpp says of the build:"
    if ! report="$("$venv/bin/python" "$ROOT/appliance/setup/llama_build.py" --lib-dir "$unpacked/llama_cpp/lib" "$@" 2>&1)"; then
      printf '%s\n' "$report" | sed 's/^/    /'
      rm -rf "$unpacked"
      return 1
    fi
    printf '%s\n' "$report" | sed 's/^/    /'
  fi
  mapfile -t requires < <(preflight wheel-requires "$wheel")
  pip_install "$venv" "${requires[@]}"
  info "trying the build on a real prompt of ${model##*/} before installing it"
  if ! report="$("$venv/bin/python" "$ROOT/appliance/setup/llama_build.py" --smoke "$model" --package-dir "$unpacked" 2>&1)"; then
    printf '    %s\n' "$report"
    rm -rf "$unpacked"
    return 1
  fi
  info "$report"
  rm -rf "$unpacked"
  pip_install "$venv" --force-reinstall --no-deps "$wheel"
  printf '%s\n' "${LLAMA_CMAKE_ARGS:-}" >"$venv/$LLAMA_FLAGS_FILE"
}

use_disk_for_temporary_files() {
  # use_disk_for_temporary_files DIR: builds and unpacked downloads go to a folder of this run under DIR,
  # removed at exit. trixie's /tmp is a tmpfs of half the memory (1 GB on a 2 GB Pi 5): compiling llama.cpp
  # and unpacking wheels there would take the memory the build itself needs.
  mkdir -p "$1"
  BUILD_TMP="$(mktemp -d "$1/run.XXXXXX")"
  export TMPDIR="$BUILD_TMP"
  trap 'rm -rf "$BUILD_TMP"' EXIT
}

# ----------------------------------------------------------------------------------------------
# The two modes

# shellcheck source=scripts/lib/dev.sh
source "$ROOT/scripts/lib/dev.sh"
# shellcheck source=scripts/lib/pi.sh
source "$ROOT/scripts/lib/pi.sh"

# ----------------------------------------------------------------------------------------------
# Command line

MODE="pi"
CHANGED=0  # set to 1 by any step that installed or changed something
BENCH_MODELS=0
BLAS=1
QUANT="Q4_K_M"
QUANT_GIVEN=""
MODELS_FROM=""
MODELS_MANIFEST=""
PURGE=0

parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --dev) MODE="dev" ;;
      --bench-models) BENCH_MODELS=1 ;;
      --no-blas) BLAS=0 ;;
      --quant)
        [[ $# -ge 2 ]] || die "$EX_USAGE" "--quant needs a value: Q4_K_M or Q5_K_M"
        QUANT="$2"
        QUANT_GIVEN=1
        shift
        ;;
      --models-from)
        [[ $# -ge 2 ]] || die "$EX_USAGE" "--models-from needs a folder"
        MODELS_FROM="$(realpath "$2")"
        shift
        ;;
      --models-manifest)
        [[ $# -ge 2 ]] || die "$EX_USAGE" "--models-manifest needs a file"
        MODELS_MANIFEST="$(realpath "$2")"
        shift
        ;;
      --uninstall) MODE="uninstall" ;;
      --purge) PURGE=1 ;;
      -h | --help)
        usage
        exit 0
        ;;
      *)
        usage >&2
        die "$EX_USAGE" "unknown option: $1"
        ;;
    esac
    shift
  done
  case "$QUANT" in
    Q4_K_M | Q5_K_M) ;;
    *) die "$EX_USAGE" "--quant must be Q4_K_M or Q5_K_M, not $QUANT" ;;
  esac
  if [[ "$MODE" != "dev" && "$BENCH_MODELS" == 1 ]]; then
    die "$EX_USAGE" "--bench-models goes with --dev"
  fi
  if [[ "$MODE" != "uninstall" && "$PURGE" == 1 ]]; then
    die "$EX_USAGE" "--purge goes with --uninstall"
  fi
}

main() {
  trap_errors
  parse_args "$@"
  case "$MODE" in
    dev)
      use_disk_for_temporary_files "${XDG_CACHE_HOME:-$HOME/.cache}/appliance/tmp"
      dev_install
      ;;
    uninstall) pi_uninstall "$@" ;;
    *)
      is_root && use_disk_for_temporary_files "$PI_BUILD_DIR"
      pi_install "$@"
      ;;
  esac
}

# Sourcing the file (tests do) defines the functions without running anything.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main "$@"
fi
