/* The two functions clang may call for loops and copies even with
 * -ffreestanding; there is no libc to provide them. (-fno-builtin keeps
 * these loops from becoming calls to themselves.) */
#include <stddef.h>

void *memset(void *d, int c, size_t n) {
  unsigned char *p = d;
  while (n--)
    *p++ = (unsigned char)c;
  return d;
}

void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *p = d;
  const unsigned char *q = s;
  while (n--)
    *p++ = *q++;
  return d;
}
