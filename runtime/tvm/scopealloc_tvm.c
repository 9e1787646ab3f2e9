/* TVMBackendAllocWorkspace / TVMBackendFreeWorkspace over the calling
 * thread's ScopeAlloc arena; the behaviour is documented in scopealloc/tvm.h.
 *
 * Each thread keeps its live workspaces in a small array, oldest first (so
 * in address order), outside the arena: a record must stay readable even
 * after an enclosing frame's release (or an exception, or a longjmp) took
 * its memory back. */
#define _POSIX_C_SOURCE 200809L
#include "scopealloc/tvm.h"
#include "scopealloc/scopealloc.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* TVM's kAllocAlignment / kTempAllocaAlignment (TVM_KALLOC_ALIGNMENT). */
#ifndef SCOPEALLOC_TVM_ALIGN
#define SCOPEALLOC_TVM_ALIGN 64
#endif
#define SA_TVM_KDLCPU 1

/* TVM's error slot, present when the program also links TVM's runtime. */
void TVMAPISetLastError(const char *msg) __attribute__((weak));

/* One workspace: [ptr, ptr + size) taken at arena position `mark`; `end` is
 * the arena top right after the allocation. */
typedef struct sa_tvm_block {
  char *ptr;
  char *mark;
  char *end;
  int freed;
} sa_tvm_block;

typedef struct sa_tvm_stack {
  sa_tvm_block *blocks; /* oldest first */
  size_t count, capacity;
} sa_tvm_stack;

static __thread sa_tvm_stack sa_tvm_live;
static pthread_once_t sa_tvm_once = PTHREAD_ONCE_INIT;
static pthread_key_t sa_tvm_key;

static __attribute__((cold, format(printf, 1, 2))) void
sa_tvm_error(const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "scopealloc-tvm: %s\n", msg);
  if (TVMAPISetLastError)
    TVMAPISetLastError(msg);
}

/* Thread exit: the records go; the arena itself is the runtime's. */
static void sa_tvm_thread_exit(void *arg) {
  sa_tvm_stack *s = (sa_tvm_stack *)arg;
  free(s->blocks);
  s->blocks = NULL;
  s->count = s->capacity = 0;
}

static void sa_tvm_init(void) {
  if (pthread_key_create(&sa_tvm_key, sa_tvm_thread_exit) != 0) {
    fprintf(stderr, "scopealloc-tvm: pthread_key_create failed\n");
    abort();
  }
}

static __attribute__((cold)) int sa_tvm_grow(sa_tvm_stack *s) {
  size_t capacity = s->capacity ? s->capacity * 2 : 16;
  sa_tvm_block *blocks = realloc(s->blocks, capacity * sizeof *blocks);
  if (!blocks)
    return 0;
  if (!s->blocks) {
    pthread_once(&sa_tvm_once, sa_tvm_init);
    pthread_setspecific(sa_tvm_key, s);
  }
  s->blocks = blocks;
  s->capacity = capacity;
  return 1;
}

/* Drops the newest records that are done, and returns the arena top:
 *  - a record at or above the top was taken back by someone else's release
 *    (an enclosing demoted frame, an exception, a longjmp): forget it;
 *  - a freed record whose end is the top: release to its mark. A freed
 *    record below the top has newer memory above it that is not ours to
 *    release; it waits until that memory is gone. */
static char *sa_tvm_collapse(sa_tvm_stack *s) {
  char *cur = (char *)__scopealloc_mark();
  while (s->count) {
    sa_tvm_block *top = &s->blocks[s->count - 1];
    if (cur <= top->ptr) {
      s->count--;
    } else if (top->freed && cur == top->end) {
      __scopealloc_release(top->mark);
      cur = top->mark;
      s->count--;
    } else {
      break;
    }
  }
  return cur;
}

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint) {
  if (device_type != SA_TVM_KDLCPU) {
    sa_tvm_error("TVMBackendAllocWorkspace(%d, %d, %" PRIu64 ", %d, %d): "
                 "device type %d is not the CPU (kDLCPU = 1); only CPU "
                 "workspaces come from the ScopeAlloc arena",
                 device_type, device_id, nbytes, dtype_code_hint,
                 dtype_bits_hint, device_type);
    return NULL;
  }
  sa_tvm_stack *s = &sa_tvm_live;
  char *cur = sa_tvm_collapse(s);
  if (s->count == s->capacity && !sa_tvm_grow(s)) {
    sa_tvm_error("TVMBackendAllocWorkspace(%d, %d, %" PRIu64 ", %d, %d): "
                 "out of memory for the bookkeeping of %zu live workspaces",
                 device_type, device_id, nbytes, dtype_code_hint,
                 dtype_bits_hint, s->count);
    return NULL;
  }
  /* Fail with NULL, so the generated code's error path runs, rather than
   * reach the arena's exhaustion handler (which aborts). */
  scopealloc_pool *pool = &__scopealloc_tls_pool;
  uintptr_t room = (uintptr_t)(pool->reserve_end - cur);
  uintptr_t pad = -(uintptr_t)cur & (SCOPEALLOC_TVM_ALIGN - 1);
  size_t size = nbytes ? (size_t)nbytes : 1; /* distinct pointers for 0 */
  if (nbytes > SIZE_MAX || pad > room || size > room - pad) {
    pool->failures++;
    sa_tvm_error("TVMBackendAllocWorkspace(%d, %d, %" PRIu64 ", %d, %d): "
                 "pool 'workspace' exhausted: %zu bytes left of %zu "
                 "(SCOPEALLOC_RESERVE sets the size), peak %zu",
                 device_type, device_id, nbytes, dtype_code_hint,
                 dtype_bits_hint, (size_t)(pool->reserve_end - cur),
                 (size_t)(pool->reserve_end - pool->base),
                 (size_t)(pool->high - pool->base));
    return NULL;
  }
  char *p = (char *)__scopealloc_alloc(size, SCOPEALLOC_TVM_ALIGN);
  sa_tvm_block *b = &s->blocks[s->count++];
  b->ptr = p;
  b->mark = cur;
  b->end = pool->cur; /* the top: the runtime may round the size up */
  b->freed = 0;
  return p;
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr) {
  if (device_type != SA_TVM_KDLCPU) {
    sa_tvm_error("TVMBackendFreeWorkspace(%d, %d, %p): device type %d is not "
                 "the CPU (kDLCPU = 1)",
                 device_type, device_id, ptr, device_type);
    return -1;
  }
  sa_tvm_stack *s = &sa_tvm_live;
  size_t i = s->count;
  /* LIFO frees hit the first record. */
  while (i > 0 && s->blocks[i - 1].ptr != (char *)ptr)
    i--;
  if (i == 0 || s->blocks[i - 1].freed) {
    sa_tvm_error("TVMBackendFreeWorkspace(%d, %d, %p): not a live workspace "
                 "of this thread (%s)",
                 device_type, device_id, ptr,
                 i ? "already freed"
                   : "not from TVMBackendAllocWorkspace in this thread, or "
                     "already freed");
    return -1;
  }
  s->blocks[i - 1].freed = 1;
  sa_tvm_collapse(s);
  return 0;
}

size_t scopealloc_tvm_live_workspaces(void) {
  sa_tvm_stack *s = &sa_tvm_live;
  if (!s->count)
    return 0;
  sa_tvm_collapse(s);
  size_t live = 0;
  for (size_t i = 0; i < s->count; i++)
    live += !s->blocks[i].freed;
  return live;
}
