long big_checksum(int n);
long big_add(long a, long b); /* src/big_add.S */
