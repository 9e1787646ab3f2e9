/* The frames' bodies, in a file of their own so that the demoted function
 * holds its frame and the calls only (test/baremetal/inline-fast-path.sh). */
void fill(unsigned char *b, unsigned n, unsigned seed) {
  for (unsigned i = 0; i < n; i++)
    b[i] = (unsigned char)(seed * 31u + i * 7u);
}

unsigned sum(const unsigned char *b, unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++)
    s = s * 3u + b[i];
  return s;
}
