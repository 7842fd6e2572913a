#include "build_info.h"

#ifndef CONFORM_COMMIT
#define CONFORM_COMMIT "unknown"
#endif

const char *conform_build_commit(void) { return CONFORM_COMMIT; }
