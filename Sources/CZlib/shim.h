#include <zlib.h>

/* inflateInit2 is a macro Swift cannot call: a typed wrapper. window_bits 15+32 reads zlib and gzip, -15 raw deflate. */
static inline int conform_inflate_init(z_stream *stream, int window_bits) {
  return inflateInit2(stream, window_bits);
}
