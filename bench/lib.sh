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

# install_spur DEST: spurd and the commands (spurctl) in DEST as a site
# installs them. The commands are linked statically (glibc's static
# library, host target) and at a fixed address: a shell loop starts one
# per line, and without the dynamic loader one starts in two thirds of
# the time; without relocating itself (a position-independent static
# program rewrites, and so copies, every page of pointers it holds at each
# start) it takes a quarter less CPU again. Beside spurd goes the batch
# scripts' supervisor, built for musl where the toolchain has
# that target: a node starts one per job, and a static one starts in a
# tenth of the time. Says on stderr what it installed.
install_spur() {
  local dest=$1 rel host musl
  rel=$(release_dir)
  mkdir -p "$dest"
  cp "$rel/spurd" "$dest/"
  host=$(rustc -vV | sed -n 's/^host: //p')
  RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static" \
    cargo build --release -q --target "$host" -p spurctl
  cp "$(dirname "$rel")/$host/release/spurctl" "$dest/"
  echo "commands: spurctl, static at a fixed address ($host)" >&2
  musl="$(uname -m)-unknown-linux-musl"
  if [ -d "$(rustc --print sysroot)/lib/rustlib/$musl" ]; then
    cargo build --release -q --target "$musl" -p spur-supervise
    cp "$(dirname "$rel")/$musl/release/spur-supervise" "$dest/"
    echo "supervisor: spur-supervise, static ($musl)" >&2
  else
    cargo build --release -q -p spur-supervise
    cp "$rel/spur-supervise" "$dest/"
    echo "supervisor: spur-supervise, dynamic (no $musl target here)" >&2
  fi
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
