// The records are readable by opt-viewer (every supported LLVM ships it):
// statistics, and the HTML page puts each decision under its variable's
// line.
// RUN: rm -rf %t && mkdir %t
// RUN: cd %S && %clang %clangplugin -O2 -g -c opt-viewer.c -o /dev/null \
// RUN:   -fsave-optimization-record -foptimization-record-file=%t/r.yaml \
// RUN:   -foptimization-record-passes=scope-alloc
// RUN: %{opt-viewer}/opt-stats.py %t/r.yaml | FileCheck %s --check-prefix=STATS
// STATS: Total number of remarks           5
// STATS: scope-alloc/Demoted            60%
// STATS: scope-alloc/KeptOnStack        40%
// RUN: %{opt-viewer}/opt-viewer.py -n -j 1 -s %S -o %t/html %t/r.yaml
// RUN: FileCheck %s --check-prefix=HTML --input-file=%t/html/opt-viewer.c.html
// HTML:      <a name="L26">26</a>
// HTML:      <span class="n">table</span>
// HTML:      column-entry-green">scope-alloc</td>
// HTML-NEXT: 'table' in 'filter' (4096 bytes, align 16, scope none) moved to pool 'workspace'
// HTML-NEXT: column-entry-yellow">filter</td>
// HTML:      <a name="L28">28</a>
// HTML:      column-entry-green">scope-alloc</td>
// HTML-NEXT: 'acc' in 'filter' (64 bytes, align 16, scope none) stays on the stack

void consume(void *p);

void filter(void) {
  char table[4096];
  char window[2048];
  long acc[8];
  consume(table);
  consume(window);
  consume(acc);
}

void reduce(void) {
  char big[8192];
  int one;
  consume(big);
  consume(&one);
}

