/*
 * rng.c - xoshiro256** (Blackman and Vigna) with splitmix64 seeding.
 */
#include <stdint.h>

#include "rng.h"

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z;

	z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void
rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result, t;

	result = rotl(s[1] * 5, 7) * 9;
	t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Rejects the top sliver of the range so every result is equally likely. */
uint64_t
rng_below(struct rng *r, uint64_t n)
{
	uint64_t limit, x;

	limit = UINT64_MAX - UINT64_MAX % n;
	do
		x = rng_next(r);
	while (x >= limit);
	return x % n;
}

uint64_t
rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	if (hi - lo == UINT64_MAX)
		return rng_next(r);
	return lo + rng_below(r, hi - lo + 1);
}

int
rng_percent(struct rng *r, unsigned percent)
{
	return rng_below(r, 100) < percent;
}
