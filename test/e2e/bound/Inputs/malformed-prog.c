/* An image with what the reader follows: .symtab, .dynsym, .rela.dyn (a
 * PIE's table of function pointers), .dynamic, .init_array. */
#include <stdio.h>
typedef int (*unary)(int);
__attribute__((noinline)) static int twice(int x) { return 2 * x; }
__attribute__((noinline)) static int square(int x) { return x * x; }
unary table[] = {twice, square};
__attribute__((constructor)) static void init(void) { puts("init"); }
int main(int argc, char **argv) {
  (void)argv;
  return table[argc & 1](argc) == 4;
}
