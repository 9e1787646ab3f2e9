/* The command table of commands.c, built by plain clang (no ScopeAlloc
 * records): only the table's words take cmd_dump's address. */
#include <stdint.h>

typedef uint32_t (*command)(uint32_t);
uint32_t cmd_echo(uint32_t);
uint32_t cmd_dump(uint32_t);
const command commands[2] = {cmd_echo, cmd_dump};
