/* Item 4 of issue 46: a const table of function pointers in .rodata,
 * placed by in-text.ld inside the .text output section, defined in a file
 * built without ScopeAlloc (table.c), so that only the table takes the
 * address of cmd_dump. dispatch() calls through a pointer; main also
 * passes cmd_echo directly, the one target the records name. */
#include "layout.h"

typedef uint32_t (*command)(uint32_t);
extern const command commands[2];
static volatile uint32_t sink;

__attribute__((noinline)) uint32_t cmd_echo(uint32_t x) { return x + 1; }

__attribute__((noinline)) uint32_t cmd_dump(uint32_t x) {
  SCOPEALLOC_STACK volatile uint8_t buf[240];
  for (unsigned i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i + x);
  return buf[x % sizeof buf];
}

__attribute__((noinline)) uint32_t dispatch(command c, uint32_t x) {
  return c(x);
}

int main(void) {
  sink = dispatch(cmd_echo, sink);
  sink = dispatch(commands[1], sink);
  return 0;
}
