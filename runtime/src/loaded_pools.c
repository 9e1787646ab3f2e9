/* Named pools seen from the shared runtime.
 *
 * SCOPEALLOC_DEFINE_POOL puts a pointer to each pool in the linker section
 * `scopealloc_pools` of the object that defines it; the static runtime walks
 * its own link unit's section between __start_/__stop_scopealloc_pools. The
 * shared runtime has no pools of its own: it walks every loaded object
 * (dl_iterate_phdr) and finds that section through the ELF note the macro
 * also emits ("ScopeAlloc", type 1: the section's bounds relative to the
 * note's descriptor; scopealloc.h), which needs no exported symbol, so pools
 * of programs and of libraries with version scripts are all listed. Only
 * memory the loader mapped is read, never the object's file: a file replaced
 * or truncated on disk since it was loaded must not steer the walk. Every
 * address is checked to lie in one of the object's loaded segments. Used for
 * statistics only (scopealloc_for_each_pool, SCOPEALLOC_STATS=1), never on a
 * fast path. */
#define _GNU_SOURCE 1
#include "internal.h"

#include <link.h>
#include <stdint.h>
#include <string.h>

#define SA_NOTE_NAME "ScopeAlloc"
#define SA_NOTE_POOLS 1

/* Whether [at, at + size) lies inside one loaded segment of the object. */
static int sa_mapped(const struct dl_phdr_info *info, uintptr_t at,
                     size_t size) {
  for (size_t i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t from = (uintptr_t)info->dlpi_addr + ph->p_vaddr;
    if (at >= from && size <= ph->p_memsz && at - from <= ph->p_memsz - size)
      return 1;
  }
  return 0;
}

/* The object's `scopealloc_pools` section from its first ScopeAlloc note,
 * or 0 if it has none (or a malformed one). */
static int sa_find_pools(const struct dl_phdr_info *info,
                         scopealloc_pool *const **begin, size_t *count) {
  for (size_t i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t at = (uintptr_t)info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type != PT_NOTE || !sa_mapped(info, at, ph->p_memsz))
      continue;
    /* Notes are padded to 8 bytes in an 8-aligned segment, else to 4. */
    uintptr_t pad = ph->p_align == 8 ? 7 : 3;
    uintptr_t end = at + ph->p_memsz;
    while (end - at >= 3 * sizeof(uint32_t)) {
      uint32_t nh[3]; /* name size, descriptor size, type */
      memcpy(nh, (const void *)at, sizeof nh);
      uintptr_t left = end - at - sizeof nh;
      uintptr_t name_len = ((uintptr_t)nh[0] + pad) & ~pad;
      uintptr_t desc_len = ((uintptr_t)nh[1] + pad) & ~pad;
      if (name_len > left || desc_len > left - name_len)
        break;
      const char *name = (const char *)(at + sizeof nh);
      uintptr_t desc = (uintptr_t)name + name_len;
      if (nh[0] == sizeof SA_NOTE_NAME && nh[2] == SA_NOTE_POOLS &&
          nh[1] == 2 * sizeof(int32_t) &&
          memcmp(name, SA_NOTE_NAME, sizeof SA_NOTE_NAME) == 0) {
        int32_t off[2];
        memcpy(off, (const void *)desc, sizeof off);
        uintptr_t from = desc + (uintptr_t)(intptr_t)off[0];
        uintptr_t to = desc + (uintptr_t)(intptr_t)off[1];
        size_t size = (size_t)(to - from);
        if (to < from || size % sizeof(void *) != 0 ||
            (size && !sa_mapped(info, from, size)))
          return 0;
        *begin = (scopealloc_pool *const *)from;
        *count = size / sizeof(void *);
        return 1;
      }
      at += sizeof nh + name_len + desc_len;
    }
  }
  return 0;
}

typedef struct sa_pools_walk {
  void (*fn)(const scopealloc_pool *pool, void *ctx);
  void *ctx;
  int count;
} sa_pools_walk;

static int sa_walk_object(struct dl_phdr_info *info, size_t info_size,
                          void *data) {
  (void)info_size;
  sa_pools_walk *walk = (sa_pools_walk *)data;
  scopealloc_pool *const *p;
  size_t count;
  if (!sa_find_pools(info, &p, &count))
    return 0;
  for (scopealloc_pool *const *end = p + count; p < end; p++)
    if (*p && sa_mapped(info, (uintptr_t)*p, sizeof **p)) {
      if (walk->fn)
        walk->fn(*p, walk->ctx);
      walk->count++;
    }
  return 0;
}

int sa_loaded_pools(void (*fn)(const scopealloc_pool *pool, void *ctx),
                    void *ctx) {
  sa_pools_walk walk = {fn, ctx, 0};
  dl_iterate_phdr(sa_walk_object, &walk);
  return walk.count;
}
