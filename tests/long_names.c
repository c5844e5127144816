/* long_names.c: a program whose functions stress Callgrind's records
 * (patch 0005): one function with a 12,288-character name, longer than
 * the 8 KiB that Callgrind carves from its record chunks (such a record
 * gets an arena block of its own), and 300 short-named functions, each
 * called a different number of times, whose records are carved.  Run by
 * integration_core's callgrind_records_keep_long_and_many_names. */

/* Identifiers built by token pasting: D(x) doubles x, so LONG_NAME is
 * "long_name_" followed by 2^12 copies of "abc". */
#define PASTE(a, b) a##b
#define XPASTE(a, b) PASTE(a, b)
#define D(x) XPASTE(x, x)
#define D4(x) D(D(D(D(x))))
#define D12(x) D4(D4(D4(x)))
#define LONG_NAME XPASTE(long_name_, D12(abc))

__attribute__((noinline)) int LONG_NAME(int x) {
    __asm__ volatile("" ::: "memory");
    return x + 1;
}

/* short_0 .. short_299: short_k is called k + 1 times. */
#define SHORT(k)                                                      \
    __attribute__((noinline)) int short_##k(int x) {                  \
        __asm__ volatile("" ::: "memory");                            \
        return x + k;                                                 \
    }
#define SHORT10(t) SHORT(t##0) SHORT(t##1) SHORT(t##2) SHORT(t##3) SHORT(t##4) \
                   SHORT(t##5) SHORT(t##6) SHORT(t##7) SHORT(t##8) SHORT(t##9)
#define SHORT100(h) SHORT10(h##0) SHORT10(h##1) SHORT10(h##2) SHORT10(h##3) \
                    SHORT10(h##4) SHORT10(h##5) SHORT10(h##6) SHORT10(h##7) \
                    SHORT10(h##8) SHORT10(h##9)
SHORT10()
SHORT10(1) SHORT10(2) SHORT10(3) SHORT10(4) SHORT10(5) SHORT10(6) SHORT10(7) SHORT10(8) SHORT10(9)
SHORT100(1) SHORT100(2)

typedef int (*fn_t)(int);
#define REF(k) short_##k,
#define REF10(t) REF(t##0) REF(t##1) REF(t##2) REF(t##3) REF(t##4) \
                 REF(t##5) REF(t##6) REF(t##7) REF(t##8) REF(t##9)
#define REF100(h) REF10(h##0) REF10(h##1) REF10(h##2) REF10(h##3) REF10(h##4) \
                  REF10(h##5) REF10(h##6) REF10(h##7) REF10(h##8) REF10(h##9)
static fn_t const shorts[300] = {
    REF10() REF10(1) REF10(2) REF10(3) REF10(4) REF10(5) REF10(6) REF10(7) REF10(8) REF10(9)
    REF100(1) REF100(2)
};

int main(void) {
    int acc = 0;
    for (int i = 0; i < 3; i++)
        acc = LONG_NAME(acc);
    for (int k = 0; k < 300; k++)
        for (int j = 0; j <= k; j++)
            acc = shorts[k](acc);
    /* 3 from LONG_NAME, then short_k adds k, k + 1 times. */
    return acc == 3 + 299 * 300 * 599 / 6 + 299 * 300 / 2 ? 0 : 1;
}
