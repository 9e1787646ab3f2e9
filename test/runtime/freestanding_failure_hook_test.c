/* The freestanding runtime's default exhaustion handler has no stderr: it
 * calls scopealloc_freestanding_failure, weak in the runtime (a trap), which
 * this program replaces, as a bare-metal one reports over its UART. Linked
 * with the freestanding library only. */
#include "scopealloc/scopealloc.h"

#include <stdio.h>
#include <unistd.h>

SCOPEALLOC_DEFINE_POOL(workspace, 1024);

void scopealloc_freestanding_failure(const scopealloc_failure *f) {
  printf("failure hook: pool '%s' %s: requested %zu, capacity %zu\n", f->pool,
         f->reason, f->requested, f->capacity);
  fflush(stdout);
  _exit(3);
}

int main(void) {
  __scopealloc_mark();
  __scopealloc_alloc(4096, 16); /* more than the pool holds */
  printf("not reached\n");
  return 0;
}
