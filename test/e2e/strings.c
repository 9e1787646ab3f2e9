// String processing in big local buffers: a CSV report built with snprintf
// into a 16 KiB buffer, tokenised with strtok_r into a local array of
// records, word statistics with a 4 KiB table, in-place reversal, and
// struct arrays passed by pointer between the stages.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc
#include "Inputs/e2e.h"
#include <ctype.h>
#include <string.h>

struct row {
  char city[32];
  int year;
  long population;
  double share;
};

static const char *const cities[] = {"Oslo", "Lima",  "Kyoto", "Porto",
                                     "Accra", "Quito", "Hanoi", "Turin"};

E2E_NOINLINE static size_t build_csv(char *out, size_t cap, int nrows,
                                     uint64_t seed) {
  char line[1200];
  size_t used = 0;
  uint64_t st = seed;
  used += (size_t)snprintf(out, cap, "city,year,population,share\n");
  for (int i = 0; i < nrows; ++i) {
    int n = snprintf(line, sizeof line, "%s,%d,%ld,%.3f\n",
                     cities[e2e_rand(&st) % 8], 1900 + (int)(e2e_rand(&st) % 120),
                     (long)(e2e_rand(&st) % 10000000),
                     (double)(e2e_rand(&st) % 100000) / 1000.0);
    CHECK(n > 0 && (size_t)n < sizeof line);
    CHECK(used + (size_t)n < cap);
    memcpy(out + used, line, (size_t)n + 1);
    used += (size_t)n;
  }
  return used;
}

E2E_NOINLINE static int parse_csv(char *text, struct row *rows, int max) {
  char *save = NULL;
  int n = 0;
  char *line = strtok_r(text, "\n", &save); /* header */
  CHECK(line && strcmp(line, "city,year,population,share") == 0);
  while ((line = strtok_r(NULL, "\n", &save)) && n < max) {
    char field[4][256];
    char *fsave = NULL, *tok;
    int f = 0;
    for (tok = strtok_r(line, ",", &fsave); tok && f < 4;
         tok = strtok_r(NULL, ",", &fsave))
      snprintf(field[f++], sizeof field[0], "%s", tok);
    CHECK(f == 4);
    snprintf(rows[n].city, sizeof rows[n].city, "%s", field[0]);
    rows[n].year = atoi(field[1]);
    rows[n].population = atol(field[2]);
    rows[n].share = atof(field[3]);
    ++n;
  }
  return n;
}

E2E_NOINLINE static void summarize(const struct row *rows, int n, char *out,
                                   size_t cap) {
  long pop[8] = {0};
  int count[8] = {0};
  char tmp[2048];
  size_t used = 0;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 8; ++c)
      if (strcmp(rows[i].city, cities[c]) == 0) {
        pop[c] += rows[i].population;
        ++count[c];
      }
  out[0] = 0;
  for (int c = 0; c < 8; ++c) {
    int k = snprintf(tmp, sizeof tmp, "%s:%d:%ld;", cities[c], count[c], pop[c]);
    CHECK(used + (size_t)k < cap);
    memcpy(out + used, tmp, (size_t)k + 1);
    used += (size_t)k;
  }
}

/* Word statistics over a generated text, with a 4 KiB table. */
E2E_NOINLINE static uint64_t words(const char *text) {
  unsigned counts[1024]; /* 4 KiB, by word hash */
  char word[512];
  memset(counts, 0, sizeof counts);
  int nwords = 0, longest = 0;
  for (const char *p = text; *p;) {
    while (*p && !isalpha((unsigned char)*p))
      ++p;
    int len = 0;
    while (isalpha((unsigned char)*p) && len < 511)
      word[len++] = (char)tolower((unsigned char)*p++);
    if (!len)
      continue;
    word[len] = 0;
    counts[e2e_hash(E2E_HASH_INIT, word, (size_t)len) % 1024]++;
    ++nwords;
    if (len > longest)
      longest = len;
  }
  unsigned maxc = 0;
  for (int i = 0; i < 1024; ++i)
    if (counts[i] > maxc)
      maxc = counts[i];
  printf("words=%d longest=%d most-frequent-count=%u\n", nwords, longest, maxc);
  return e2e_hash(E2E_HASH_INIT, counts, sizeof counts);
}

E2E_NOINLINE static void reverse_words(char *s) {
  char copy[16384];
  size_t n = strlen(s);
  CHECK(n < sizeof copy);
  memcpy(copy, s, n + 1);
  /* Reverse the whole string, then every word back. */
  for (size_t i = 0; i < n; ++i)
    s[i] = copy[n - 1 - i];
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && s[j] != ' ')
      ++j;
    for (size_t a = i, b = j; a + 1 < b; ++a, --b) {
      char t = s[a];
      s[a] = s[b - 1];
      s[b - 1] = t;
    }
    i = j + 1;
  }
}

int main(void) {
  char csv[16384];
  size_t len = build_csv(csv, sizeof csv, 300, 2024);
  printf("csv bytes=%zu hash=%016llx\n", len,
         (unsigned long long)e2e_hash(E2E_HASH_INIT, csv, len));

  char copy[16384];
  memcpy(copy, csv, len + 1);
  struct row rows[300];
  int n = parse_csv(copy, rows, 300);
  CHECK(n == 300);
  char summary[4096];
  summarize(rows, n, summary, sizeof summary);
  printf("summary %s\n", summary);

  /* Round trip: printing the parsed rows gives back the CSV. */
  char again[16384];
  size_t used = (size_t)snprintf(again, sizeof again, "city,year,population,share\n");
  for (int i = 0; i < n; ++i)
    used += (size_t)snprintf(again + used, sizeof again - used, "%s,%d,%ld,%.3f\n",
                             rows[i].city, rows[i].year, rows[i].population,
                             rows[i].share);
  CHECK(used == len && memcmp(again, csv, len) == 0);

  char text[12000];
  size_t t = 0;
  uint64_t st = 99;
  static const char *const vocab[] = {"stack", "arena", "pool", "scope",
                                      "buffer", "frame", "mark", "release",
                                      "alloca", "LLVM", "Pass", "heap"};
  while (t < sizeof text - 32) {
    int k = snprintf(text + t, sizeof text - t, "%s%s", vocab[e2e_rand(&st) % 12],
                     e2e_rand(&st) % 7 ? " " : ". ");
    t += (size_t)k;
  }
  text[t] = 0;
  uint64_t wh = words(text);
  printf("word table %016llx\n", (unsigned long long)wh);
  char rev[12000];
  memcpy(rev, text, t + 1);
  reverse_words(rev);
  printf("reversed head: %.60s\n", rev);
  reverse_words(rev);
  CHECK(strcmp(rev, text) == 0);
  printf("round trips ok\n");
  return 0;
}
