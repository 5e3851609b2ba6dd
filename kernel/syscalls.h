/* SPDX-License-Identifier: MIT */
/*
 * syscalls.h - set-up of the newlib system-call layer (see syscalls.c).
 */
#ifndef SLUICE_BOOT_SYSCALLS_H
#define SLUICE_BOOT_SYSCALLS_H

#include <stddef.h>

/**
 * syscalls_set_heap() - give sbrk() the region reserved at boot.
 * @base: start of the region.
 * @size: its size in bytes.
 */
void syscalls_set_heap(void *base, size_t size);

/**
 * syscalls_heap_used() - bytes sbrk() has handed out so far.
 */
size_t syscalls_heap_used(void);

#endif /* SLUICE_BOOT_SYSCALLS_H */
