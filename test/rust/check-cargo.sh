#!/usr/bin/env bash
# What a cargo user meets first (docs/rust.md), with the installed rustc
# and cargo, offline:
#   check-cargo.sh --prefix <ScopeAlloc install> --work <dir> --llvm-bin <dir>
#
#  - the dev profile (cargo build, cargo run, cargo test), whose link is
#    -plugin-opt=O0, places the arrays as --release does;
#  - a two-crate workspace (path dependency) with an integration test, in
#    both profiles;
#  - a setting in rustflags relinks (cargo's fingerprint sees it);
#  - remarks (-Clink-args=-Rpass=scope-alloc -Wlinker-messages) say
#    "remark:" and name the buffer by its source name with debug info;
#    SCOPEALLOC_REPORT_DIR and --scopealloc-report-dir write reports at the
#    link; names are demangled (legacy Rust too);
#  - scopealloc-bound takes the names it prints back in --entry;
#  - a policy on the link line that cannot be read is reported as the link
#    line's, naming the file.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../client-args.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v cargo >/dev/null || PATH=$HOME/.cargo/bin:$PATH
command -v cargo >/dev/null || fail "cargo is not installed (rustup's stable toolchain)"
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS SCOPEALLOC_FLAGS SCOPEALLOC_REPORT_DIR
rm -rf "$work" && mkdir -p "$work"

# docs/rust.md's .cargo/config.toml; <name> <project> [extra rustflags]
project() {
  local dir=$work/$1
  cp -r "$here/$2" "$dir"
  mkdir -p "$dir/.cargo"
  cat > "$dir/.cargo/config.toml" <<TOML
[build]
rustflags = ["-Clinker-plugin-lto"${3:+, $3}]

[target.x86_64-unknown-linux-gnu]
linker = "$prefix/bin/scopealloc-clang"
TOML
  echo "$dir"
}
# The reference: the program's hash with 1 MiB stacks, built plainly.
plain=$work/plain
cp -r "$here/overflow" "$plain"
(cd "$plain" && cargo build --release --offline -q)
want=$("$plain/target/release/overflow" 1024 4 20)

# Runs <exe> with 64 KiB stacks: the reference hash and the array moved.
check_run() { # <label> <command...>
  local label=$1
  shift
  local got
  got=$(SCOPEALLOC_STATS=1 "$@" 64 4 20 2> "$work/$label.stats") ||
    fail "$label: $* 64 4 20 failed: $(cat "$work/$label.stats")"
  [ "$got" = "$want" ] || fail "$label: printed $got, the plain build $want"
  local peak
  peak=$(awk '$1 == "workspace" { print $3 }' "$work/$label.stats")
  [ "${peak:-0}" -ge 131072 ] ||
    fail "$label: workspace peak ${peak:-none}, not the 128 KiB array: $(cat "$work/$label.stats")"
  echo "$label: 4 threads x 64 KiB stacks: $got, workspace peak $peak bytes"
}

# 1. The dev profile: cargo build, cargo run, cargo test.
dev=$(project dev overflow)
(cd "$dev" && cargo build --offline -q)
check_run "cargo build (dev)" "$dev/target/debug/overflow"
# (In the project: cargo reads .cargo/config.toml from where it runs.)
cargo_run() { (cd "$dev" && cargo run --offline -q -- "$@"); }
check_run "cargo run (dev)" cargo_run
ws=$(project workspace workspace)
for profile in dev release; do
  flag=; [ $profile = release ] && flag=--release
  (cd "$ws" && cargo test --offline -q $flag > "$work/test-$profile.out" 2>&1) ||
    fail "cargo test $flag in the workspace failed: $(tail -20 "$work/test-$profile.out")"
  grep -q "test small_stacks_hold_the_array ... ok\|1 passed" "$work/test-$profile.out" ||
    fail "cargo test $flag ran no integration test: $(cat "$work/test-$profile.out")"
  echo "cargo test $flag (workspace, 64 KiB threads in the integration test): passed"
  (cd "$ws" && cargo build --offline -q $flag)
  dir=debug; [ $profile = release ] && dir=release
  check_run "workspace app ($profile)" "$ws/target/$dir/app"
done

# 2. A setting in rustflags relinks: limit 0 moves more than the default.
rl=$(project relink overflow)
(cd "$rl" && cargo build --release --offline -q)
SCOPEALLOC_STATS=1 "$rl/target/release/overflow" 64 4 20 > /dev/null 2> "$work/relink-default.stats"
sed -i 's|^rustflags = .*|rustflags = ["-Clinker-plugin-lto", "-Clink-args=-mllvm -scope-alloc-max-stack-alloca=0"]|' \
  "$rl/.cargo/config.toml"
(cd "$rl" && cargo build --release --offline 2> "$work/relink.out")
grep -q "Compiling overflow" "$work/relink.out" ||
  fail "a new -Clink-args in rustflags did not rebuild: $(cat "$work/relink.out")"
SCOPEALLOC_STATS=1 "$rl/target/release/overflow" 64 4 20 > /dev/null 2> "$work/relink-limit0.stats"
allocs() { awk '$1 == "workspace" { print $5 }' "$work/relink-$1.stats"; }
[ "$(allocs limit0)" -gt "$(allocs default)" ] ||
  fail "after the relink at limit 0: $(allocs limit0) allocations, as many as the default's $(allocs default)"
echo "relink: a setting in rustflags rebuilt the program ($(allocs default) -> $(allocs limit0) pool allocations)"

# 3. Remarks at the link, with and without debug info; reports.
rm_=$(project remarks overflow '"-Clink-args=-Rpass=scope-alloc", "-Wlinker-messages"')
(cd "$rm_" && CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release --offline 2> "$work/remarks.out")
grep -q "src/main.rs:14:9: remark: 'buf' in 'overflow::work::h[0-9a-f]*' (131072 bytes, align 8, scope none) moved to pool 'workspace'" \
  "$work/remarks.out" || fail "no remark for buf at the link: $(grep -m5 work "$work/remarks.out")"
grep -q '\$LT\$\|\$u20\$' "$work/remarks.out" &&
  fail "half-demangled Rust names in remarks: $(grep -m3 '\$LT\$\|\$u20\$' "$work/remarks.out")"
grep -q "remark: .*'core::result::Result<T,E>::unwrap::h[0-9a-f]*'" "$work/remarks.out" ||
  fail "a legacy Rust name not demangled: $(grep -m3 unwrap "$work/remarks.out")"
grep "overflow::work" "$work/remarks.out" | sed 's/^warning: linker stderr: //; s/^ *//'
# The dev profile: remarks too, and rustc's unnamed temporaries not as ''.
(cd "$rm_" && cargo build --offline 2> "$work/remarks-dev.out")
grep -q "src/main.rs:14:9: remark: 'buf' in 'overflow::work::h[0-9a-f]*' (131072 bytes" "$work/remarks-dev.out" ||
  fail "dev profile: no remark for buf: $(grep -m3 work "$work/remarks-dev.out")"
grep -q "remark: '' in" "$work/remarks-dev.out" &&
  fail "a buffer named '': $(grep -m1 "remark: '' in" "$work/remarks-dev.out")"
reports=$work/reports
(cd "$rm_" && touch src/main.rs && SCOPEALLOC_REPORT_DIR=$reports CARGO_PROFILE_RELEASE_DEBUG=true \
  cargo build --release --offline -q 2> /dev/null)
grep -l '"demangled": "overflow::work::h' "$reports"/*.json > /dev/null 2>&1 ||
  fail "SCOPEALLOC_REPORT_DIR: no report of overflow::work in $reports: $(ls "$reports" 2>&1)"
"$prefix/bin/scopealloc-report" "$reports" > "$work/report.txt"
grep -q "overflow::work" "$work/report.txt" || fail "scopealloc-report: no overflow::work: $(cat "$work/report.txt")"
# The route cargo sees: the wrapper's flag in rustflags relinks.
sed -i "s|^rustflags = .*|rustflags = [\"-Clinker-plugin-lto\", \"-Clink-arg=--scopealloc-report-dir=$work/reports2\"]|" \
  "$rm_/.cargo/config.toml"
(cd "$rm_" && cargo build --release --offline -q)
grep -l '"demangled": "overflow::work::h' "$work/reports2"/*.json > /dev/null 2>&1 ||
  fail "-Clink-arg=--scopealloc-report-dir: no report of overflow::work"
echo "reports: SCOPEALLOC_REPORT_DIR and -Clink-arg=--scopealloc-report-dir= wrote the link's reports"

# 4. scopealloc-bound takes back the names it prints.
exe=$rm_/target/release/overflow
mangled=$("$llvm_bin/llvm-nm" "$exe" | awk '/ _ZN8overflow4work/ && !f { print $3; f = 1 }')
"$prefix/bin/scopealloc-bound" "$exe" --entry="$mangled" > "$work/bound-mangled.txt"
printed=$(sed -n 's/^entry \(overflow::work::h[0-9a-f]*\) (option)$/\1/p' "$work/bound-mangled.txt")
[ -n "$printed" ] || fail "scopealloc-bound printed no entry overflow::work: $(cat "$work/bound-mangled.txt")"
for name in "$printed" overflow::work; do
  "$prefix/bin/scopealloc-bound" "$exe" --entry="$name" > "$work/bound-named.txt" 2>&1
  grep -q "is not a function" "$work/bound-named.txt" &&
    fail "--entry=$name: $(grep "is not a function" "$work/bound-named.txt")"
  cmp -s "$work/bound-mangled.txt" "$work/bound-named.txt" ||
    fail "--entry=$name differs from --entry=$mangled: $(diff "$work/bound-mangled.txt" "$work/bound-named.txt")"
done
echo "scopealloc-bound: --entry=$printed and --entry=overflow::work bound $mangled"

# 5. A policy on the link line that cannot be read.
bad=$(project badpolicy overflow "\"-Clink-args=-mllvm -scope-alloc-policy=$work/missing.yaml\"")
(cd "$bad" && cargo build --release --offline 2> "$work/badpolicy.out") &&
  fail "a link with a missing policy file succeeded"
grep -q "error: scope-alloc: the -scope-alloc-\* options of the link line (policy=$work/missing.yaml).*: bad policy file" \
  "$work/badpolicy.out" || fail "the missing policy is not reported as the link line's: $(grep -m3 scope-alloc "$work/badpolicy.out")"
grep -q "cannot read policy file '$work/missing.yaml'" "$work/badpolicy.out" ||
  fail "the error does not name the file: $(grep -m3 scope-alloc "$work/badpolicy.out")"
grep -q "recorded by the compile step" "$work/badpolicy.out" &&
  fail "the link line's policy is reported as a compile step's"
[ "$(grep -c "options of the link line" "$work/badpolicy.out")" -eq 1 ] ||
  fail "the error is repeated: $(grep -c "options of the link line" "$work/badpolicy.out") times"
echo "a missing policy on the link line: $(grep -m1 -o "error: scope-alloc: the -scope-alloc-\* options of the link line ([^)]*)" "$work/badpolicy.out")"
echo PASS
