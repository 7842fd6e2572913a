/* Times libyaml's raw event stream over a file read into memory: prints MB/s per run and the median. */
#include <yaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: events FILE [RUNS]\n"); return 64; }
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 2; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *data = malloc(size);
    if (fread(data, 1, size, file) != (size_t)size) { perror("read"); return 2; }
    fclose(file);
    double rates[64];
    if (runs > 64) runs = 64;
    for (int run = 0; run < runs; run++) {
        double start = now();
        yaml_parser_t parser;
        yaml_parser_initialize(&parser);
        yaml_parser_set_input_string(&parser, data, size);
        yaml_event_t event;
        long events = 0;
        for (;;) {
            if (!yaml_parser_parse(&parser, &event)) { fprintf(stderr, "parse error: %s\n", parser.problem); return 1; }
            int done = event.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&event);
            events++;
            if (done) break;
        }
        yaml_parser_delete(&parser);
        double seconds = now() - start;
        rates[run] = size / 1e6 / seconds;
        printf("libyaml events: run %d: %.3f s, %ld events, %.1f MB/s\n", run + 1, seconds, events, rates[run]);
    }
    qsort(rates, runs, sizeof(double), compare);
    printf("libyaml events: median %.1f MB/s over %d runs (%.1f MB)\n", rates[runs / 2], runs, size / 1e6);
    free(data);
    return 0;
}
