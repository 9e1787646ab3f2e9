#!/usr/bin/env bash
# Lua 5.4 from the Debian source package "lua5.4": the interpreter (lua.c
# and the library, LUA_USE_LINUX, as upstream's `make linux`) built from
# src/, then the scripts in test/realworld/lua/ (errors, pcall/xpcall,
# error objects, coroutines, the string library). Each script's stdout,
# stderr (statistics removed) and exit status must equal those of the
# plain clang -O2 build; scripts named fail-*.lua end with an uncaught error
# on purpose, the others must print "END <name>.lua" and exit 0.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

src=$(rw_fetch_source lua5.4) || exit 1
program=lua
base=$RW_WORK/$program
mkdir -p "$base"
scripts=$(cd "$here/lua" && ls ./*.lua | sort)

build_lua() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log
  rm -rf "$dir" && mkdir -p "$dir/obj" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    # Debian's luaconf.h includes a header that debian/rules generates.
    mkdir -p include
    printf '#define DEB_HOST_MULTIARCH "%s"\n' \
      "$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" \
      > include/lua5.4-deb-multiarch.h
    cc=$(rw_cc "$build")
    cflags="$(rw_cflags "$build") -std=gnu99 -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$dir/include"
    export cc cflags src
    # shellcheck disable=SC2016
    (cd "$src/src" && ls ./*.c | grep -v '^./luac.c$') |
      rw_run "$log" xargs -P "$RW_JOBS" -I{} sh -c '$cc $cflags -c "$src/src/{}" -o "obj/$(basename {} .c).o"' &&
      rw_run "$log" $cc $(rw_cflags "$build") -Wl,-E -o lua obj/*.o -lm -ldl
  )
}

check_lua() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log failed=0 s name rc
  : > "$log"
  mkdir -p "$dir/out"
  for s in $scripts; do
    name=$(basename "$s" .lua)
    rc=0
    (
      cd "$here/lua" || exit 1
      # shellcheck disable=SC2046
      export $(rw_run_env "$build")
      # argv[0] "lua": lua.c prefixes uncaught errors with it.
      exec -a lua "$dir/lua" "$s"
    ) > "$dir/out/$name.out" 2> "$dir/out/$name.err.raw" || rc=$?
    cat "$dir/out/$name.err.raw" >> "$log"
    rw_strip_stats < "$dir/out/$name.err.raw" > "$dir/out/$name.err"
    echo "exit $rc" >> "$dir/out/$name.err"
    if [ "$build" = plain ]; then
      # fail-*.lua end with an uncaught error on purpose.
      case $name in
        fail-*) [ $rc != 0 ] || { rw_log "lua $name.lua: the plain clang build exited 0"; failed=1; } ;;
        *)
          if [ $rc != 0 ] || ! grep -qx "END $name.lua" "$dir/out/$name.out"; then
            rw_log "lua $name.lua: the plain clang build did not finish it (exit $rc): $dir/out/$name.err"
            failed=1
          fi ;;
      esac
    else
      rw_same "lua $name.lua stdout (vs plain clang)" "$base/plain/out/$name.out" "$dir/out/$name.out" || failed=1
      rw_same "lua $name.lua stderr and exit status (vs plain clang)" "$base/plain/out/$name.err" "$dir/out/$name.err" || failed=1
    fi
  done
  case $build in
    plain) ;;
    # Lua exports its API (-Wl,-E) and calls through tables of C
    # functions: the count says how much of it the link could plan.
    *planned) rw_plan_count "$log" "$dir/build.log" ;;
    *) rw_need_allocs "$log" || failed=1 ;;
  esac
  return $failed
}

rw_lto=planned

rw_build_and_check_all lua "$base"
