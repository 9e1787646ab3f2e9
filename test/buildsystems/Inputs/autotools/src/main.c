#include <stdio.h>
#include "big.h"
int main(void) {
  printf("big_checksum %ld big_add %ld\n", big_checksum(1024), big_add(40, 2));
  return 0;
}
