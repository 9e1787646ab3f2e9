/* Uses the default pool (so SCOPEALLOC_RESERVE is read when its arena is
 * made) and says whether it runs in secure execution; secure_env.sh runs a
 * setuid-root copy of it as `nobody`. */
#include <stdio.h>
#include <sys/auxv.h>

#include "scopealloc/scopealloc.h"

int main(void) {
  void *m = __scopealloc_mark();
  char *p = (char *)__scopealloc_alloc(4096, 16);
  p[0] = 1;
  __scopealloc_release(m);
  printf("AT_SECURE=%lu\n", getauxval(AT_SECURE));
  printf("secure_env ran\n");
  return 0;
}
