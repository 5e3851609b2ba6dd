/* SPDX-License-Identifier: MIT */
/*
 * serial.c - polled 16550 driver for COM1 (I/O port 0x3F8).
 *
 * Polled, not interrupt driven: the kernel runs with interrupts off, and the
 * exception handler must be able to print with nothing else working. Nothing here
 * allocates or calls libc, for the same reason.
 */
#include "arch/x86_64/cpu/serial.h"

#include "arch/x86_64/cpu/cpu.h"

#define COM1 0x3F8
#define UART_DATA 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_LSR_THRE 0x20
#define UART_LCR_DLAB 0x80
#define UART_LCR_8N1 0x03
/* 115200 = 1.8432 MHz / 16 / 1 */
#define UART_DIVISOR 1

/* A wedged (or absent) UART must not hang the kernel: give up on a byte after this. */
#define UART_SPIN_LIMIT 100000

void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, UART_LCR_DLAB);
	outb(COM1 + UART_DATA, UART_DIVISOR & 0xff);
	outb(COM1 + UART_IER, UART_DIVISOR >> 8);
	outb(COM1 + UART_LCR, UART_LCR_8N1);
	outb(COM1 + UART_FCR, 0x07); /* enable and clear both FIFOs */
	outb(COM1 + UART_MCR, 0x03); /* DTR and RTS, no interrupts (OUT2 off) */
}

static void serial_put_byte(char c)
{
	for (unsigned int spin = 0; spin < UART_SPIN_LIMIT; spin++) {
		if (inb(COM1 + UART_LSR) & UART_LSR_THRE)
			break;
		cpu_relax();
	}
	outb(COM1 + UART_DATA, (unsigned char)c);
}

void serial_write(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n')
			serial_put_byte('\r');
		serial_put_byte(buf[i]);
	}
}

void serial_puts(const char *s)
{
	while (*s) {
		if (*s == '\n')
			serial_put_byte('\r');
		serial_put_byte(*s++);
	}
}

void serial_put_hex(unsigned long long v)
{
	static const char digits[] = "0123456789abcdef";
	char out[18];

	out[0] = '0';
	out[1] = 'x';
	for (int i = 0; i < 16; i++)
		out[2 + i] = digits[(v >> (60 - 4 * i)) & 0xf];
	serial_write(out, sizeof(out));
}
