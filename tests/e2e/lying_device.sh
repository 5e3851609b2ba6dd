#!/usr/bin/env bash
# A hostile virtio-blk device on a real boot: QEMU's vhost-user-blk-pci hands the
# disk's queues to tests/vhost_user_blk.py, which serves a seeded image correctly
# and then, in one device session chosen per scenario, lies: used ids out of range
# or repeated, a used length beyond the buffers, a completion for a descriptor
# never made available, writes into buffers after their completion was consumed,
# a used index that jumps, no completion at all, writes and completions after the
# reset, a reset that never ends. For each the kernel must say what happened
# (device fault, exit 6, or exit 0 where the lie cannot be seen and harms nothing),
# finish within the device deadline, and lose or corrupt no data of the other
# requests: every mode that ran on an honest session reads the host's cksum, and
# the image on the host holds every pattern region written, the rest unchanged.
# On the host side the back-end's log shows that in the confidential modes every
# ring, table and buffer lay in the DMA region the boot report printed, and that
# no buffer the device was to fill held a byte the host had not seen there
# (nothing private disclosed; a scrub=copy boot proves that check can fail).
. "$(dirname "$0")/lib.sh"

backend="$E2E_TOP/tests/vhost_user_blk.py"
pattern="$E2E_TOP/scripts/blk_pattern.py"
orig="$E2E_LOGDIR/lying-orig.img"
bytes=$((8 * 1024 * 1024))
python3 "$pattern" make "$orig" "$bytes" 20261212 || e2e_fail "cannot create the image"
want=$(cksum <"$orig" | awk '{print $1}')
echo "host cksum of the seeded image: $want $bytes"

# One directory for the sockets (short paths: sun_path holds 108 bytes).
sockdir=$(mktemp -d /tmp/sluice-vhost.XXXXXX) || e2e_fail "mktemp"
backend_pid=""
watcher_pid=""
stop_backend() {
	if [ -n "$backend_pid" ] && kill -0 "$backend_pid" 2>/dev/null; then
		kill "$backend_pid" 2>/dev/null
		wait "$backend_pid" 2>/dev/null
	fi
	backend_pid=""
}
# A failed check exits with the hang-reset watcher still polling: end it too.
trap 'stop_backend; [ -z "$watcher_pid" ] || kill "$watcher_pid" 2>/dev/null; rm -rf "$sockdir"' EXIT
trap 'exit 130' INT TERM

# The kernel's defaults for every boot: one CPU and queue, 16 requests in flight
# (the back-end's repeat-id needs fewer than 32), 2 s device deadline.
base_args="cpus=1 frames=0 device_timeout_ms=2000 iodepth=16"
three="modes=direct,bounce,arena policies=sluice"

# lying_boot NAME SCENARIO SESSION AFTER STATUS TIMEOUT QUEUES KERNEL_ARGS...
#	boots against the back-end lying in SESSION after AFTER requests, expects
#	run-qemu.sh to return STATUS within TIMEOUT seconds; the back-end must end by
#	itself when QEMU goes, with status 0, leaving no socket. Sets BOOT_LOG, VLOG
#	(the back-end's event log), DISK (the image after the run), ELAPSED.
lying_boot() {
	local name=$1 scenario=$2 session=$3 after=$4 status=$5 timeout=$6 queues=$7
	shift 7
	local sock="$sockdir/$name.sock" t0 rc i
	DISK="$E2E_LOGDIR/lying-$name.img"
	VLOG="$E2E_LOGDIR/lying-$name.vhost.log"
	cp "$orig" "$DISK"
	python3 "$backend" serve --socket-path "$sock" --blk-file "$DISK" --log "$VLOG" \
		--scenario "$scenario" --session "$session" --after "$after" --queues "$queues" \
		--connect-timeout 60 2>"$VLOG.err" &
	backend_pid=$!
	for i in $(seq 100); do
		[ -S "$sock" ] && break
		kill -0 "$backend_pid" 2>/dev/null || { cat "$VLOG.err" >&2; e2e_fail "$name: the back-end did not start"; }
		sleep 0.1
	done
	[ -S "$sock" ] || e2e_fail "$name: no socket from the back-end"
	t0=$(date +%s)
	SLUICE_E2E_TIMEOUT=$timeout boot_kernel "lying-$name" "$status" \
		--vhost-user-blk "$sock" --blk-queues "$queues" --args "$base_args $*"
	ELAPSED=$(($(date +%s) - t0))
	# QEMU is gone: the back-end sees the hang-up and ends on its own.
	for i in $(seq 50); do
		kill -0 "$backend_pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$backend_pid" 2>/dev/null && e2e_fail "$name: the back-end is still running after QEMU ended"
	wait "$backend_pid"
	rc=$?
	backend_pid=""
	cat "$VLOG.err"
	[ "$rc" -eq 0 ] || e2e_fail "$name: the back-end exited with $rc"
	[ -e "$sock" ] && e2e_fail "$name: the back-end left its socket behind"
	echo "$name: ${ELAPSED}s"
	return 0
}

# end_hang_after_reset VLOG SOCK: once the back-end logs the reset it will never
# answer, let the hang stand for 5 s, then end the run as the host's timeout would.
# timeout(1) takes SIGALRM as its own expiry (it kills QEMU and exits 124), so the
# run ends the same way whatever the machine's load, instead of a fixed 30 s that a
# loaded machine may not reach the reset in (seen: the boot was still before the
# reset at 30 s with six other jobs on the 2 cores). If the line never comes, the
# run's own 300 s timeout ends it and the check below fails.
end_hang_after_reset() {
	local vlog=$1 sock=$2 i p cmd
	rm -f "$vlog"
	for i in $(seq 600); do
		if grep -q '"what":"GET_VRING_BASE never answered"' "$vlog" 2>/dev/null; then
			sleep 5
			for p in /proc/[0-9]*; do
				cmd=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
				case $cmd in
				"timeout -k 5 "*" qemu-system-x86_64 "*"$sock"*) kill -ALRM "${p#/proc/}" ;;
				esac
			done
			return 0
		fi
		sleep 0.5
	done
}

# The configurations in session order, from the kernel's per-init summary lines.
configs_of() {
	sed -n -E 's/^blk: mode=([^ ]+) [0-9]+ requests, .*/\1/p' "$1" | paste -sd, -
}

# host_checks [EXTRA_CONFIG]: the back-end's view of the boot (addresses in the DMA
# region, nothing private disclosed) for every session; EXTRA_CONFIG names a last
# session that ended before its summary line (the boot stopped inside it).
host_checks() {
	local configs dma base kib
	configs=$(configs_of "$BOOT_LOG")${1:+,$1}
	dma=$(grep -E -m1 '^  dma +0x[0-9a-f]+ [0-9]+ KiB' "$BOOT_LOG") || e2e_fail "no dma line"
	base=$(echo "$dma" | awk '{print $2}')
	kib=$(echo "$dma" | awk '{print $3}')
	python3 "$backend" check "$VLOG" --dma "$base:$((kib * 1024))" --configs "$configs" ||
		e2e_fail "host-side checks of $VLOG failed"
}

# lie_told SESSION: the back-end's log says the lie began in SESSION.
lie_told() {
	grep -q "\"ev\":\"lie-starts\".*\"s\":$1}" "$VLOG" || e2e_fail "the back-end lied elsewhere than in session $1"
}

reads_ok() {
	local mode
	for mode in "$@"; do
		expect "$BOOT_LOG" "^blk: mode=$mode read $bytes bytes bs=65536 iodepth=[0-9]+: cksum $want $bytes, 0 errors"
	done
}

verify() {
	python3 "$pattern" verify "$orig" "$DISK" 65536 "$@" || e2e_fail "image check failed"
}

fault_exit='^sluice: block task failed: 1 device fault \(deadline 2000 ms\); exit 6$'

# --- an honest device: two queues on two CPUs, every mode; then scrub=copy, where
# the host must see bytes it never had (the disclosure check can fail).
lying_boot ok ok 1 1 0 120 2 modes=direct,bounce,arena policies=linux,sluice cpus=2 iodepth=32
reads_ok direct bounce/linux bounce/sluice arena # names: chosen (modes= policies=)
expect "$BOOT_LOG" '^blk: mode=direct .* 2 queues of 256' '^sluice: boot report complete; exit 0$'
reject "$BOOT_LOG" ' [1-9][0-9]* errors|bad lengths, [1-9]|bad status bytes, [1-9]|abandoned, [1-9]|bad used entries, [1-9]|^dma: (warning|error)'
grep -q '"q":1,' "$VLOG" || e2e_fail "nothing was served on the second queue"
host_checks
verify 0,1,2

lying_boot copy ok 1 1 0 120 1 modes=bounce policies=sluice scrub=copy
reads_ok bounce/sluice
configs=$(configs_of "$BOOT_LOG")
out=$(python3 "$backend" check "$VLOG" --dma 0:$((1 << 40)) --configs "$configs")
[ $? -eq 1 ] && echo "$out" | grep -Eq '^session 1 \(bounce/sluice\): .*: FAIL: [1-9][0-9]* bytes of guest memory disclosed$' ||
	{ echo "$out" >&2; e2e_fail "scrub=copy: the host-side check did not see the disclosure"; }
echo "scrub=copy: the host-side check sees what it discloses:" \
	"$(echo "$out" | sed -n -E 's/.*: FAIL: ([0-9]+ bytes).*/\1/p') the host had not seen at those addresses"

# --- used id beyond the queue in place of a completion: skipped and counted; the
# request it stood for never completes: deadline, reset, taken back.
lying_boot bad-id bad-id 2 16 6 120 1 "$three"
lie_told 2
expect "$BOOT_LOG" '^dma: warning: virtq 0: used id 263 out of range \(size 256\)$' \
	'^blk: mode=bounce/sluice the device completed nothing in 2000 ms: stopped$' \
	'^blk: mode=bounce/sluice [0-9]+ requests, 0 errors, 0 busy retries, 0 bad lengths, 0 bad status bytes, 1 abandoned, 1 bad used entries$' \
	'^blk: mode=bounce/sluice the device broke the virtio protocol: 1 bad used entries, 0 bad lengths, 0 bad status bytes$' \
	"$fault_exit"
reads_ok direct arena
host_checks
verify 0,1,2

# --- a completed id published again in place of the next completion: the replay is
# skipped (the id is no longer in flight), the real completion follows; every byte
# read is right, and the device is still at fault.
lying_boot repeat-id repeat-id 3 16 6 120 1 "$three"
lie_told 3
expect "$BOOT_LOG" '^dma: warning: virtq 0: used id [0-9]+ not in flight \(replay\?\)$' \
	'^blk: mode=arena 128 requests, 0 errors, 0 busy retries, 0 bad lengths, 0 bad status bytes, 0 abandoned, 1 bad used entries$' \
	'^blk: mode=arena the device broke the virtio protocol: 1 bad used entries' "$fault_exit"
reads_ok direct bounce/sluice arena # names: chosen ($three)
host_checks
verify 0,1,2

# --- a used length 4096 bytes beyond the buffers: that read fails (-34), its data
# discarded; the other reads of the mode and the other modes are right.
lying_boot long-len long-len 2 16 6 120 1 "$three"
lie_told 2
expect "$BOOT_LOG" '^dma: warning: virtq 0: used id [0-9]+ len 69633 > 65537 writable bytes posted$' \
	'^blk: mode=bounce/sluice read of sector [0-9]+ failed \(-34\)$' \
	"^blk: mode=bounce/sluice read $bytes bytes .*, 1 errors," \
	'^blk: mode=bounce/sluice 128 requests, 1 errors, 0 busy retries, 1 bad lengths, 0 bad status bytes, 0 abandoned, 0 bad used entries$' \
	'^blk: mode=bounce/sluice the device broke the virtio protocol: 0 bad used entries, 1 bad lengths' "$fault_exit"
reads_ok direct arena
host_checks
verify 0,1,2

# --- during a write pass, a completion for a descriptor never made available:
# skipped; every write still lands.
lying_boot unsolicited unsolicited 5 4 6 120 1 "$three"
lie_told 5
expect "$BOOT_LOG" '^dma: warning: virtq 0: used id 255 not in flight \(replay\?\)$' \
	'^blk: mode=bounce/sluice wrote pattern to sectors .* 0 errors' \
	'^blk: mode=bounce/sluice 11 requests, 0 errors, 0 busy retries, 0 bad lengths, 0 bad status bytes, 0 abandoned, 1 bad used entries$' \
	"$fault_exit"
reads_ok direct bounce/sluice arena # names: chosen ($three)
host_checks
verify 0,1,2

# --- the device writes 0xa5 over buffers whose completion the driver consumed: the
# bounce modes copied the data out at the validated completion, so the late writes
# land in shared slots only and change nothing the kernel read. The kernel cannot
# see this lie: exit 0.
lying_boot write-after-complete write-after-complete 1 16 0 120 1 modes=bounce policies=linux,sluice
lie_told 1
reads_ok bounce/linux bounce/sluice
expect "$BOOT_LOG" '^sluice: boot report complete; exit 0$'
out=$(host_checks) || { echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -Eq '^session 1 \(bounce/linux\): .* [1-9][0-9]* late writes: ok$' ||
	e2e_fail "the back-end made no late write"
verify 1

# --- used->idx jumps 1000 ahead during the arena write pass: the queue is broken,
# the device stopped and reset, its requests taken back; the other regions and the
# rest of the disk are intact (the arena region may hold anything).
lying_boot idx-jump idx-jump 6 4 6 120 1 "$three"
lie_told 6
expect "$BOOT_LOG" '^dma: error: virtq 0: used idx [0-9]+ is [0-9]+ entries ahead with [0-9]+ in flight: broken$' \
	'^blk: mode=arena the device broke its queue \(-5\): stopped$' \
	'^blk: mode=arena [0-9]+ requests, 0 errors, 0 busy retries, 0 bad lengths, 0 bad status bytes, [1-9][0-9]* abandoned, 0 bad used entries$' \
	"$fault_exit"
reads_ok direct bounce/sluice arena # names: chosen ($three)
host_checks
verify 0,1 2

# --- nothing completes after 16 requests: the read stops at the deadline, the 16
# in flight are taken back after the reset.
lying_boot never-complete never-complete 2 16 6 120 1 "$three"
lie_told 2
expect "$BOOT_LOG" '^blk: mode=bounce/sluice the device completed nothing in 2000 ms: stopped$' \
	'^blk: mode=bounce/sluice 16 requests, 0 errors, 0 busy retries, 0 bad lengths, 0 bad status bytes, 16 abandoned, 0 bad used entries$' \
	"$fault_exit"
reads_ok direct arena
host_checks
verify 0,1,2

# --- as never-complete, but at the reset the device fills the 16 held buffers and
# publishes a correct-looking completion for each before QEMU finishes the reset,
# and writes the buffers again when the next session starts: none of those
# completions is taken (still 16 completed, 16 abandoned), and nothing of the
# late data reaches another mode's reads or the disk.
lying_boot write-after-reset write-after-reset 2 16 6 120 1 "$three"
lie_told 2
[ "$(grep -c '"what":"late completion at reset"' "$VLOG")" -eq 16 ] ||
	e2e_fail "the back-end did not publish 16 late completions"
[ "$(grep -c '"ev":"scribble"' "$VLOG")" -eq 32 ] || e2e_fail "the back-end did not write 2 x 16 buffers late"
expect "$BOOT_LOG" '^blk: mode=bounce/sluice the device completed nothing in 2000 ms: stopped$' \
	'^blk: mode=bounce/sluice 16 requests, 0 errors, 0 busy retries, 0 bad lengths, 0 bad status bytes, 16 abandoned, 0 bad used entries$' \
	"$fault_exit"
reject "$BOOT_LOG" 'failed \(-'
reads_ok direct arena
host_checks
verify 0,1,2

# --- the reset never ends: QEMU waits for the back-end's answer inside the guest's
# status write, so the guest stops dead after saying why it resets; no guest
# deadline can help, only the host's timeout ends the run (124).
end_hang_after_reset "$E2E_LOGDIR/lying-hang-reset.vhost.log" "$sockdir/hang-reset.sock" &
watcher_pid=$!
lying_boot hang-reset hang-reset 2 16 124 300 1 "$three"
wait "$watcher_pid"
watcher_pid=""
grep -q '"what":"GET_VRING_BASE never answered"' "$VLOG" || e2e_fail "the back-end answered the reset"
expect "$BOOT_LOG" '^blk: mode=bounce/sluice the device completed nothing in 2000 ms: stopped$'
[ "$(grep -E '^blk: ' "$BOOT_LOG" | tail -1)" = "blk: mode=bounce/sluice the device completed nothing in 2000 ms: stopped" ] ||
	e2e_fail "the guest went on after a reset that never ended"
reject "$BOOT_LOG" '^sluice: .*exit'
host_checks bounce/sluice

echo "every lie reported or harmless; the data of honest sessions intact; nothing private disclosed"
