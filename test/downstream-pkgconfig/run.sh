#!/usr/bin/env bash
# Builds the Makefile project against the ScopeAlloc installed at PREFIX,
# found through pkg-config, and checks that the pass ran only where the
# plugin was loaded. Usage: run.sh PREFIX CLANG WORKDIR
set -euo pipefail
prefix=$1 clang=$2 work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
fail() { echo "downstream-pkgconfig: $*" >&2; exit 1; }

echo "== pkg-config"
pkg-config --modversion scopealloc
pkg-config --cflags --libs scopealloc
pkg-config --variable=plugin scopealloc
[ "$(pkg-config --variable=plugin scopealloc)" = "$prefix/lib/ScopeAlloc.so" ] ||
  fail "--variable=plugin is not $prefix/lib/ScopeAlloc.so"
plugin=$prefix/lib/ScopeAlloc.so
# clang 22 takes the plugin's -mllvm options with -fpass-plugin= alone;
# older clang needs -fplugin= too.
flags="-fpass-plugin=$plugin"
[ "$(pkg-config --variable=llvm_major scopealloc)" -ge 22 ] || flags="$flags -fplugin=$plugin"
# Remarks name buffers as the source does, not '%3' (clang discards value
# names in release builds).
flags="$flags -fno-discard-value-names"
[ "$(pkg-config --variable=pluginflags scopealloc)" = "$flags" ] ||
  fail "--variable=pluginflags is not '$flags'"
[ "$(pkg-config --cflags scopealloc | sed "s/ *$//")" = "-I$prefix/include" ] ||
  fail "--cflags is not -I$prefix/include"
pkg-config --libs scopealloc | grep -q -- "-L$prefix/lib -lscopealloc_rt" ||
  fail "--libs does not link $prefix/lib/libscopealloc_rt.a"

rm -rf "$work"
mkdir -p "$work"
cp "$here/Makefile" "$here/prog.c" "$work/"
echo "== make"
make -C "$work" CC="$clang"

echo "== prog (plugin loaded, limit 256)"
with=$("$work/prog")
echo "$with"
echo "== prog-plain (runtime only)"
without=$("$work/prog-plain")
echo "$without"
[ "$(grep checksum <<<"$with")" = "$(grep checksum <<<"$without")" ] ||
  fail "prog and prog-plain compute different results"
grep -q "workspace allocs 1 peak 512 current 0" <<<"$with" ||
  fail "prog: the 512-byte buffer did not come from the workspace pool"
grep -q "workspace allocs 0 peak 0 current 0" <<<"$without" ||
  fail "prog-plain: the pool was used although the plugin was not loaded"

# Without PKG_CONFIG_PATH the Makefile stops with a message, not a bad build.
if PKG_CONFIG_PATH=/nonexistent make -C "$work" -B CC="$clang" >"$work/err.log" 2>&1; then
  fail "make succeeded although pkg-config does not know scopealloc"
fi
grep -q "set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig" "$work/err.log" ||
  fail "make without scopealloc.pc did not say what to set: $(cat "$work/err.log")"
echo "downstream-pkgconfig: OK"
