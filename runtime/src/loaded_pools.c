/* Named pools seen from the shared runtime.
 *
 * SCOPEALLOC_DEFINE_POOL puts a pointer to each pool in the linker section
 * `scopealloc_pools` of the object that defines it; the static runtime walks
 * its own link unit's section between __start_/__stop_scopealloc_pools. The
 * shared runtime has no pools of its own: it walks every loaded object
 * (dl_iterate_phdr) and finds that section through the object file's
 * section headers, which need no exported symbol, so pools of programs and
 * of libraries with version scripts are all listed. Used for statistics
 * only (scopealloc_for_each_pool, SCOPEALLOC_STATS=1), never on a fast
 * path. */
#define _GNU_SOURCE 1
#include "internal.h"

#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SA_POOLS_SECTION "scopealloc_pools"

static int sa_read_at(int fd, void *buf, size_t size, off_t at) {
  char *p = (char *)buf;
  while (size) {
    ssize_t n = pread(fd, p, size, at);
    if (n <= 0)
      return -1;
    p += n;
    size -= (size_t)n;
    at += n;
  }
  return 0;
}

/* The load-time address and size of `scopealloc_pools` in the object file at
 * `path` (relative to its load bias), or 0 if it has none. */
static int sa_find_pools_section(const char *path, ElfW(Addr) *addr,
                                 size_t *size) {
  int found = 0;
  ElfW(Shdr) *sh = NULL;
  char *names = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ElfW(Ehdr) eh;
  if (sa_read_at(fd, &eh, sizeof eh, 0) != 0 ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shoff == 0)
    goto out;
  size_t count = eh.e_shnum;
  size_t strndx = eh.e_shstrndx;
  ElfW(Shdr) first;
  if (count == 0 || strndx == SHN_XINDEX) { /* extended numbering */
    if (sa_read_at(fd, &first, sizeof first, (off_t)eh.e_shoff) != 0)
      goto out;
    if (count == 0)
      count = first.sh_size;
    if (strndx == SHN_XINDEX)
      strndx = first.sh_link;
  }
  if (count == 0 || strndx >= count || count > (1u << 24))
    goto out;
  sh = malloc(count * sizeof *sh);
  if (!sh || sa_read_at(fd, sh, count * sizeof *sh, (off_t)eh.e_shoff) != 0)
    goto out;
  size_t names_size = sh[strndx].sh_size;
  names = malloc(names_size + 1);
  if (!names ||
      sa_read_at(fd, names, names_size, (off_t)sh[strndx].sh_offset) != 0)
    goto out;
  names[names_size] = 0;
  for (size_t i = 0; i < count; i++)
    if (sh[i].sh_name < names_size &&
        strcmp(names + sh[i].sh_name, SA_POOLS_SECTION) == 0 &&
        (sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_type != SHT_NOBITS) {
      *addr = sh[i].sh_addr;
      *size = sh[i].sh_size;
      found = 1;
      break;
    }
out:
  free(names);
  free(sh);
  close(fd);
  return found;
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
  const char *path = info->dlpi_name;
  if (!path || !*path)
    path = "/proc/self/exe"; /* the main program */
  else if (!strchr(path, '/'))
    return 0; /* the vDSO: no file */
  ElfW(Addr) addr;
  size_t size;
  if (!sa_find_pools_section(path, &addr, &size))
    return 0;
  scopealloc_pool *const *p =
      (scopealloc_pool *const *)(info->dlpi_addr + addr);
  scopealloc_pool *const *end = p + size / sizeof *p;
  for (; p < end; p++)
    if (*p) {
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
