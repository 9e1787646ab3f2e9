#include <stdio.h>
long checksum(int n);
int main(void) {
  printf("checksum %ld\n", checksum(1024));
  return 0;
}
