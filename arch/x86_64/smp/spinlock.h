/* SPDX-License-Identifier: MIT */
/*
 * spinlock.h - test-and-test-and-set spinlock with exponential backoff.
 *
 * The kernel runs with interrupts off and never sleeps, so a spinlock is the only
 * lock it needs. Waiters spin on a plain load (the line stays shared in their
 * caches) and back off with PAUSE, doubling up to a cap, so a contended lock does
 * not turn into a storm of atomic writes.
 */
#ifndef SLUICE_ARCH_SPINLOCK_H
#define SLUICE_ARCH_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define SPIN_BACKOFF_MAX 1024u

/**
 * struct spinlock - one lock word; zero is unlocked.
 * @locked: 0 or 1.
 */
struct spinlock {
	uint32_t locked;
};

static inline void spin_lock(struct spinlock *l)
{
	unsigned int backoff = 1;

	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		do {
			for (unsigned int i = 0; i < backoff; i++)
				__asm__ volatile("pause");
			if (backoff < SPIN_BACKOFF_MAX)
				backoff <<= 1;
		} while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED));
	}
}

/**
 * spin_trylock() - take the lock if it is free, without waiting.
 * @l: the lock.
 * Return: true if taken.
 */
static inline bool spin_trylock(struct spinlock *l)
{
	return !__atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif /* SLUICE_ARCH_SPINLOCK_H */
