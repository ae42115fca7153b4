# shellcheck shell=bash
# sudo install.sh: provision a Raspberry Pi (or any Debian 13 or 12 machine) into a running appliance:
# machine checks, Debian packages, user, venv, the llama.cpp build, the package, config, models and
# the systemd service; and --uninstall. Sourced by scripts/install.sh, which defines the output,
# error and shared helpers used here.

# Debian packages the appliance needs on a Pi (no PulseAudio: it plays through ALSA directly).
PI_DEBIAN_PACKAGES=(
  python3 python3-venv python3-dev build-essential cmake pkg-config
  libopenblas-dev libportaudio2 libspeexdsp1 libsystemd-dev systemd alsa-utils ca-certificates
)
# Modules a working appliance venv imports.
PI_IMPORTS=(appliance vosk piper sounddevice soxr yaml numpy systemd.journal onnxruntime openwakeword.model)
APP_USER="appliance"
PI_PREFIX="/opt/appliance"
PI_VENV="/opt/appliance/venv" # systemd/appliance.service runs $PI_VENV/bin/appliance
CONFIG_DIR="/etc/appliance"
STATE_DIR="/var/lib/appliance"
MODELS_DIR="/var/lib/appliance/models"
PI_CACHE="/var/cache/appliance"
PI_WHEEL_CACHE="$PI_CACHE/wheels" # llama.cpp builds, one folder per version, flags, CPU and system
# shellcheck disable=SC2034 # used by install.sh, which sources this file
PI_BUILD_DIR="$PI_CACHE/build"    # builds and unpacked downloads: on disk, never in trixie's tmpfs /tmp
UNIT_NAME="appliance.service"
UNIT_DIR="/etc/systemd/system"
UNIT_PATH="$UNIT_DIR/$UNIT_NAME"
NETWORK_CHANGED=0 # set to 1 by ensure_network when it wrote or removed a network drop-in
LOG_FILE="${APPLIANCE_INSTALL_LOG:-/var/log/appliance-install.log}"
CLI_LINK="/usr/local/bin/appliance"
START_TIMEOUT_S=180 # the unit allows 120 s for loading the models before READY=1
# The machine's minimums (memory, disk, Python) live in appliance/setup/preflight.py, shared with doctor.
# Where the checks look; tests point these at made-up files.
DT_MODEL="${APPLIANCE_DT_MODEL:-/proc/device-tree/model}"
MEMINFO="${APPLIANCE_MEMINFO:-/proc/meminfo}" # also install.sh's build-jobs count
ARCH="${APPLIANCE_ARCH:-$(uname -m)}"


check_os() {
  [[ -r "$OS_RELEASE" ]] || die "$EX_UNAVAILABLE" "cannot read $OS_RELEASE: this needs Raspberry Pi OS (64-bit) trixie or bookworm, or Debian 13 or 12"
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
  machine_check "$EX_CANTCREAT" disk "$kind" "$PI_PREFIX" "$STATE_DIR" "$PI_CACHE"
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
  # Built for this CPU; without llama-cpp-python's multimodal library (libmtmd), which the hub never
  # loads and which is about a fifth of the compile.
  local args="-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF"
  if [[ "$BLAS" == 1 ]]; then args+=" -DGGML_BLAS=ON -DGGML_BLAS_VENDOR=OpenBLAS"; fi
  printf '%s\n' "$args"
}

llama_check() {
  # llama_check LIB_DIR: llama.cpp's own report of the build in LIB_DIR, judged for this CPU and
  # for --no-blas (appliance/setup/llama_build.py, the same rules as `appliance doctor`); fails on a problem.
  "$PI_VENV/bin/python" "$ROOT/appliance/setup/llama_build.py" --lib-dir "$1" --blas "$([[ "$BLAS" == 1 ]] && echo yes || echo no)"
}

installed_llama_lib() {
  # The lib folder of the llama_cpp package installed in the venv, or nothing.
  "$PI_VENV/bin/python" "$ROOT/appliance/setup/llama_build.py" --where 2>/dev/null || true
}

ensure_llama() {
  local cmake_args key dir wheel stamp="$PI_VENV/.appliance-llama-build" report lib model
  cmake_args="$(pi_llama_cmake_args)"
  key="$(wheel_key "$LLAMA_VERSION" "$cmake_args" "$(cpu_identity)" "$(system_identity)")"
  dir="$PI_WHEEL_CACHE/$(wheel_dir_name "$key")"
  lib="$(installed_llama_lib)"
  if [[ -n "$lib" && -f "$stamp" && "$(cat "$stamp")" == "$key" ]] && report="$(llama_check "$lib" 2>&1)"; then
    info "llama-cpp-python $LLAMA_VERSION is installed, built with CMAKE_ARGS=\"$cmake_args\" on this CPU and system"
    printf '%s\n' "$report" | sed 's/^/    /'
    return 0
  fi
  wheel="$(cached_wheel "$dir")"
  if [[ -n "$wheel" ]]; then
    info "llama-cpp-python wheel for these flags, this CPU and this system already built: $wheel"
  else
    VENV_FOR_BUILD="$PI_VENV" build_llama_wheel "$dir" "$cmake_args"
    wheel="$(cached_wheel "$dir")"
  fi
  # The language model the service will run, so that the build is tried on the real thing.
  model="$(PREFLIGHT_PYTHON="$PI_VENV/bin/python" preflight model llm "$CONFIG_DIR/appliance.yaml" 2>&1)" \
    || die "$EX_SOFTWARE" "cannot find the language model to try the build on: $model"
  if ! LLAMA_CMAKE_ARGS="$cmake_args" vet_llama_wheel "$PI_VENV" "$wheel" "$model" --blas "$([[ "$BLAS" == 1 ]] && echo yes || echo no)"; then
    rm -rf "$dir"
    die "$EX_SOFTWARE" "the llama.cpp build does not suit this machine (above), so it was not installed and was removed from $PI_WHEEL_CACHE. On a Pi, the Debian packages step must have installed build-essential, cmake and (for OpenBLAS) libopenblas-dev; --no-blas builds without OpenBLAS. The full build output is in $LOG_FILE."
  fi
  printf '%s\n' "$key" >"$stamp"
  CHANGED=1
  info "installed llama-cpp-python $LLAMA_VERSION from $wheel"
}

ensure_app_package() {
  local stamp="$PI_VENV/.appliance-install-stamp" problems tmp
  if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$(pi_stamp_text)" ]] \
    && problems="$(check_requirements "$PI_VENV" "" --except llama-cpp-python "${PI_IMPORTS[@]}" 2>&1)" \
    && problems="$(check_pins "$PI_VENV" pi 2>&1)"; then
    info "up to date: the installed package matches this checkout and everything imports"
    return 0
  fi
  info "installing the appliance package from $ROOT${problems:+ (${problems//$'\n'/; })}"
  tmp="$(mktemp -d)"
  # Build from a copy, so that no build files owned by root land in the owner's checkout.
  (cd "$ROOT" && source_files | xargs -0 cp --parents -t "$tmp")
  # Everything but llama.cpp, which is built and tried on the model later (step 7/8).
  local requires=() extra=() retired=()
  mapfile -t requires < <(preflight project-requires "$ROOT/pyproject.toml" "" --except llama-cpp-python)
  if ! pip_install "$PI_VENV" --no-deps "$tmp" || ! pip_install "$PI_VENV" "${requires[@]}"; then
    rm -rf "$tmp"
    die "$EX_UNAVAILABLE" "pip could not install the appliance package (see above; a network problem is the usual cause: run this again)"
  fi
  rm -rf "$tmp"
  mapfile -t extra < <(pins pi)
  pip_install "$PI_VENV" --no-deps "${extra[@]}"
  # What an earlier install put in the venv and this one no longer has (pipecat-ai, whose turn model now
  # comes in the models folder): removed, so that `pip check` finds the venv whole after an upgrade too.
  mapfile -t retired < <(PREFLIGHT_PYTHON="$PI_VENV/bin/python" preflight retired-installed pi)
  if [[ ${#retired[@]} -gt 0 ]]; then
    info "removing what this version no longer uses: ${retired[*]}"
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$PI_VENV/bin/python" -m pip uninstall -y "${retired[@]}"
  fi
  if ! problems="$(check_requirements "$PI_VENV" "" --except llama-cpp-python "${PI_IMPORTS[@]}" 2>&1)" \
    || ! problems="$(check_pins "$PI_VENV" pi 2>&1)"; then
    die "$EX_SOFTWARE" "the appliance venv is not usable after installing: $problems"
  fi
  [[ -f "$ROOT/README.md" ]] && install -m 0644 "$ROOT/README.md" "$PI_PREFIX/README.md"
  if compgen -G "$ROOT/docs/*.md" >/dev/null; then # the pages the README links to, beside it
    install -d "$PI_PREFIX/docs"
    install -m 0644 "$ROOT"/docs/*.md "$PI_PREFIX/docs/"
  fi
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

network_dropin() { printf '%s\n' "$UNIT_DIR/$UNIT_NAME.d/home-assistant.conf"; }
wyoming_dropin() { printf '%s\n' "$UNIT_DIR/$UNIT_NAME.d/wyoming.conf"; }

network_dropins_text() {
  # What the two network drop-ins say now (empty for one that is absent), to see whether they changed.
  local file
  for file in "$(network_dropin)" "$(wyoming_dropin)"; do
    printf '== %s\n' "$file"
    [[ -f "$file" ]] && cat "$file"
  done
  return 0
}

ensure_network() {
  # The drop-ins that let the service (PrivateNetwork=yes) reach the Home Assistant of the config, and
  # be reached on the Wyoming services port, and nothing else; none for what is off:
  # `appliance network --write` (appliance/setup/network.py).
  local dropin before after out status
  dropin="$(network_dropin)"
  before="$(network_dropins_text)"
  info "appliance network --write $UNIT_DIR"
  out="$("$PI_VENV/bin/appliance" network --config "$CONFIG_DIR/appliance.yaml" --write "$UNIT_DIR" 2>&1)" \
    && status=0 || status=$?
  printf '%s\n' "$out" | sed -e '/^then: /d' -e 's/^/    /' # this script reloads and restarts by itself
  case "$status" in
    0) ;;
    "$EX_NOHOST") die "$EX_NOHOST" "home_assistant.url in $CONFIG_DIR/appliance.yaml names a host that does not resolve (above). Fix the url (Home Assistant's IP address always works) or set home_assistant.enabled: false, and run this again; the service was not (re)started." ;;
    "$EX_CONFIG") die "$EX_CONFIG" "$CONFIG_DIR/appliance.yaml has a problem (above). Fix it and run this again; the service was not (re)started." ;;
    *) die "$EX_CANTCREAT" "could not write the network drop-ins in ${dropin%/*} (above); the service was not (re)started." ;;
  esac
  after="$(network_dropins_text)"
  if [[ "$before" != "$after" ]]; then
    NETWORK_CHANGED=1
    CHANGED=1
  fi
}

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
  ensure_network
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
  if ((unit_changed || NETWORK_CHANGED)); then
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
  local problems
  is_root || die "$EX_NOPERM" "provisioning needs root: run  sudo $SCRIPT  (or $SCRIPT --dev for a development checkout)"
  start_log "$LOG_FILE" "$@"
  step "1/8 Checking this machine"
  if ! command -v python3 >/dev/null 2>&1; then
    info "python3 is needed to check this machine (appliance/setup/preflight.py): installing it first"
    ensure_debian_packages 1 python3
  fi
  check_os
  check_arch
  check_board
  check_memory
  check_disk
  step "2/8 Debian packages (${#PI_DEBIAN_PACKAGES[@]} of them)"
  ensure_debian_packages 1 "${PI_DEBIAN_PACKAGES[@]}"
  step "3/8 User $APP_USER and folders"
  ensure_user
  step "4/8 Python venv $PI_VENV"
  [[ -x "$PI_VENV/bin/python" ]] || CHANGED=1
  mkdir -p "$PI_PREFIX"
  PYTHON="${PYTHON:-/usr/bin/python3}" ensure_venv "$PI_VENV"
  step "5/8 The appliance package"
  ensure_app_package
  ensure_cli_link
  step "6/8 Config $CONFIG_DIR/appliance.yaml and models $MODELS_DIR"
  ensure_config
  ensure_models
  step "7/8 llama.cpp ($([[ "$BLAS" == 1 ]] && echo "NEON and OpenBLAS" || echo "NEON, no BLAS: --no-blas")), tried on the model before it is installed"
  ensure_llama
  if ! problems="$(check_requirements "$PI_VENV" "" llama_cpp 2>&1)"; then
    die "$EX_SOFTWARE" "the appliance venv is not usable after installing llama.cpp: $problems"
  fi
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
    rm -f "$UNIT_PATH" "$(network_dropin)" "$(wyoming_dropin)"
    rmdir "$UNIT_DIR/$UNIT_NAME.d" 2>/dev/null || true # kept when it holds the owner's own drop-ins
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
