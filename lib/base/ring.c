/*
 * ring.c - see ring.h.
 *
 * One lock and two conditions: `filled` wakes the consumer, `freed` the
 * producer.  Slots are taken in order, so a head and a count say which
 * belong to whom.
 */
#include <stdlib.h>

#include "ring.h"

#ifdef _WIN32
#include <process.h>
#include <stdint.h>
#include <windows.h>

typedef SRWLOCK lock_t;
typedef CONDITION_VARIABLE cond_t;
#define lock_init(l)		InitializeSRWLock(l)
#define lock_destroy(l)		((void)(l))
#define lock_take(l)		AcquireSRWLockExclusive(l)
#define lock_give(l)		ReleaseSRWLockExclusive(l)
#define cond_init(c)		InitializeConditionVariable(c)
#define cond_destroy(c)		((void)(c))
#define cond_wait(c, l)		SleepConditionVariableSRW(c, l, INFINITE, 0)
#define cond_wake(c)		WakeConditionVariable(c)
#else
#include <pthread.h>

typedef pthread_mutex_t lock_t;
typedef pthread_cond_t cond_t;
#define lock_init(l)		pthread_mutex_init(l, NULL)
#define lock_destroy(l)		pthread_mutex_destroy(l)
#define lock_take(l)		pthread_mutex_lock(l)
#define lock_give(l)		pthread_mutex_unlock(l)
#define cond_init(c)		pthread_cond_init(c, NULL)
#define cond_destroy(c)		pthread_cond_destroy(c)
#define cond_wait(c, l)		pthread_cond_wait(c, l)
#define cond_wake(c)		pthread_cond_signal(c)
#endif

struct ring {
	lock_t lock;
	cond_t filled, freed;
	unsigned nslots;
	unsigned head;		/* the oldest filled slot */
	unsigned count;		/* filled slots, from head on */
	size_t budget, weight;
	size_t *weights;	/* of each filled slot */
	int closed, stopped;

	void (*fn)(void *);
	void *arg;
	int started;
#ifdef _WIN32
	HANDLE thread;
#else
	pthread_t thread;
#endif
};

struct ring *
ring_new(unsigned nslots, size_t budget)
{
	struct ring *rg = calloc(1, sizeof(*rg));

	if (rg == NULL || nslots == 0)
		goto fail;
	if ((rg->weights = calloc(nslots, sizeof(*rg->weights))) == NULL)
		goto fail;
	rg->nslots = nslots;
	rg->budget = budget;
	lock_init(&rg->lock);
	cond_init(&rg->filled);
	cond_init(&rg->freed);
	return rg;
fail:
	free(rg);
	return NULL;
}

void
ring_free(struct ring *rg)
{
	if (rg == NULL)
		return;
	cond_destroy(&rg->filled);
	cond_destroy(&rg->freed);
	lock_destroy(&rg->lock);
	free(rg->weights);
	free(rg);
}

#ifdef _WIN32
static unsigned __stdcall
thread_main(void *p)
{
	struct ring *rg = p;

	rg->fn(rg->arg);
	return 0;
}

/* _beginthreadex, not CreateThread: the thread calls the C runtime. */
int
ring_thread_start(struct ring *rg, void (*fn)(void *), void *arg)
{
	uintptr_t h;

	rg->fn = fn;
	rg->arg = arg;
	if ((h = _beginthreadex(NULL, 0, thread_main, rg, 0, NULL)) == 0)
		return -1;
	rg->thread = (HANDLE)h;
	rg->started = 1;
	return 0;
}

void
ring_thread_join(struct ring *rg)
{
	if (!rg->started)
		return;
	WaitForSingleObject(rg->thread, INFINITE);
	CloseHandle(rg->thread);
	rg->started = 0;
}
#else
static void *
thread_main(void *p)
{
	struct ring *rg = p;

	rg->fn(rg->arg);
	return NULL;
}

int
ring_thread_start(struct ring *rg, void (*fn)(void *), void *arg)
{
	rg->fn = fn;
	rg->arg = arg;
	if (pthread_create(&rg->thread, NULL, thread_main, rg) != 0)
		return -1;
	rg->started = 1;
	return 0;
}

void
ring_thread_join(struct ring *rg)
{
	if (!rg->started)
		return;
	pthread_join(rg->thread, NULL);
	rg->started = 0;
}
#endif

/* Whether a slot of `weight` may be filled now (lock held). */
static int
has_room(const struct ring *rg, size_t weight)
{
	if (rg->count == rg->nslots)
		return 0;
	return rg->count == 0 || rg->weight + weight <= rg->budget;
}

long
ring_put_begin(struct ring *rg, size_t weight)
{
	long slot;

	lock_take(&rg->lock);
	while (!rg->stopped && !has_room(rg, weight))
		cond_wait(&rg->freed, &rg->lock);
	if (rg->stopped)
		slot = -1;
	else {
		slot = (rg->head + rg->count) % rg->nslots;
		rg->weights[slot] = weight;
	}
	lock_give(&rg->lock);
	return slot;
}

void
ring_put_end(struct ring *rg)
{
	lock_take(&rg->lock);
	rg->weight += rg->weights[(rg->head + rg->count) % rg->nslots];
	rg->count++;
	cond_wake(&rg->filled);
	lock_give(&rg->lock);
}

void
ring_close(struct ring *rg)
{
	lock_take(&rg->lock);
	rg->closed = 1;
	cond_wake(&rg->filled);
	lock_give(&rg->lock);
}

long
ring_get_begin(struct ring *rg)
{
	long slot;

	lock_take(&rg->lock);
	while (rg->count == 0 && !rg->closed)
		cond_wait(&rg->filled, &rg->lock);
	slot = rg->count > 0 ? (long)rg->head : -1;
	lock_give(&rg->lock);
	return slot;
}

void
ring_get_end(struct ring *rg)
{
	lock_take(&rg->lock);
	rg->weight -= rg->weights[rg->head];
	rg->head = (rg->head + 1) % rg->nslots;
	rg->count--;
	cond_wake(&rg->freed);
	lock_give(&rg->lock);
}

void
ring_stop(struct ring *rg)
{
	lock_take(&rg->lock);
	rg->stopped = 1;
	cond_wake(&rg->freed);
	lock_give(&rg->lock);
}
