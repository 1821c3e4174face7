# Sourced by the benches, from the repository root.

# Where cargo puts release binaries: $CARGO_TARGET_DIR/release (a relative
# CARGO_TARGET_DIR is taken from the repository root, as cargo takes it),
# else target/release.
release_dir() {
  local t=${CARGO_TARGET_DIR:-target}
  case $t in /*) ;; *) t=$PWD/$t ;; esac
  echo "$t/release"
}

# wait_for SECONDS WHAT COMMAND...: runs COMMAND every 10 ms until it
# succeeds; after SECONDS, says what it waited for and exits 1.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    if ((SECONDS >= end)); then
      echo "timed out after ${limit}s waiting for $what" >&2
      exit 1
    fi
    sleep 0.01
  done
}
