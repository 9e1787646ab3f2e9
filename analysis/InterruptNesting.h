//===- InterruptNesting.h - Handlers on what they preempt ------*- C++ -*-===//
//
// An interrupt handler runs on the stack, and takes from the pools, of
// whatever it interrupts: the worst case of an entry point is its own plus
// that of every chain of handlers that may preempt it. A handler does not
// preempt itself; with priorities declared (a policy's
// 'interrupt-priorities', --interrupt-priority, 'priority' in --config;
// numbered as the NVIC numbers them, a lower number preempting a higher
// one), a chain of preemptions holds at most one handler per priority
// level, each more urgent than the last, so each level above the entry's
// adds its largest handler. A handler without a declared priority may
// preempt, and be preempted by, every other one: it adds itself to every
// entry but itself. Interrupt handlers are the entries entered by a
// hardware exception (vector table words) and those a priority names.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_INTERRUPTNESTING_H
#define SCOPEALLOC_INTERRUPTNESTING_H

#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"

namespace scopealloc {
namespace bound {

/// Adds to each entry of \p B the handlers that may preempt it, for the
/// stack and for each pool (ResourceBound::Nested, OwnBytes).
void nestInterrupts(const CallGraph &G, const Settings &S, Bounds &B);

} // namespace bound
} // namespace scopealloc

#endif
