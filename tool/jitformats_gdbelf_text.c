/* Compiles the text of the shared rules' problems with GDB JIT objects
   into this directory's programs (see jitformats_jitdump.c for why it is
   included rather than listed). */
#include "readgdbelf-text.c"
