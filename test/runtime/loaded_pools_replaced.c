/* loaded_pools_replaced <mode> <lib> <other lib>
 *
 * Loads a copy of <lib> (named pool dl_pool) with the shared runtime, uses
 * the pool, then changes the file on disk behind the loader's back:
 *   replaced   another ELF object (<other lib>, whose section headers put
 *              `scopealloc_pools` 1 GiB away) renamed over it;
 *   truncated  its first half renamed over it;
 *   deleted    unlinked.
 * Run with SCOPEALLOC_STATS=1: the table at exit must list dl_pool, read
 * from what the loader mapped (a walk that read the file crashed or lost
 * the pool). */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int copy(const char *from, const char *to, int half) {
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  struct stat st;
  if (in < 0 || out < 0 || fstat(in, &st) != 0)
    return -1;
  off_t left = half ? st.st_size / 2 : st.st_size;
  char buf[4096];
  while (left > 0) {
    ssize_t n = read(in, buf, left < (off_t)sizeof buf ? (size_t)left : sizeof buf);
    if (n <= 0 || write(out, buf, (size_t)n) != n)
      return -1;
    left -= n;
  }
  close(in);
  return close(out);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  const char *mode = argv[1];
  char dir[] = "/tmp/scopealloc_loaded_pools.XXXXXX";
  if (!mkdtemp(dir))
    return 2;
  char lib[128], next[128];
  snprintf(lib, sizeof lib, "%s/lib.so", dir);
  snprintf(next, sizeof next, "%s/next.so", dir);
  if (copy(argv[2], lib, 0) != 0)
    return 2;
  /* The child exits (printing the table) with the changed file still in
   * place; the parent removes it afterwards. */
  pid_t pid = fork();
  if (pid < 0)
    return 2;
  if (pid > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    unlink(lib);
    rmdir(dir);
    if (WIFSIGNALED(status))
      fprintf(stderr, "loaded_pools_replaced %s: killed by signal %d\n", mode,
              WTERMSIG(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  void (*use)(void) = (void (*)(void))dlsym(h, "loaded_pools_lib_use");
  if (!use)
    return 2;
  use();
  if (strcmp(mode, "replaced") == 0 || strcmp(mode, "truncated") == 0) {
    if (copy(strcmp(mode, "replaced") == 0 ? argv[3] : argv[2], next,
             strcmp(mode, "truncated") == 0) != 0 ||
        rename(next, lib) != 0)
      return 2;
  } else if (strcmp(mode, "deleted") != 0) {
    return 2;
  }
  if (strcmp(mode, "deleted") == 0)
    unlink(lib);
  fprintf(stderr, "loaded_pools_replaced %s: exiting\n", mode);
  return 0;
}
