/* SPDX-License-Identifier: MIT */
#include "core/hash.h"

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/random.h>
#endif

static uint64_t seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void)
{
    uint64_t s = 0;
#if defined(__linux__)
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s)
        s = 0;
#endif
    if (s == 0) {
        /* No entropy source answered: mix what differs between runs. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
            ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&s;
    }
    seed = s | 1;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
    __extension__ typedef unsigned __int128 u128;
    u128 r = (u128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

#define K0 0xa0761d6478bd642full
#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull

uint64_t mcp__hash_bytes(const void *data, size_t len)
{
    pthread_once(&seed_once, seed_init);
    const unsigned char *p = data;
    uint64_t h = seed ^ mix(len ^ K0, K1);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix(h ^ w, K1);
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    if (len)
        memcpy(&tail, p, len);
    return mix(h ^ tail ^ K2, K0 ^ seed);
}

uint64_t mcp__hash_u64(uint64_t x)
{
    pthread_once(&seed_once, seed_init);
    return mix(x ^ seed ^ K2, K1);
}
