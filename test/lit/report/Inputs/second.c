void consume(void *);

void second(void) {
  char page[8192];
  consume(page);
}
