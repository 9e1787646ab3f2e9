// clang -fsave-optimization-record writes the pass's decisions as YAML
// records: passed ones (Demoted, KeptOnStack) and missed ones
// (StackScopeOverLimit), each with its location and typed arguments.
// RUN: rm -f %t.yaml
// RUN: cd %S && %clang %clangplugin -mllvm -scope-alloc-remark-sources -O2 -g -c clang-record-yaml.c -o /dev/null \
// RUN:   -fsave-optimization-record -foptimization-record-file=%t.yaml \
// RUN:   -foptimization-record-passes=scope-alloc 2>/dev/null
// Only the filtered pass is recorded (no other Pass: line); without the
// filter the same records are among everyone else's.
// RUN: FileCheck %s --input-file=%t.yaml --implicit-check-not=Pass:
// RUN: %clang %clangplugin -mllvm -scope-alloc-remark-sources -O2 -c %s -o /dev/null -fsave-optimization-record \
// RUN:   -foptimization-record-file=%t.all.yaml 2>/dev/null
// RUN: grep -c '^Pass: *scope-alloc' %t.all.yaml | grep -x 4
// RUN: grep -q '^Pass: *inline' %t.all.yaml

void consume(void *p);

void kernel(int n) {
  char table[4096];
  long counter[4];
  __attribute__((annotate("scope:local"))) char pinned[2048];
  char row[n];
  consume(table);
  consume(counter);
  consume(pinned);
  consume(row);
}

// CHECK:      --- !Passed
// CHECK-NEXT: Pass:            scope-alloc
// CHECK-NEXT: Name:            Demoted
// CHECK-NEXT: DebugLoc:        { File: clang-record-yaml.c, Line: 19, Column: {{[0-9]+}} }
// CHECK-NEXT: Function:        kernel
// CHECK-NEXT: Args:
// CHECK:        - Alloca:          table
// CHECK:        - Size:            '4096'
// CHECK:        - Align:           '16'
// CHECK:        - Scope:           none
// CHECK:        - Pool:            workspace
// CHECK:        - Reason:          '4096 bytes exceed the limit 1024 bytes (target default for x86_64-{{.*}})'
// CHECK:        - Rule:            over-limit
// CHECK:      ...

// CHECK:      --- !Passed
// CHECK-NEXT: Pass:            scope-alloc
// CHECK-NEXT: Name:            KeptOnStack
// CHECK-NEXT: DebugLoc:        { File: clang-record-yaml.c, Line: 20, Column: {{[0-9]+}} }
// CHECK-NEXT: Function:        kernel
// CHECK:        - Alloca:          counter
// CHECK:        - Size:            '32'
// CHECK:        - Rule:            within-limit
// CHECK:      ...

// Missed remarks are recorded as well.
// CHECK:      --- !Missed
// CHECK-NEXT: Pass:            scope-alloc
// CHECK-NEXT: Name:            StackScopeOverLimit
// CHECK-NEXT: DebugLoc:        { File: clang-record-yaml.c, Line: 21, Column: {{[0-9]+}} }
// CHECK-NEXT: Function:        kernel
// CHECK:        - Alloca:          pinned
// CHECK:        - Size:            '2048'
// CHECK:        - Scope:           local{{$}}
// CHECK:        - Rule:            scope-stack
// CHECK:      ...

// A dynamically sized buffer has no Size argument: readers take Size as a
// number.
// CHECK:      --- !Passed
// CHECK-NEXT: Pass:            scope-alloc
// CHECK-NEXT: Name:            Demoted
// CHECK-NEXT: DebugLoc:        { File: clang-record-yaml.c, Line: 22, Column: {{[0-9]+}} }
// CHECK-NEXT: Function:        kernel
// CHECK-NEXT: Args:
// CHECK-NEXT:   - String:          ''''
// CHECK-NEXT:   - Alloca:          row
// CHECK-NEXT:   - String:          ''' in '''
// CHECK-NEXT:   - Function:        kernel
// CHECK-NEXT:   - String:          ''''
// CHECK-NEXT:   - String:          ' ('
// CHECK-NEXT:   - String:          dynamic size
// CHECK-NEXT:   - String:          ', align '
// CHECK:        - Rule:            dynamic-size
