#!/usr/bin/env bash
# Rust through ScopeAlloc (docs/rust.md), with the installed rustc and cargo:
#   check-rust.sh --prefix <ScopeAlloc install> --work <dir> --llvm-bin <dir>
#
# test/rust/overflow (no crate dependencies: no registry is needed) runs 4
# worker threads with 64 KiB stacks, each with a 128 KiB array. Built plainly
# by cargo it aborts with "has overflowed its stack". Built with the route a
# cargo user keeps, a .cargo/config.toml with
#   rustflags = ["-Clinker-plugin-lto"], linker = "<P>/bin/scopealloc-clang"
# (the crate's code reaches the link as bitcode; lld runs the pass), it
# prints the hash of the plain build run with 1 MiB stacks, at the default
# policy and at limit 0. Then: scopealloc-bound's stack and pool figures
# for the worker, beside .stack_sizes of the plain build (what
# cargo-call-stack reads), and the run time of both builds side by side.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../client-args.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# rustup installs into ~/.cargo/bin, which a CI shell may not have on PATH.
command -v cargo >/dev/null || PATH=$HOME/.cargo/bin:$PATH
command -v cargo >/dev/null || fail "cargo is not installed (rustup's stable toolchain)"
echo "$(rustc --version) ($(rustc -vV | sed -n 's/^LLVM version: /LLVM /p'))"

rm -rf "$work" && mkdir -p "$work"
# One project per build, as a user's checkout would be.
build() { # <name> <config.toml text or empty> [RUSTFLAGS]
  local dir=$work/$1
  cp -r "$here/overflow" "$dir"
  if [ -n "$2" ]; then
    mkdir -p "$dir/.cargo" && printf '%s\n' "$2" > "$dir/.cargo/config.toml"
  fi
  # An empty RUSTFLAGS would override the config's rustflags: unset it.
  if [ -n "${3:-}" ]; then
    (cd "$dir" && RUSTFLAGS=$3 cargo build --release --offline -q)
  else
    (cd "$dir" && env -u RUSTFLAGS cargo build --release --offline -q)
  fi
  echo "$dir/target/release/overflow"
}
config="[build]
rustflags = [\"-Clinker-plugin-lto\"]
[target.x86_64-unknown-linux-gnu]
linker = \"$prefix/bin/scopealloc-clang\""
config0="[build]
rustflags = [\"-Clinker-plugin-lto\", \"-Clink-args=-mllvm -scope-alloc-max-stack-alloca=0\"]
[target.x86_64-unknown-linux-gnu]
linker = \"$prefix/bin/scopealloc-clang\""
plain=$(build plain "")
# The same linker-plugin LTO without ScopeAlloc, writing .stack_sizes as
# cargo-call-stack's -Z emit-stack-sizes would (nightly only; rustc ignores
# -Cllvm-args=-stack-size-section).
plain_sizes=$(build plain-sizes "[build]
rustflags = [\"-Clinker-plugin-lto\", \"-Clink-arg=-fuse-ld=lld\", \"-Clink-arg=-Wl,-mllvm,-stack-size-section\"]
[target.x86_64-unknown-linux-gnu]
linker = \"$llvm_bin/clang\"")
scoped=$(build scopealloc "$config")
limit0=$(build limit0 "$config0")

# Plainly, 64 KiB stacks overflow; 1 MiB ones give the reference.
set +e
"$plain" 64 4 20 > "$work/plain64.out" 2> "$work/plain64.err"
status=$?
set -e
[ "$status" -ne 0 ] && grep -q "has overflowed its stack" "$work/plain64.err" ||
  fail "the plain build with 64 KiB stacks should overflow (exit $status): $(cat "$work/plain64.err")"
want=$("$plain" 1024 4 20)
for build in scoped limit0; do
  exe=${!build}
  got=$(SCOPEALLOC_STATS=1 "$exe" 64 4 20 2> "$work/$build.stats")
  [ "$got" = "$want" ] || fail "$build: printed $got, the plain build $want"
  peak=$(awk '$1 == "workspace" { print $3 }' "$work/$build.stats")
  [ "${peak:-0}" -ge 131072 ] ||
    fail "$build: the workspace peak is ${peak:-none}, not the 128 KiB array: $(cat "$work/$build.stats")"
  echo "$build: 4 threads x 64 KiB stacks: $got (= plain with 1 MiB stacks); workspace peak $peak bytes per thread"
done
allocs() { awk '$1 == "workspace" { print $5 }' "$work/$1.stats"; }
[ "$(allocs limit0)" -gt "$(allocs scoped)" ] ||
  fail "limit 0 (-Clink-args=-mllvm ...) should move more than the default policy: $(allocs limit0) vs $(allocs scoped) allocations"

# The worker's stack: ScopeAlloc's bound, and the plain frame from
# .stack_sizes (what cargo-call-stack adds up).
# (awk reads all its input: an early exit would kill the producer with
# SIGPIPE, which pipefail turns into a failure.)
work_fn=$("$llvm_bin/llvm-nm" "$scoped" | awk '/ _ZN8overflow4work/ && !f { print $3; f = 1 }')
[ -n "$work_fn" ] || fail "no overflow::work in $scoped"
"$prefix/bin/scopealloc-bound" "$scoped" --entry="$work_fn" > "$work/bound.txt"
sed -n '/^entry overflow::work/,/^$/p' "$work/bound.txt"
stack=$(sed -n '/^entry overflow::work/,/^$/s/^  stack: \([0-9]*\) bytes.*/\1/p' "$work/bound.txt")
pool=$(sed -n '/^entry overflow::work/,/^$/s/^  pool workspace: \([0-9]*\) bytes.*/\1/p' "$work/bound.txt")
[ -n "$stack" ] && [ "$stack" -lt 65536 ] && [ "${pool:-0}" -ge 131072 ] ||
  fail "scopealloc-bound should bound overflow::work below 64 KiB of stack with the array in the pool (stack ${stack:-?}, pool ${pool:-?})"
plain_fn=$("$llvm_bin/llvm-nm" "$plain_sizes" | awk '/ _ZN8overflow4work/ && !f { print $3; f = 1 }')
plain_frame=$("$llvm_bin/llvm-readobj" --stack-sizes "$plain_sizes" |
  awk -v f="$plain_fn" '!done && $0 ~ "Functions: \\[" f "\\]" { getline; print $2; done = 1 }')
plain_frame=$((plain_frame)) && [ "$plain_frame" -ge 131072 ] ||
  fail "the plain build's .stack_sizes should give overflow::work at least 128 KiB (${plain_frame:-none})"
echo "overflow::work: plain frame $plain_frame bytes (.stack_sizes); through ScopeAlloc stack $stack bytes + pool workspace $pool bytes"

# The cost, side by side: plain with 1 MiB stacks, ScopeAlloc with 64 KiB.
python3 "$root/scripts/bench/interleave.py" --rounds 5 --warmup 1 --out "$work/time.json" 2>/dev/null \
  "plain (1 MiB stacks)=$plain 1024 4 3000" "ScopeAlloc (64 KiB stacks)=$scoped 64 4 3000"
python3 - "$work/time.json" <<'EOF'
import json, sys
variants = json.load(open(sys.argv[1]))["variants"]
base = variants[0]["wall_s"]
print("run time, 4 threads x 3000 calls (5 interleaved rounds, medians):")
for v in variants:
    print(f"  {v['name']:28} wall {v['wall_s']:7.3f} s  {v['wall_s'] / base:5.3f}x"
          f"  cpu {v['cpu_s']:7.3f} s")
EOF
echo PASS
