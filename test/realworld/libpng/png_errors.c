/* Decodes one valid PNG and then corrupted copies of it (bad IDAT CRC,
 * corrupted IDAT data, truncated IDAT, invalid IHDR), each of which ends in
 * png_error -> longjmp out of libpng's demoted frames to the setjmp below.
 * Prints the calling thread's workspace (scopealloc_thread_stats) after 100
 * and after all decodes; exits 1 unless the peak stayed flat and nothing is
 * left in use. Built by test/realworld/libpng.sh with scopealloc-clang
 * against the libpng16.so it built. With one runtime copy per shared object
 * (a static runtime in libpng16.so) this thread's arena stays flat while
 * libpng's private one grows: the script also checks the statistics that
 * every runtime copy prints at exit (SCOPEALLOC_STATS=1).
 *
 *   png_errors [DECODES]   (default 10000)
 *
 * Statistics and results live in globals and main takes no address of a
 * local, so that main keeps no workspace frame and "current" is 0 between
 * decodes. */
#include <png.h>
#include <scopealloc/scopealloc.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

enum { W = 64, H = 64, CHANNELS = 3 };

typedef struct {
  unsigned char *data;
  size_t len, cap;
} membuf;

typedef struct {
  const unsigned char *data;
  size_t len, pos;
} reader;

static membuf valid;                /* the encoded image */
static unsigned char *corrupt;      /* a corrupted copy */
static unsigned char image[H][W * CHANNELS];
static unsigned char decoded[H][W * CHANNELS];
static char last_error[128];
static scopealloc_stats stats_early, stats_late;
static unsigned long errors_by_kind[4];

static void mem_write(png_structp png, png_bytep d, size_t n) {
  membuf *m = png_get_io_ptr(png);
  if (m->len + n > m->cap) {
    size_t cap = (m->len + n) * 2;
    unsigned char *p = realloc(m->data, cap);
    if (!p)
      png_error(png, "out of memory");
    m->data = p;
    m->cap = cap;
  }
  memcpy(m->data + m->len, d, n);
  m->len += n;
}

static void mem_flush(png_structp png) { (void)png; }

static void mem_read(png_structp png, png_bytep out, size_t n) {
  reader *r = png_get_io_ptr(png);
  if (n > r->len - r->pos)
    png_error(png, "read past the end of the data");
  memcpy(out, r->data + r->pos, n);
  r->pos += n;
}

/* Quiet replacements of libpng's handlers: the default error handler also
 * longjmps, but prints every message. */
static void on_error(png_structp png, png_const_charp msg) {
  snprintf(last_error, sizeof last_error, "%s", msg);
  png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) {
  (void)png;
  (void)msg;
}

static int encode(void) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                            on_error, on_warning);
  png_infop info = png_create_info_struct(png);
  if (!png || !info)
    return 0;
  if (setjmp(png_jmpbuf(png))) {
    fprintf(stderr, "png_errors: encoding failed: %s\n", last_error);
    png_destroy_write_struct(&png, &info);
    return 0;
  }
  png_set_write_fn(png, &valid, mem_write, mem_flush);
  png_set_IHDR(png, info, W, H, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < H; ++y)
    png_write_row(png, image[y]);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 1;
}

/* 1 when the image decoded, 0 after a png_error. */
static int decode(const unsigned char *data, size_t len) {
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
  png_infop info = png_create_info_struct(png);
  reader r = {data, len, 0};
  png_bytep rows[H];
  if (!png || !info) {
    fprintf(stderr, "png_errors: png_create_read_struct failed\n");
    exit(2);
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
  }
  png_set_read_fn(png, &r, mem_read);
  png_read_info(png, info);
  if (png_get_image_width(png, info) != W ||
      png_get_image_height(png, info) != H ||
      png_get_rowbytes(png, info) != W * CHANNELS)
    png_error(png, "unexpected image layout");
  for (int y = 0; y < H; ++y)
    rows[y] = decoded[y];
  png_read_image(png, rows);
  png_read_end(png, NULL);
  png_destroy_read_struct(&png, &info, NULL);
  return 1;
}

static size_t be32(const unsigned char *p) {
  return (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
}

/* Offset of the first chunk of type `type` (its length field), or 0. */
static size_t find_chunk(const char *type) {
  size_t at = 8;
  while (at + 12 <= valid.len) {
    const unsigned char *p = valid.data + at;
    size_t n = be32(p);
    if (memcmp(p + 4, type, 4) == 0)
      return at;
    at += 12 + n;
  }
  return 0;
}

static size_t idat_at, ihdr_at;

/* Copy number `i`, corrupted in one of four ways that each end in
 * png_error; returns its length. The kinds alternate and each moves its
 * damage through VARIANTS places spread over the IDAT chunk, so the first
 * 4 * VARIANTS = 100 decodes take every error path once and the peak after
 * 100 decodes is the peak of a loop that releases what it skips. */
enum { VARIANTS = 25 };

static size_t make_corrupt(unsigned long i) {
  size_t idat_len = be32(valid.data + idat_at);
  size_t place = (i / 4) % VARIANTS;
  memcpy(corrupt, valid.data, valid.len);
  switch (i % 4) {
  case 0: /* a flipped bit in the IDAT's CRC: "IDAT: CRC error" */
    corrupt[idat_at + 8 + idat_len + place % 4] ^= 0x10;
    return valid.len;
  case 1: /* a flipped byte in the IDAT data: a zlib error or a CRC error */
    corrupt[idat_at + 8 + place * idat_len / VARIANTS] ^= 0x5a;
    return valid.len;
  case 2: /* the file ends inside the IDAT data */
    return idat_at + 8 + 1 + place * (idat_len - 1) / VARIANTS;
  default: { /* IHDR with an invalid bit depth, CRC fixed up: "Invalid IHDR
                data" */
    static const unsigned char bad_depths[] = {0, 3, 5, 7, 32};
    unsigned char *h = corrupt + ihdr_at;
    h[8 + 8] = bad_depths[place % sizeof bad_depths];
    uLong crc = crc32(0L, h + 4, 4 + 13);
    h[8 + 13] = (unsigned char)(crc >> 24);
    h[8 + 14] = (unsigned char)(crc >> 16);
    h[8 + 15] = (unsigned char)(crc >> 8);
    h[8 + 16] = (unsigned char)crc;
    return valid.len;
  }
  }
}

static long max_rss_kib(void) {
  static struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int main(int argc, char **argv) {
  unsigned long decodes = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
  if (decodes < 100) {
    fprintf(stderr, "png_errors: at least 100 decodes\n");
    return 2;
  }
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W * CHANNELS; ++x)
      image[y][x] = (unsigned char)(x * 7 + y * 13 + (x ^ y));
  if (!encode())
    return 2;
  idat_at = find_chunk("IDAT");
  ihdr_at = find_chunk("IHDR");
  if (!idat_at || ihdr_at != 8) {
    fprintf(stderr, "png_errors: no IDAT/IHDR in the encoded image\n");
    return 2;
  }
  corrupt = malloc(valid.len);
  if (!corrupt)
    return 2;

  if (!decode(valid.data, valid.len) || memcmp(decoded, image, sizeof image)) {
    fprintf(stderr, "png_errors: the valid image did not decode to itself\n");
    return 1;
  }
  printf("valid image: %zu bytes, IDAT at %zu, decoded\n", valid.len, idat_at);
  for (unsigned long i = 0; i < decodes; ++i) {
    size_t len = make_corrupt(i);
    last_error[0] = 0;
    if (decode(corrupt, len)) {
      fprintf(stderr, "png_errors: corrupted copy %lu decoded\n", i);
      return 1;
    }
    errors_by_kind[i % 4]++;
    if (i < 4)
      printf("copy %lu: png_error \"%s\"\n", i, last_error);
    if (i + 1 == 100) {
      scopealloc_thread_stats(&stats_early);
      printf("after 100 decodes: workspace peak %zu current %zu; "
             "max RSS %ld KiB\n",
             stats_early.peak, stats_early.current, max_rss_kib());
    }
  }
  scopealloc_thread_stats(&stats_late);
  printf("after %lu decodes: workspace peak %zu current %zu; max RSS %ld KiB\n",
         decodes, stats_late.peak, stats_late.current, max_rss_kib());
  printf("errors: %lu bad CRC, %lu bad IDAT data, %lu truncated IDAT, %lu bad "
         "IHDR\n",
         errors_by_kind[0], errors_by_kind[1], errors_by_kind[2],
         errors_by_kind[3]);
  if (!decode(valid.data, valid.len) || memcmp(decoded, image, sizeof image)) {
    fprintf(stderr, "png_errors: the valid image no longer decodes\n");
    return 1;
  }
  if (stats_early.peak == 0) {
    fprintf(stderr, "png_errors: no workspace use (plugin not applied?)\n");
    return 1;
  }
  if (stats_late.peak != stats_early.peak || stats_late.current != 0) {
    fprintf(stderr,
            "png_errors: FAIL: workspace peak %zu after 100 decodes, %zu after "
            "%lu, current %zu (frames skipped by png_error's longjmp were not "
            "released)\n",
            stats_early.peak, stats_late.peak, decodes, stats_late.current);
    return 1;
  }
  printf("flat: peak %zu after 100 and after %lu decodes, current 0\n",
         stats_late.peak, decodes);
  return 0;
}
