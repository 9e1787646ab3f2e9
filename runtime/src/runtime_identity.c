/* Two runtimes in one process (hosted only).
 *
 * Each copy of the runtime keeps its own per-thread arena. A program and its
 * shared objects must therefore share one copy, normally the shared runtime
 * libscopealloc_rt.so: the static archive linked into a shared object whose
 * version script or visibility hides the runtime's symbols gives that object
 * a private copy, and a longjmp or throw out of its demoted frames restores
 * only the other copy's arena, so its own grows by a frame per jump.
 *
 * At start-up (or dlopen) each copy's thread arena (thread_arena.c, from its
 * constructor) asks:
 *  - own:    which object holds this copy (dladdr of a local function);
 *  - live:   whether this object's references to __scopealloc_mark reach
 *            this copy (they do unless the dynamic linker interposed an
 *            earlier copy; an interposed copy is dormant and harmless); the
 *            caller passes that reference, so that this file references no
 *            higher layer;
 *  - global: which object dlsym(RTLD_DEFAULT, "__scopealloc_mark") finds.
 * A live copy that is not the global one while a global one exists means
 * two runtimes; a live copy of the static archive in a shared object that
 * is not the global one is a private runtime. Either is reported once per
 * copy on stderr, naming the object; the program goes on (it is correct,
 * only its arenas multiply), and SCOPEALLOC_ALLOW_PRIVATE_RUNTIME=1 silences
 * the report. The dl* functions are weak: a fully static program, which
 * can hold only one runtime, does not link them and skips the check. */
#define _GNU_SOURCE 1
#include "internal.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !SCOPEALLOC_HOSTED
#error "runtime_identity.c is hosted-only"
#endif

#pragma weak dladdr1
#pragma weak dlsym

#ifdef SCOPEALLOC_SHARED_RUNTIME
#define SA_SHARED_BUILD 1
#else
#define SA_SHARED_BUILD 0
#endif

sa_identity_verdict sa_identity_judge(int shared_build, int own_is_main,
                                      int live, sa_identity_global global) {
  if (!live)
    return SA_IDENTITY_OK; /* interposed: another copy serves this object */
  if (global == SA_GLOBAL_OTHER)
    return own_is_main || shared_build ? SA_IDENTITY_TWO_RUNTIMES
                                       : SA_IDENTITY_PRIVATE_STATIC;
  if (global == SA_GLOBAL_NONE && !own_is_main && !shared_build)
    return SA_IDENTITY_PRIVATE_STATIC;
  return SA_IDENTITY_OK;
}

/* The object holding `addr`, or NULL. */
static struct link_map *sa_object_of(const void *addr) {
  Dl_info info;
  struct link_map *map = NULL;
  if (!addr || !dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP))
    return NULL;
  return map;
}

/* A printable name: the main program's map has an empty one. */
static const char *sa_object_name(const struct link_map *map) {
  if (!map)
    return "(unknown object)";
  if (map->l_name && *map->l_name)
    return map->l_name;
  return map->l_prev ? "(unnamed object)" : "the program";
}

static void sa_identity_report(sa_identity_verdict verdict,
                               const struct link_map *own,
                               const struct link_map *global) {
  if (verdict == SA_IDENTITY_PRIVATE_STATIC)
    fprintf(stderr,
            "scopealloc: two runtimes in one process: %s carries its own copy "
            "of the static runtime (libscopealloc_rt.a linked into a shared "
            "object), so each thread gets one arena per copy; link it with "
            "libscopealloc_rt.so (scopealloc-clang -shared does); "
            "SCOPEALLOC_ALLOW_PRIVATE_RUNTIME=1 silences this\n",
            sa_object_name(own));
  else
    fprintf(stderr,
            "scopealloc: two runtimes in one process: %s has its own copy of "
            "the %s runtime and %s another, so each thread gets one arena per "
            "copy; link every part with the same libscopealloc_rt.so "
            "(scopealloc-clang does unless -static or "
            "SCOPEALLOC_RUNTIME=static) and load it into the global scope; "
            "SCOPEALLOC_ALLOW_PRIVATE_RUNTIME=1 silences this\n",
            sa_object_name(own), SA_SHARED_BUILD ? "shared" : "static",
            sa_object_name(global));
}

/* Our own function: dladdr names the object this copy lives in. */
static void sa_identity_here(void) {}

void sa_identity_check(const void *entry) {
  if (!dladdr1 || !dlsym)
    return;
  const char *allow = sa_getenv("SCOPEALLOC_ALLOW_PRIVATE_RUNTIME");
  if (allow && *allow && strcmp(allow, "0") != 0)
    return;
  struct link_map *own = sa_object_of((const void *)&sa_identity_here);
  struct link_map *seen = sa_object_of(entry);
  struct link_map *global =
      sa_object_of(dlsym(RTLD_DEFAULT, SCOPEALLOC_SYM_MARK));
  if (!own)
    return;
  sa_identity_global where = !global         ? SA_GLOBAL_NONE
                             : global == own ? SA_GLOBAL_OWN
                                             : SA_GLOBAL_OTHER;
  sa_identity_verdict verdict = sa_identity_judge(
      SA_SHARED_BUILD, own->l_prev == NULL, seen == own, where);
  if (verdict != SA_IDENTITY_OK)
    sa_identity_report(verdict, own, global);
}
