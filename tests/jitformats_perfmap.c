/* Compiles the shared perf map reader into this directory's programs (see
   jitformats_jitdump.c for why it is included rather than listed). */
#include "readperfmap.c"
