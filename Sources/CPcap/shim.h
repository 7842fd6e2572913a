#include <pcap/pcap.h>
#include <stdio.h>

/* A capture held in memory (the fuzz target, tests): libpcap reads it through a FILE on the bytes, which
 * pcap_close closes. NULL with errbuf set when the bytes are no capture. */
static inline pcap_t *conform_pcap_open_memory(const void *bytes, size_t count, char *errbuf) {
    FILE *file = fmemopen((void *)bytes, count, "rb");
    if (file == NULL) {
        snprintf(errbuf, PCAP_ERRBUF_SIZE, "cannot open the bytes as a stream");
        return NULL;
    }
    pcap_t *handle = pcap_fopen_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_MICRO, errbuf);
    if (handle == NULL) fclose(file);
    return handle;
}
