# Sourced by the benches, from the repository root.

# Where cargo puts release binaries: $CARGO_TARGET_DIR/release (a relative
# CARGO_TARGET_DIR is taken from the repository root, as cargo takes it),
# else target/release.
release_dir() {
  local t=${CARGO_TARGET_DIR:-target}
  case $t in /*) ;; *) t=$PWD/$t ;; esac
  echo "$t/release"
}

# The same for the debug profile's binaries.
debug_dir() {
  local t=${CARGO_TARGET_DIR:-target}
  case $t in /*) ;; *) t=$PWD/$t ;; esac
  echo "$t/debug"
}

# wait_for SECONDS EVERY WHAT COMMAND...: runs COMMAND every EVERY seconds
# until it succeeds; after SECONDS, says what it waited for and exits 1.
# Polling costs CPU the measured work needs: poll no faster than a figure's
# precision asks.
wait_for() {
  local limit=$1 every=$2 what=$3
  shift 3
  local end=$((SECONDS + limit))
  until "$@"; do
    if ((SECONDS >= end)); then
      echo "timed out after ${limit}s waiting for $what" >&2
      exit 1
    fi
    sleep "$every"
  done
}
