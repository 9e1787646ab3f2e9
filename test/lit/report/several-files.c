// One clang command compiling several files with one -mllvm option: naming
// a directory gives each module its own report; a plain file name would be
// overwritten by each module in turn (the last one wins).
// RUN: rm -rf %t.dir %t.one.json %t.objs && mkdir %t.objs
// RUN: cd %t.objs && %clang %clangplugin -O2 -c %s %S/Inputs/second.c -mllvm -scope-alloc-report=%t.dir/
// RUN: ls %t.dir | FileCheck %s --check-prefix=FILES
// RUN: cat %t.dir/several-files-*.json | FileCheck %s --check-prefix=FIRST
// RUN: cat %t.dir/second-*.json | FileCheck %s --check-prefix=SECOND
// RUN: cd %t.objs && %clang %clangplugin -O2 -c %s %S/Inputs/second.c -mllvm -scope-alloc-report=%t.one.json
// RUN: FileCheck %s --check-prefix=SECOND < %t.one.json

// FILES: second-{{[0-9a-f]+}}.json
// FILES-NEXT: several-files-{{[0-9a-f]+}}.json
// FILES-NOT: json

// FIRST: "source_file": "{{.*}}several-files.c"
// FIRST: "name": "first"
// FIRST: "size": 4096,
// SECOND: "source_file": "{{.*}}second.c"
// SECOND: "name": "second"
// SECOND: "size": 8192,

void consume(void *);

void first(void) {
  char buf[4096];
  consume(buf);
}
