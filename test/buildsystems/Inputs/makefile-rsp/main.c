#include <stdio.h>
long checksum(int n);
int main(void) {
  printf("%s: checksum %ld\n", GREETING, checksum(1024));
  return 0;
}
