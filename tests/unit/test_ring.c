/*
 * test_ring.c - the ring between two threads and the work done ahead
 * on it: items arrive whole and in order, a stop or a close ends the
 * other side's wait, and a budget lets one heavy item through.
 */
#include <stdint.h>

#include "base/ahead.h"
#include "base/ring.h"
#include "harness.h"

#define ITEMS	20000

struct produce {
	struct ring *rg;
	uint32_t *slots;
	size_t n, stopped_at;
};

static void
producer(void *arg)
{
	struct produce *p = arg;
	size_t k;
	long s;

	for (k = 0; k < p->n; k++) {
		if ((s = ring_put_begin(p->rg, k % 3)) < 0) {
			p->stopped_at = k;
			return;
		}
		p->slots[s] = (uint32_t)k * 7 + 1;
		ring_put_end(p->rg);
	}
	ring_close(p->rg);
}

static void
test_ring_order(void)
{
	uint32_t slots[4];
	struct produce p = { ring_new(4, 3), slots, ITEMS, 0 };
	size_t k = 0, bad = 0;
	long s;

	REQUIRE(p.rg != NULL);
	REQUIRE(ring_thread_start(p.rg, producer, &p) == 0);
	while ((s = ring_get_begin(p.rg)) >= 0) {
		if (slots[s] != (uint32_t)k * 7 + 1)
			bad++;
		k++;
		ring_get_end(p.rg);
	}
	ring_thread_join(p.rg);
	ring_free(p.rg);
	CHECK_EQ_INT(k, ITEMS);
	CHECK_EQ_INT(bad, 0);
}

/* A consumer that stops early releases a producer waiting for room. */
static void
test_ring_stop(void)
{
	uint32_t slots[2];
	struct produce p = { ring_new(2, 100), slots, ITEMS, 0 };
	long s;
	int i;

	REQUIRE(p.rg != NULL);
	REQUIRE(ring_thread_start(p.rg, producer, &p) == 0);
	for (i = 0; i < 10; i++) {
		REQUIRE((s = ring_get_begin(p.rg)) >= 0);
		CHECK_EQ_INT(slots[s], i * 7 + 1);
		ring_get_end(p.rg);
	}
	ring_stop(p.rg);
	ring_thread_join(p.rg);
	ring_free(p.rg);
	/* Ten taken, two at most in the ring: it stopped soon after. */
	CHECK(p.stopped_at >= 10 && p.stopped_at <= 12);
}

/* An item heavier than the whole budget still passes an empty ring. */
static void
test_ring_heavy(void)
{
	struct ring *rg = ring_new(4, 10);
	long s;

	REQUIRE(rg != NULL);
	CHECK((s = ring_put_begin(rg, 1000)) == 0);
	ring_put_end(rg);
	CHECK(ring_get_begin(rg) == 0);
	ring_get_end(rg);
	CHECK((s = ring_put_begin(rg, 1000)) == 1);
	ring_put_end(rg);
	ring_close(rg);
	CHECK(ring_get_begin(rg) == 1);
	ring_get_end(rg);
	CHECK(ring_get_begin(rg) == -1);
	ring_free(rg);
}

static size_t
weigh(void *arg, size_t k)
{
	(void)arg;
	return k % 5 * 100;
}

static void
work(void *arg, size_t k, struct ahead_slot *s)
{
	size_t *worked = arg;

	if (s->cap < 16) {
		free(s->data);
		s->data = malloc(16);
		s->cap = s->data ? 16 : 0;
	}
	if (s->data != NULL)
		snprintf((char *)s->data, 16, "%zu", k);
	s->result = (long)k;
	(*worked)++;
}

static const struct ahead_ops ops = { weigh, work };

static void
test_ahead_order(void)
{
	size_t worked = 0, k, bad = 0;
	struct ahead *a = ahead_start(&ops, &worked, 5000, 8, 300);
	struct ahead_slot *s;
	char want[16];

	REQUIRE(a != NULL);
	for (k = 0; (s = ahead_take(a)) != NULL; k++) {
		snprintf(want, sizeof(want), "%zu", k);
		if (s->result != (long)k || s->data == NULL ||
		    strcmp((char *)s->data, want) != 0)
			bad++;
	}
	ahead_free(a);
	CHECK_EQ_INT(k, 5000);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(worked, 5000);
}

/* Freed before everything was taken: the thread stops, nothing leaks. */
static void
test_ahead_early_free(void)
{
	size_t worked = 0;
	struct ahead *a = ahead_start(&ops, &worked, 1000000, 4, 1000);
	struct ahead_slot *s;

	REQUIRE(a != NULL);
	REQUIRE((s = ahead_take(a)) != NULL);
	CHECK_EQ_INT(s->result, 0);
	REQUIRE((s = ahead_take(a)) != NULL);
	CHECK_EQ_INT(s->result, 1);
	ahead_free(a);
	CHECK(worked < 1000000);
}

int
main(void)
{
	RUN(test_ring_order);
	RUN(test_ring_stop);
	RUN(test_ring_heavy);
	RUN(test_ahead_order);
	RUN(test_ahead_early_free);
	HARNESS_EXIT();
}
