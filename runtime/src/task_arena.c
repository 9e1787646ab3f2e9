/* Tasks of an RTOS on a bare-metal runtime: an arena per task, switched in
 * with the task (scopealloc.h, "Tasks of an RTOS"; docs/rtos.md).
 *
 * A pool struct always holds the state of one share of it: the start-up
 * context's (the pool's own buffer, the "home" share) or a task's. The pool's
 * runtime-private `next_thread_pool` (unused by single-threaded runtimes)
 * points to the share whose state it holds, NULL while that is the home share
 * and no task has touched the pool. Switching saves the pool's state into
 * that share and loads the incoming task's: the frames' code keeps using the
 * pool at its fixed address. A pool's shares form a ring through `next`
 * (internal.h), which the pool's statistics walk (stats.c).
 *
 * Above the fixed default pool and the named pools (layer 4 of a bare-metal
 * runtime): they know only the running task's identity (internal.h). */
#include "internal.h"

#if !SCOPEALLOC_SINGLE_THREADED
#error "task_arena.c is for single-threaded (bare-metal) runtimes"
#endif

#ifndef EINVAL
#define EINVAL 22 /* freestanding: no <errno.h>; the usual values */
#endif
#ifndef ENOSPC
#define ENOSPC 28
#endif
#ifndef EBUSY
#define EBUSY 16
#endif

/* The start-up context's shares, one per pool that tasks have shares of. */
#define SA_HOME_POOLS 8
static scopealloc_task_share sa_homes[SA_HOME_POOLS];
static unsigned sa_home_count;

/* The task switched in (NULL: the start-up context). */
static scopealloc_task *sa_current;

/* Interrupts masked while a pool's state is half copied: a handler nested
 * on the switch would bump a pool whose base and top belong to two tasks. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
typedef unsigned sa_irq_state;
static inline sa_irq_state sa_irq_save(void) {
  sa_irq_state primask;
  __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}
static inline void sa_irq_restore(sa_irq_state primask) {
  __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}
#elif defined(__riscv)
typedef unsigned long sa_irq_state;
static inline sa_irq_state sa_irq_save(void) {
  sa_irq_state mstatus;
  __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus)::"memory");
  return mstatus;
}
static inline void sa_irq_restore(sa_irq_state mstatus) {
  __asm__ volatile("csrs mstatus, %0" ::"r"(mstatus & 8) : "memory");
}
#elif defined(__aarch64__)
typedef unsigned long sa_irq_state;
static inline sa_irq_state sa_irq_save(void) {
  sa_irq_state daif;
  __asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(daif)::"memory");
  return daif;
}
static inline void sa_irq_restore(sa_irq_state daif) {
  __asm__ volatile("msr daif, %0" ::"r"(daif) : "memory");
}
#else
/* No interrupt mask known for this architecture: the caller's switcher
 * must run with interrupts off (docs/rtos.md). */
typedef int sa_irq_state;
static inline sa_irq_state sa_irq_save(void) { return 0; }
static inline void sa_irq_restore(sa_irq_state s) { (void)s; }
#endif

static void sa_share_save(scopealloc_task_share *s, const scopealloc_pool *p) {
  s->cur = p->cur;
  s->limit = p->limit;
  s->high = p->high;
  s->base = p->base;
  s->reserve_end = p->reserve_end;
  s->owner = p->owner;
  s->allocs = p->allocs;
  s->failures = p->failures;
}

static void sa_share_load(scopealloc_pool *p, const scopealloc_task_share *s) {
  p->cur = s->cur;
  p->limit = s->limit;
  p->high = s->high;
  p->base = s->base;
  p->reserve_end = s->reserve_end;
  p->owner = s->owner;
  p->allocs = s->allocs;
  p->failures = s->failures;
}

static scopealloc_task_share *sa_loaded(const scopealloc_pool *pool) {
  return (scopealloc_task_share *)sa_share_loaded(pool);
}

/* The home share of `pool`; NULL if no task has a share of it yet. */
static scopealloc_task_share *sa_home_of(const scopealloc_pool *pool) {
  for (unsigned i = 0; i < sa_home_count; i++)
    if (sa_homes[i].pool == pool)
      return &sa_homes[i];
  return 0;
}

/* The pool's home share, made now (holding the pool's state, which is the
 * home's while no share is loaded) if this is the first task share. NULL
 * if there is no room for one more pool. */
static scopealloc_task_share *sa_home_get(scopealloc_pool *pool) {
  scopealloc_task_share *home = sa_home_of(pool);
  if (home || sa_home_count == SA_HOME_POOLS)
    return home;
  home = &sa_homes[sa_home_count++];
  home->pool = pool;
  home->next = home; /* the pool's ring of shares */
  sa_share_save(home, pool);
  pool->next_thread_pool = (scopealloc_pool *)home;
  return home;
}

/* Lists a task's share under its pool's home, the first time the share is
 * switched in (the default pool's share is set up by the macro alone). */
static int sa_share_listed(scopealloc_task_share *s) {
  scopealloc_task_share *home = sa_home_get(s->pool);
  if (!home)
    return 0;
  const scopealloc_task_share *t = home;
  do
    if (t == s)
      return 1;
  while ((t = t->next) != home);
  s->next = home->next;
  home->next = s;
  return 1;
}

/* Makes share `s` the one its pool serves. */
static void sa_share_switch_in(scopealloc_task_share *s) {
  scopealloc_pool *pool = s->pool;
  scopealloc_task_share *loaded = sa_loaded(pool);
  if (loaded == s)
    return;
  sa_share_save(loaded ? loaded : sa_home_get(pool), pool);
  sa_share_load(pool, s);
  pool->next_thread_pool = (scopealloc_pool *)s;
}

/* A task whose shares could not all be listed (more pools than
 * SA_HOME_POOLS): reported, before anything of it is switched in. */
static SA_COLD SA_NORETURN void sa_too_many_pools(scopealloc_pool *pool,
                                                  const void *caller) {
  sa_fail(pool, pool->name, SCOPEALLOC_REASON_TOO_MANY_TASK_POOLS, 0, 0, 0,
          caller);
}

scopealloc_task *scopealloc_task_switch(scopealloc_task *to) {
  sa_irq_state irq = sa_irq_save();
  scopealloc_task *from = sa_current;
  if (to == from) {
    sa_irq_restore(irq);
    return from;
  }
  if (to) {
    for (unsigned i = 0; i < to->shares; i++)
      if (!sa_share_listed(&to->share[i]))
        sa_too_many_pools(to->share[i].pool, __builtin_return_address(0));
    for (unsigned i = 0; i < to->shares; i++)
      sa_share_switch_in(&to->share[i]);
  } else {
    for (unsigned i = 0; i < sa_home_count; i++)
      sa_share_switch_in(&sa_homes[i]);
  }
  sa_current = to;
  sa_task_running = to;
  /* The inline fast path's bound for the state just loaded (not saved with
   * a share: it follows from the state and the running task). */
  __scopealloc_pool_workspace.bound =
      sa_default_bound(&__scopealloc_pool_workspace);
  sa_irq_restore(irq);
  return from;
}

scopealloc_task *scopealloc_task_current(void) { return sa_current; }

void scopealloc_task_identity(const void *word) {
  sa_irq_state irq = sa_irq_save();
  sa_task_id_word =
      word ? (const void *const volatile *)word : &sa_task_running;
  /* With an RTOS's identity word the inline fast path closes: every frame
   * then goes through the owner check. */
  __scopealloc_pool_workspace.bound =
      sa_default_bound(&__scopealloc_pool_workspace);
  sa_irq_restore(irq);
}

int scopealloc_task_add_pool(scopealloc_task *task, scopealloc_pool *pool,
                             size_t bytes) {
  if (!task || !pool || !bytes || pool == &__scopealloc_pool_workspace ||
      task->shares >= task->capacity)
    return EINVAL;
  for (unsigned i = 0; i < task->shares; i++)
    if (task->share[i].pool == pool)
      return EINVAL;
  scopealloc_task_share *home = sa_home_get(pool);
  if (!home)
    return ENOSPC;
  /* Cut from the home share's top, which the pool struct holds now. */
  if (sa_loaded(pool) != home || pool->cur != pool->base)
    return EBUSY;
  size_t rounded = (bytes + (SCOPEALLOC_POOL_ALIGN - 1)) &
                   ~(size_t)(SCOPEALLOC_POOL_ALIGN - 1);
  uintptr_t end = (uintptr_t)pool->limit;
  uintptr_t start = (end - rounded) & ~(uintptr_t)(SCOPEALLOC_POOL_ALIGN - 1);
  if (rounded < bytes || rounded > end - (uintptr_t)pool->base ||
      start < (uintptr_t)pool->base)
    return ENOSPC;
  scopealloc_task_share *s = &task->share[task->shares++];
  s->pool = pool;
  s->cur = s->high = s->base = (char *)start;
  s->limit = s->reserve_end = (char *)end;
  s->owner = 0;
  s->allocs = s->failures = 0;
  pool->limit = pool->reserve_end = (char *)start;
  s->next = home->next;
  home->next = s;
  return 0;
}

/* One share's figures: the pool's, if the share is switched in there. */
static void sa_task_stats_fill(const scopealloc_task_share *s,
                               scopealloc_stats *out) {
  out->name = s->pool->name;
  out->current = out->peak = out->capacity = 0;
  out->allocs = out->failures = 0;
  if (sa_loaded(s->pool) == s)
    SA_SHARE_ADD(out, s->pool);
  else
    SA_SHARE_ADD(out, s);
}

int scopealloc_task_stats(const scopealloc_task *task,
                          const scopealloc_pool *pool, scopealloc_stats *out) {
  if (!pool)
    pool = &__scopealloc_pool_workspace;
  if (!task) { /* the start-up context */
    const scopealloc_task_share *home = sa_home_of(pool);
    if (!home)
      return -1;
    sa_task_stats_fill(home, out);
    return 0;
  }
  for (unsigned i = 0; i < task->shares; i++)
    if (task->share[i].pool == pool) {
      sa_task_stats_fill(&task->share[i], out);
      return 0;
    }
  return -1;
}
