/* SPDX-License-Identifier: MIT */
/*
 * lapic.h - the local APIC, only as far as starting and waking other processors
 * needs: our own APIC ID, INIT and start-up IPIs, one fixed wake-up IPI and EOI.
 *
 * x2APIC (MSR access) is used when the CPU has it, the memory-mapped xAPIC
 * otherwise. The kernel polls its devices, so nothing here touches timers or LVT
 * entries.
 */
#ifndef SLUICE_ARCH_LAPIC_H
#define SLUICE_ARCH_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/**
 * lapic_init() - choose the access mode on the bootstrap processor.
 * @mmio_base: the xAPIC register base from the MADT (0: use the APIC base MSR).
 *
 * Switches the local APIC to x2APIC mode when CPUID offers it (the MADT may
 * list x2APIC IDs above 255 that only that mode can address).
 * Return: 0, or -1 if the CPU has no local APIC or it is disabled.
 */
int lapic_init(uint64_t mmio_base);

/**
 * lapic_enable_on_ap() - put an application processor's local APIC in the mode
 * the bootstrap processor chose (x2APIC must be enabled per CPU).
 */
void lapic_enable_on_ap(void);

/**
 * lapic_is_x2apic() - whether lapic_init() chose x2APIC mode.
 */
bool lapic_is_x2apic(void);

/**
 * lapic_id() - the APIC ID of the calling CPU.
 */
uint32_t lapic_id(void);

/**
 * lapic_send_init() - send an INIT IPI (assert) to one processor.
 * @apic_id: destination.
 * Return: 0, or -1 if the interrupt was not accepted within 10 ms.
 */
int lapic_send_init(uint32_t apic_id);

/**
 * lapic_send_startup() - send a start-up IPI.
 * @apic_id: destination.
 * @page: physical address of the 4 KiB page where the processor starts in real
 *	mode (below 1 MiB, page aligned).
 * Return: 0, or -1 if the interrupt was not accepted within 10 ms.
 */
int lapic_send_startup(uint32_t apic_id, uint64_t page);

/**
 * lapic_send_fixed() - send a fixed-delivery IPI (used to wake a halted CPU).
 * @apic_id: destination.
 * @vector: interrupt vector, 32..254.
 * Return: 0, or -1 if the interrupt was not accepted within 10 ms.
 */
int lapic_send_fixed(uint32_t apic_id, uint8_t vector);

/**
 * lapic_eoi() - signal end of interrupt for the vector being handled.
 */
void lapic_eoi(void);

#endif /* SLUICE_ARCH_LAPIC_H */
