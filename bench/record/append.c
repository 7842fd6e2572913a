/* What one write(2) a recorded line costs against batching lines into fewer writes: appends N lines of 1,000 bytes
 * to PATH (opened with O_APPEND, as RecordingWriter opens a recording), BATCH lines a write, and prints the time a
 * line. Build and run: cc -O2 -o /tmp/append bench/record/append.c && /tmp/append /tmp/lines 1 200000
 * (then 4 and 16 for BATCH; a tmpfs path such as /dev/shm/lines shows what the file system adds). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s PATH BATCH LINES (BATCH 1 to 1024, LINES 1 to 10000000)\n", argv[0]);
    return 2;
  }
  const long batch = strtol(argv[2], NULL, 10), lines = strtol(argv[3], NULL, 10), length = 1000;
  if (batch < 1 || batch > 1024 || lines < 1 || lines > 10000000) {
    fprintf(stderr, "BATCH must be 1 to 1024 and LINES 1 to 10000000\n");
    return 2;
  }
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(argv[1]);
    return 1;
  }
  char *buffer = malloc((size_t)(length * batch));
  if (!buffer) return 1;
  memset(buffer, 'x', (size_t)(length * batch));
  for (long i = 0; i < batch; i++) buffer[i * length + length - 1] = '\n';
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long written = 0; written < lines; written += batch) {
    if (write(fd, buffer, (size_t)(length * batch)) != length * batch) {
      perror("write");
      return 1;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double micros = ((double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec)) / 1e3;
  printf("%s: %ld lines a write, %.3f us a line\n", argv[1], batch, micros / (double)lines);
  close(fd);
  unlink(argv[1]);
  free(buffer);
  return 0;
}
