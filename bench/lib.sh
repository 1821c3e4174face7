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

# install_spur DEST: spurd and the commands (spurctl, sbatch) in DEST as a site
# installs them. A shell loop starts a command per line, so the commands
# are linked statically and at a fixed address: without the dynamic loader
# one starts in two thirds of the time, and without relocating itself (a
# position-independent static program rewrites, and so copies, every page
# of pointers it holds at each start) it takes a quarter less CPU again.
# They are built for musl where the toolchain has that target: glibc probes
# the CPU at every start, which a virtual machine traps probe by probe
# (sbatch takes 40% less CPU on musl; spur-sys gives musl programs a faster
# allocator and copy than musl's own). The batch scripts' supervisor, which
# a node starts once per job, is built so too. Without the musl
# target, both are built for glibc (the commands static). Says on stderr
# what it installed.
install_spur() {
  local dest=$1 rel host musl target
  local static="-C target-feature=+crt-static -C relocation-model=static"
  rel=$(release_dir)
  mkdir -p "$dest"
  cp "$rel/spurd" "$dest/"
  host=$(rustc -vV | sed -n 's/^host: //p')
  musl="$(uname -m)-unknown-linux-musl"
  target=$host
  [ -d "$(rustc --print sysroot)/lib/rustlib/$musl" ] && target=$musl
  RUSTFLAGS="$static" cargo build --release -q --target "$target" -p spurctl
  local built own
  built="$(dirname "$rel")/$target/release"
  own=$("$built/spurctl" --own-programs)
  for c in spurctl $own; do cp "$built/$c" "$dest/"; done
  echo "commands: spurctl and" $own", static at a fixed address ($target)" >&2
  if [ "$target" = "$musl" ]; then
    RUSTFLAGS="$static" cargo build --release -q --target "$musl" -p spur-supervise
    cp "$(dirname "$rel")/$musl/release/spur-supervise" "$dest/"
    echo "supervisor: spur-supervise, static ($musl)" >&2
  else
    cargo build --release -q -p spur-supervise
    cp "$rel/spur-supervise" "$dest/"
    echo "supervisor: spur-supervise, dynamic (no $musl target here)" >&2
  fi
}

# link_commands BIN DIR COMMAND...: DIR/COMMAND for each command, a link to
# BIN/spurctl, or to the command's own program in BIN where it has one
# (`spurctl --own-programs`), as a site links them.
link_commands() {
  local bin=$1 dir=$2 c own
  shift 2
  own=" $("$bin/spurctl" --own-programs | tr '\n' ' ')"
  mkdir -p "$dir"
  for c in "$@"; do
    if [[ $own == *" $c "* ]]; then
      ln -s "$bin/$c" "$dir/$c"
    else
      ln -s "$bin/spurctl" "$dir/$c"
    fi
  done
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
