/*
 * rng.h - the generator's own pseudo-random numbers: xoshiro256** seeded
 * through splitmix64, so a seed gives the same trace on every platform
 * and C library.
 */
#ifndef RNG_H
#define RNG_H

#include <stdint.h>

struct rng {
	uint64_t	s[4];
};

void		rng_seed(struct rng *r, uint64_t seed);
uint64_t	rng_next(struct rng *r);
/* A number in [0, n); n must not be 0. */
uint64_t	rng_below(struct rng *r, uint64_t n);
/* A number in [lo, hi]. */
uint64_t	rng_range(struct rng *r, uint64_t lo, uint64_t hi);
/* True with probability percent / 100. */
int		rng_percent(struct rng *r, unsigned percent);

#endif
