/* SPDX-License-Identifier: MIT */
/*
 * The shared word of the sim trace clock: POSIX shared memory /fencescope-sim-clock-UID, one
 * 64-bit atomic holding the latest virtual time (ns) of any sim-mode runtime of that user
 * whose process loads the clock plugin. Used by the plugin (clock-plugin.c) and the runtime
 * (clock.c); a static inline so that both get it without linking each other.
 */
#ifndef FENCESCOPE_SIM_CLOCK_PRIVATE_H
#define FENCESCOPE_SIM_CLOCK_PRIVATE_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* Returns the mapped word, or NULL. The mapping lives as long as the process. */
static inline _Atomic uint64_t *
fsr_sim_clock_map(void)
{
	char name[64];
	void *word;
	int fd;

	snprintf(name, sizeof(name), "/fencescope-sim-clock-%u", (unsigned int) getuid());
	fd = shm_open(name, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, sizeof(uint64_t)) != 0) {
		close(fd);
		return NULL;
	}
	word = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return word == MAP_FAILED ? NULL : word;
}

/* Moves the word to `now_ns` unless it is already there or beyond. */
static inline void
fsr_sim_clock_advance(_Atomic uint64_t *word, uint64_t now_ns)
{
	uint64_t current = atomic_load_explicit(word, memory_order_relaxed);

	while (current < now_ns &&
	       !atomic_compare_exchange_weak_explicit(word, &current, now_ns, memory_order_relaxed,
						      memory_order_relaxed))
		;
}

#endif /* FENCESCOPE_SIM_CLOCK_PRIVATE_H */
