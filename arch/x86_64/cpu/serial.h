/* SPDX-License-Identifier: MIT */
/*
 * serial.h - the 16550 UART on COM1, the kernel's only console.
 */
#ifndef SLUICE_ARCH_SERIAL_H
#define SLUICE_ARCH_SERIAL_H

#include <stddef.h>

/**
 * serial_init() - program COM1 for 115200 baud, 8N1, FIFOs on, interrupts off.
 *
 * Safe to call while the firmware still owns the console: it only rewrites the
 * line settings the firmware already uses.
 */
void serial_init(void);

/**
 * serial_write() - write bytes to COM1, turning "\n" into "\r\n".
 * @buf: the bytes.
 * @len: how many.
 */
void serial_write(const char *buf, size_t len);

/**
 * serial_puts() - write a NUL-terminated string (no newline added).
 * @s: the string.
 */
void serial_puts(const char *s);

/**
 * serial_put_hex() - write "0x" and 16 hex digits; usable when nothing else is.
 * @v: the value.
 */
void serial_put_hex(unsigned long long v);

#endif /* SLUICE_ARCH_SERIAL_H */
