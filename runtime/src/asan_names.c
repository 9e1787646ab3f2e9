/* Names demoted variables in AddressSanitizer reports (hosted only).
 *
 * ASan sees a demoted buffer as runtime memory that the runtime poisons on
 * release, so a read of a released buffer is "use-after-poison" at an
 * address, with no variable. In ASan-instrumented functions the pass
 * therefore notes each new frame with a constant descriptor (function,
 * variables, offsets, sizes); the runtime keeps the last SA_NOTES of them
 * per thread and, from ASan's error report callback, prints the variable
 * the reported address falls in:
 *
 *   scopealloc: 0x... is 24 bytes into 'image' (16384 bytes) of the demoted
 *   frame of 'blur' (released)
 *
 * The newest noted frame that covers the address is the last one that
 * owned those bytes; an address just past a live frame is an overflow of
 * its last variable. Only the reporting thread's frames are searched. The
 * callback is installed at the first note, unless the program set its own
 * before; a program that sets one later replaces it.
 *
 * The ring is mapped on a thread's first note and unmapped at its exit: a
 * 4 KiB thread-local array would make the shared runtime's TLS block too
 * big for glibc's static TLS surplus, where a library whose inline fast path
 * reads the pool initial-exec needs it when it is dlopen'ed. */
#define _GNU_SOURCE 1 /* MAP_ANONYMOUS */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#if !SCOPEALLOC_HOSTED
#error "asan_names.c is hosted-only"
#endif

/* <sanitizer/asan_interface.h>, weak: resolved only in ASan programs. */
void __asan_set_error_report_callback(void (*callback)(const char *))
    __attribute__((weak));
void *__asan_get_report_address(void) __attribute__((weak));
int __asan_address_is_poisoned(void const volatile *addr) __attribute__((weak));

#define SA_NOTES 256 /* frames remembered per thread: a 4 KiB ring */

typedef struct sa_note {
  const char *frame;
  const scopealloc_frame_desc *desc;
} sa_note;

static __thread sa_note *sa_notes; /* SA_NOTES of them, or NULL */
static __thread unsigned sa_next_note;
static unsigned char sa_callback_installed;
static pthread_once_t sa_notes_once = PTHREAD_ONCE_INIT;
static pthread_key_t sa_notes_key;
static unsigned char sa_notes_keyed;

/* At thread exit; a later destructor that notes a frame maps a new ring. */
static void sa_notes_free(void *ring) {
  sa_notes = NULL;
  munmap(ring, SA_NOTES * sizeof(sa_note));
}

static void sa_notes_key_init(void) {
  if (pthread_key_create(&sa_notes_key, sa_notes_free) == 0)
    sa_notes_keyed = 1;
}

/* A copy of the runtime in a shared library that is dlclose'd must not
 * leave its destructor to threads that outlive it. */
__attribute__((destructor)) static void sa_notes_unload(void) {
  if (sa_notes_keyed)
    pthread_key_delete(sa_notes_key);
}

static SA_COLD void sa_notes_map(void) {
  pthread_once(&sa_notes_once, sa_notes_key_init);
  void *ring = mmap(NULL, SA_NOTES * sizeof(sa_note), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ring == MAP_FAILED)
    return; /* reports just name no variable */
  sa_notes = (sa_note *)ring;
  if (sa_notes_keyed)
    pthread_setspecific(sa_notes_key, ring);
}

/* Just past a frame: an overflow of its last variable. */
#define SA_NEAR_END 64

static SA_COLD void sa_print(const char *addr, const sa_note *n) {
  const scopealloc_frame_desc *d = n->desc;
  size_t offset = (size_t)(addr - n->frame);
  const char *state = "";
  if (__asan_address_is_poisoned)
    state = __asan_address_is_poisoned(addr) ? " (released)" : " (live)";
  char line[512];
  int len = -1;
  const scopealloc_var_desc *last = 0, *below = 0, *above = 0;
  for (size_t v = 0; v < d->nvars; ++v) {
    const scopealloc_var_desc *var = &d->vars[v];
    if (offset - var->offset < var->size) {
      len = snprintf(line, sizeof line,
                     "scopealloc: %p is %zu bytes into '%s' (%zu bytes) of "
                     "the demoted frame of '%s'%s\n",
                     (const void *)addr, offset - var->offset, var->name,
                     var->size, d->function, state);
      break;
    }
    if (!last || var->offset + var->size > last->offset + last->size)
      last = var;
    /* The nearest buffer ending at or below the address: under ASan the
     * pass puts a poisoned redzone after each one, and an overflow of it
     * lands there. */
    if (var->offset + var->size <= offset &&
        (!below || var->offset + var->size > below->offset + below->size))
      below = var;
    if (var->offset > offset && (!above || var->offset < above->offset))
      above = var;
  }
  /* A redzone is poisoned while its frame is live: whether the buffer
   * next to it is tells. */
  const scopealloc_var_desc *next_to = below ? below : above;
  if (len < 0 && next_to && __asan_address_is_poisoned)
    state = __asan_address_is_poisoned(n->frame + next_to->offset)
                ? " (released)"
                : " (live)";
  if (len < 0 && below && below == last)
    len = snprintf(line, sizeof line,
                   "scopealloc: %p is %zu bytes after '%s' (%zu bytes), the "
                   "end of the demoted frame of '%s'%s\n",
                   (const void *)addr, offset - (last->offset + last->size),
                   last->name, last->size, d->function, state);
  else if (len < 0 && below)
    len = snprintf(line, sizeof line,
                   "scopealloc: %p is %zu bytes after '%s' (%zu bytes) of "
                   "the demoted frame of '%s'%s\n",
                   (const void *)addr, offset - (below->offset + below->size),
                   below->name, below->size, d->function, state);
  else if (len < 0 && above)
    len = snprintf(line, sizeof line,
                   "scopealloc: %p is %zu bytes before '%s' (%zu bytes) of "
                   "the demoted frame of '%s'%s\n",
                   (const void *)addr, above->offset - offset, above->name,
                   above->size, d->function, state);
  if (len < 0)
    len = snprintf(line, sizeof line,
                   "scopealloc: %p is %zu bytes into the demoted frame of "
                   "'%s' (%zu bytes), outside its variables%s\n",
                   (const void *)addr, offset, d->function, d->size, state);
  if (len > 0) {
    size_t out = (size_t)len < sizeof line ? (size_t)len : sizeof line - 1;
    ssize_t ignored = write(2, line, out);
    (void)ignored;
  }
}

static SA_COLD void sa_name_report(const char *report) {
  (void)report;
  if (!__asan_get_report_address)
    return;
  const char *addr = (const char *)__asan_get_report_address();
  if (!sa_notes)
    return;
  /* Newest first: the frame the address lies in (the last one that owned
   * those bytes) or, if that frame is live, just past (an overflow of its
   * last variable); failing both, any frame it lies just past. */
  for (int pass = 0; pass < 2; ++pass)
    for (unsigned i = 1; i <= SA_NOTES; ++i) {
      const sa_note *n = &sa_notes[(sa_next_note - i) % SA_NOTES];
      if (!n->desc || addr < n->frame)
        continue;
      size_t offset = (size_t)(addr - n->frame);
      if (offset >= n->desc->size + SA_NEAR_END)
        continue;
      /* Its first buffer, not its first byte: that may be a redzone. */
      size_t first = n->desc->nvars ? n->desc->vars[0].offset : 0;
      int live = n->desc->size && __asan_address_is_poisoned &&
                 !__asan_address_is_poisoned(n->frame + first);
      if (offset >= n->desc->size && pass == 0 && !live)
        continue;
      sa_print(addr, n);
      return;
    }
}

void __scopealloc_note_frame(const void *frame,
                             const scopealloc_frame_desc *desc) {
  if (SA_UNLIKELY(!SA_LOAD_RELAXED(&sa_callback_installed)) &&
      !__atomic_exchange_n(&sa_callback_installed, 1, __ATOMIC_RELAXED) &&
      __asan_set_error_report_callback)
    __asan_set_error_report_callback(sa_name_report);
  if (SA_UNLIKELY(!sa_notes)) {
    sa_notes_map();
    if (!sa_notes)
      return;
  }
  sa_note *n = &sa_notes[sa_next_note++ % SA_NOTES];
  n->frame = (const char *)frame;
  n->desc = desc;
}
