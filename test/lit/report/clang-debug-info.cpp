// Through clang with -g: functions by mangled and demangled name with their
// line, allocations by source variable with file and line; at -O2 a buffer
// inlined from another function names it. -mllvm -scope-alloc-report needs
// the plugin loaded with -fplugin as well (%clangplugin does both).
// RUN: %clangxx %clangplugin -O0 -g -c %s -o /dev/null -mllvm -scope-alloc-report=%t.O0.json
// RUN: python3 %S/Inputs/flatten.py %t.O0.json | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clangxx %clangplugin -O2 -g -c %s -o /dev/null -mllvm -scope-alloc-report=%t.O2.json
// RUN: python3 %S/Inputs/flatten.py %t.O2.json | FileCheck %s --check-prefixes=CHECK,O2
// Without -g, clang drops value names: allocations are "<unnamed>".
// RUN: %clangxx %clangplugin -O2 -c %s -o /dev/null -mllvm -scope-alloc-report=%t.nog.json
// RUN: python3 %S/Inputs/flatten.py %t.nog.json | FileCheck %s --check-prefix=NOG
// RUN: python3 %S/Inputs/validate.py %srcroot/docs/report-schema.json %t.O0.json %t.O2.json %t.nog.json

void consume(void *);

namespace codec {
template <int N> static void scratch(int seed) {
  char window[N];
  __builtin_memset(window, seed, sizeof window);
  consume(window);
}

int encode(int n) {
  char table[4096];
  long counter = n;
  char vla[n];
  consume(table);
  consume(&counter);
  consume(vla);
  scratch<2048>(n);
  return 0;
}
} // namespace codec

// CHECK: consistent
// CHECK: module clang-debug-info.cpp
// CHECK: function _ZN5codec6encodeEi demangled=codec::encode(int) at={{.*}}clang-debug-info.cpp:23
// O0:      alloc table ir=None at={{.*}}clang-debug-info.cpp:24 inlined_from=None size=4096 align=16 static=True scope=None demote pool=workspace rule=over-limit
// O0-NEXT:   reason: 4096 bytes exceed the limit 1024 bytes
// O0:      alloc counter ir=None at={{.*}}clang-debug-info.cpp:25 inlined_from=None size=8 align=8 static=True scope=None keep pool=None rule=within-limit
// O0:      alloc vla ir=None at={{.*}}clang-debug-info.cpp:26 inlined_from=None size=null align=16 static=False scope=None demote pool=workspace rule=dynamic-size
// O0:    function _ZN5codecL7scratchILi2048EEEvi demangled=void codec::scratch<2048>(int) at={{.*}}clang-debug-info.cpp:17
// O0:      alloc window ir=None at={{.*}}clang-debug-info.cpp:18 inlined_from=None size=2048
// O2:      alloc window ir=None at={{.*}}clang-debug-info.cpp:18 inlined_from=scratch<2048> size=2048 align=16 static=True scope=None demote pool=workspace rule=over-limit
// O2:      alloc table ir=None at={{.*}}clang-debug-info.cpp:24 inlined_from=None size=4096
// O2-NOT:  function

// NOG: function _ZN5codec6encodeEi demangled=codec::encode(int) at=- {{.*}} workspace=6144/{{[0-9]+}}/3/1
// NOG: alloc <unnamed> ir=None at=- inlined_from=None size=2048
