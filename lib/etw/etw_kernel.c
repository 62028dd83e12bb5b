/*
 * etw_kernel.c - the kernel payload layouts of etl-format.md section 5 and
 * the KernelTraceControl layouts of section 6.
 *
 * Layouts are sequential with no padding; "P" is the event's pointer
 * size.  Payloads may be longer than the layout of their version (newer
 * kernels append fields), so only a shortfall is an error.
 */
#include <string.h>

#include "base/buf.h"
#include "stream/stream.h"
#include "base/utf.h"
#include "etw_kernel.h"

/* A bounds-checked view of one payload. */
struct payload {
	const unsigned char *p;
	size_t len;
	int ptr;		/* pointer size */
	int short_read;		/* a field lay past the end */
};

uint64_t
etw_ptr(const unsigned char *p, int ptr_size)
{
	return ptr_size == 8 ? le64(p) : le32(p);
}

int
etw_kernel_address(uint64_t addr, int ptr_size)
{
	return ptr_size == 8 ? addr >= 0xffff800000000000ULL :
	    addr >= 0x80000000ULL;
}

static uint32_t
u32_at(struct payload *pl, size_t off)
{
	if (off + 4 > pl->len) {
		pl->short_read = 1;
		return 0;
	}
	return le32(pl->p + off);
}

static uint64_t
u64_at(struct payload *pl, size_t off)
{
	if (off + 8 > pl->len) {
		pl->short_read = 1;
		return 0;
	}
	return le64(pl->p + off);
}

static uint64_t
ptr_at(struct payload *pl, size_t off)
{
	return pl->ptr == 8 ? u64_at(pl, off) : u32_at(pl, off);
}

static unsigned
u8_at(struct payload *pl, size_t off)
{
	if (off + 1 > pl->len) {
		pl->short_read = 1;
		return 0;
	}
	return pl->p[off];
}

/* Scratch memory for converted strings. */
struct scratch {
	char *p;
	size_t left;
};

/*
 * Converts the string at `off` with `conv` (utf16_to_utf8 or
 * ansi_to_utf8) into the scratch; *next gets the offset after it.
 */
static const char *
string_at(struct payload *pl, size_t off, struct scratch *s, size_t *next,
    size_t (*conv)(const unsigned char *, size_t, char *, size_t, size_t *))
{
	const char *out = s->p;
	size_t used = 0, n;

	if (off > pl->len || s->left == 0) {
		if (next != NULL)
			*next = pl->len;
		return "";
	}
	n = conv(pl->p + off, pl->len - off, s->p, s->left, &used);
	s->p += n + 1;
	s->left -= n + 1;
	if (next != NULL)
		*next = off + used;
	return out;
}

static const char *
utf16_at(struct payload *pl, size_t off, struct scratch *s, size_t *next)
{
	return string_at(pl, off, s, next, utf16_to_utf8);
}

static const char *
ansi_at(struct payload *pl, size_t off, struct scratch *s, size_t *next)
{
	return string_at(pl, off, s, next, ansi_to_utf8);
}

/*
 * The size of the UserSID field at `o` (5.2.1): 4 bytes when it is empty,
 * else a TOKEN_USER padded to two pointers and a SID.
 */
static size_t
sid_size(struct payload *pl, size_t o)
{
	size_t sid = o + 2 * (size_t)pl->ptr;
	unsigned count;

	if (u32_at(pl, o) == 0 && (sid + 2 > pl->len || pl->p[sid] != 1 ||
	    pl->p[sid + 1] > 15))
		return 4;
	count = u8_at(pl, sid + 1);
	return 2 * (size_t)pl->ptr + 8 + 4 * (size_t)count;
}

static void
decode_process(struct payload *pl, unsigned version, struct etw_kernel *k,
    struct scratch *s)
{
	size_t P = (size_t)pl->ptr, sid, name_end;

	k->type = KREC_PROCESS;
	if (version == 0) {
		k->u.process.pid = (uint32_t)ptr_at(pl, 0);
		k->u.process.ppid = (uint32_t)ptr_at(pl, P);
		sid = 2 * P;
	} else {
		k->u.process.key = ptr_at(pl, 0);
		k->u.process.pid = u32_at(pl, P);
		k->u.process.ppid = u32_at(pl, P + 4);
		k->u.process.session = u32_at(pl, P + 8);
		k->u.process.exit_status = (int32_t)u32_at(pl, P + 12);
		if (version >= 3)
			k->u.process.dtb = ptr_at(pl, P + 16);
		if (version >= 4)
			k->u.process.flags = u32_at(pl, 2 * P + 16);
		sid = version >= 4 ? 2 * P + 20 : version == 3 ? 2 * P + 16 :
		    P + 16;
	}
	if (pl->short_read)
		return;
	sid += sid_size(pl, sid);
	k->u.process.name = ansi_at(pl, sid, s, &name_end);
	k->u.process.cmdline = version >= 2 ? utf16_at(pl, name_end, s, NULL) :
	    "";
}

static void
decode_thread(struct payload *pl, unsigned version, struct etw_kernel *k,
    struct scratch *s)
{
	size_t P = (size_t)pl->ptr, name_at = 16 + 7 * P;

	k->type = KREC_THREAD;
	if (version == 0) {
		k->u.thread.tid = u32_at(pl, 0);
		k->u.thread.pid = u32_at(pl, 4);
		return;
	}
	k->u.thread.pid = u32_at(pl, 0);
	k->u.thread.tid = u32_at(pl, 4);
	k->u.thread.name = "";
	if (pl->len >= 8 + 6 * P) {
		/* The slot of StartAddr holds the affinity from v3 on. */
		if (version >= 3)
			k->u.thread.affinity = ptr_at(pl, 8 + 4 * P);
		else
			k->u.thread.start_addr = ptr_at(pl, 8 + 4 * P);
		k->u.thread.win32_start = ptr_at(pl, 8 + 5 * P);
	}
	if (version >= 2 && pl->len >= 8 + 7 * P)
		k->u.thread.teb = ptr_at(pl, 8 + 6 * P);
	/* Win10 1903 appends the name to v3 without a new version. */
	if (version >= 3 && pl->len > name_at + 1)
		k->u.thread.name = utf16_at(pl, name_at, s, NULL);
}

static void
decode_image(struct payload *pl, unsigned version, struct etw_kernel *k,
    struct scratch *s)
{
	size_t P = (size_t)pl->ptr, name_at;

	k->type = KREC_IMAGE;
	k->u.image.base = ptr_at(pl, 0);
	if (version == 0) {
		k->u.image.size = u32_at(pl, P);
		name_at = P + 4;
	} else {
		k->u.image.size = ptr_at(pl, P);
		k->u.image.pid = u32_at(pl, 2 * P);
		name_at = 2 * P + 4;
	}
	if (version >= 2) {
		k->u.image.checksum = u32_at(pl, 2 * P + 4);
		k->u.image.timestamp = u32_at(pl, 2 * P + 8);
		k->u.image.default_base = ptr_at(pl, 2 * P + 16);
		name_at = 3 * P + 32;
	}
	if (!pl->short_read)
		k->u.image.path = utf16_at(pl, name_at, s, NULL);
}

static void
decode_sample(struct payload *pl, struct etw_kernel *k)
{
	size_t P = (size_t)pl->ptr;

	k->type = KREC_SAMPLE;
	k->u.sample.ip = ptr_at(pl, 0);
	k->u.sample.tid = u32_at(pl, P);
	k->u.sample.count = 1;
	if (pl->len >= P + 8) {
		k->u.sample.count = le16(pl->p + P + 4);
		k->u.sample.flags = pl->p[P + 6];
		k->u.sample.rank = pl->p[P + 7];
	}
}

/* SetInterval, CollectionStart/End (5.5): the profile interval, 100 ns. */
static void
decode_interval(struct payload *pl, struct etw_kernel *k, struct scratch *s)
{
	k->type = KREC_INTERVAL;
	k->u.interval.source = u32_at(pl, 0);
	k->u.interval.new_interval = u32_at(pl, 4);
	k->u.interval.old_interval = u32_at(pl, 8);
	k->u.interval.name = pl->len > 12 ? utf16_at(pl, 12, s, NULL) : "";
}

static void
decode_stackwalk(struct payload *pl, unsigned type, struct etw_kernel *k)
{
	size_t P = (size_t)pl->ptr;

	switch (type) {
	case 0x20:	/* Stack */
		k->type = KREC_STACK;
		k->u.stack.event_ts = u64_at(pl, 0);
		k->u.stack.pid = u32_at(pl, 8);
		k->u.stack.tid = u32_at(pl, 12);
		if (!pl->short_read) {
			k->u.stack.frames = pl->p + 16;
			k->u.stack.nframes = (uint32_t)((pl->len - 16) / P);
		}
		break;
	case 0x25:	/* StackKeyKernel */
	case 0x26:	/* StackKeyUser */
		k->type = KREC_STACK_KEY;
		k->u.stack.event_ts = u64_at(pl, 0);
		k->u.stack.pid = u32_at(pl, 8);
		k->u.stack.tid = u32_at(pl, 12);
		k->u.stack.key = ptr_at(pl, 16);
		k->u.stack.user = type == 0x26;
		break;
	case 0x22:	/* KeyCreate */
	case 0x23:	/* KeyDelete */
	case 0x24:	/* KeyRundown */
		k->type = KREC_KEY_DEF;
		k->u.stack.key = ptr_at(pl, 0);
		if (!pl->short_read) {
			k->u.stack.frames = pl->p + P;
			k->u.stack.nframes = (uint32_t)(pl->len / P - 1);
		}
		break;
	}
}

static void
decode_vmem(struct payload *pl, unsigned type, struct etw_kernel *k)
{
	size_t P = (size_t)pl->ptr;

	k->type = KREC_VMEM;
	k->op = type == 0x62 ? EVOP_ALLOC : type == 0x63 ? EVOP_FREE :
	    type == 0x80 ? EVOP_DCSTART : EVOP_DCEND;
	k->u.vmem.base = ptr_at(pl, 0);
	k->u.vmem.size = ptr_at(pl, P);
	k->u.vmem.pid = u32_at(pl, 2 * P);
	k->u.vmem.flags = u32_at(pl, 2 * P + 4);
	if (type >= 0x80)	/* rundown: + CommitSizeInBytes (4.1) */
		k->u.vmem.commit = ptr_at(pl, 2 * P + 8);
}

static void
decode_heap(struct payload *pl, unsigned type, struct etw_kernel *k)
{
	size_t P = (size_t)pl->ptr;

	k->type = KREC_HEAP;
	k->u.heap.heap = ptr_at(pl, 0);
	switch (type) {
	case 0x20:
		k->op = EVOP_CREATE;
		k->u.heap.flags = u32_at(pl, P);
		break;
	case 0x21:
		k->op = EVOP_ALLOC;
		k->u.heap.size = ptr_at(pl, P);
		k->u.heap.address = ptr_at(pl, 2 * P);
		k->u.heap.source = u32_at(pl, 3 * P);
		break;
	case 0x22:
		k->op = EVOP_REALLOC;
		k->u.heap.address = ptr_at(pl, P);
		k->u.heap.old_address = ptr_at(pl, 2 * P);
		k->u.heap.size = ptr_at(pl, 3 * P);
		k->u.heap.old_size = ptr_at(pl, 4 * P);
		k->u.heap.source = u32_at(pl, 5 * P);
		break;
	case 0x23:
		k->op = EVOP_DESTROY;
		break;
	case 0x24:
		k->op = EVOP_FREE;
		k->u.heap.address = ptr_at(pl, P);
		k->u.heap.source = u32_at(pl, 2 * P);
		break;
	}
}

/*
 * CSwitch v1 to v5 (etl-events-2.md 3.1): 20 bytes in v1, 24 from v2,
 * 28 in v5.  Byte 13 is the wait mode in bit 0 in every version; from v3
 * its bits 1-6 are the QoS levels.
 */
static void
decode_cswitch(struct payload *pl, unsigned version, struct etw_kernel *k)
{
	k->type = KREC_CSWITCH;
	k->u.cswitch.version = (uint8_t)version;
	k->u.cswitch.new_tid = u32_at(pl, 0);
	k->u.cswitch.old_tid = u32_at(pl, 4);
	k->u.cswitch.new_priority = (int8_t)u8_at(pl, 8);
	k->u.cswitch.old_priority = (int8_t)u8_at(pl, 9);
	k->u.cswitch.byte10 = (uint8_t)u8_at(pl, 10);
	k->u.cswitch.byte11 = (uint8_t)u8_at(pl, 11);
	k->u.cswitch.old_wait_reason = (uint8_t)u8_at(pl, 12);
	k->u.cswitch.flags = (uint8_t)u8_at(pl, 13);
	k->u.cswitch.old_wait_mode = k->u.cswitch.flags & 1;
	k->u.cswitch.old_state = (uint8_t)u8_at(pl, 14);
	k->u.cswitch.ideal_cpu = (uint8_t)u8_at(pl, 15);
	k->u.cswitch.new_wait_time = u32_at(pl, 16);
	if (version >= 2 && pl->len >= 24) {
		k->u.cswitch.has_quantum = 1;
		k->u.cswitch.remaining_quantum = (int32_t)u32_at(pl, 20);
	}
	if (version >= 5 && pl->len >= 25) {
		k->u.cswitch.has_extra = 1;
		k->u.cswitch.extra_flags = (uint8_t)u8_at(pl, 24);
	}
}

static void
decode_ready(struct payload *pl, struct etw_kernel *k)
{
	k->type = KREC_READY;
	k->u.ready.tid = u32_at(pl, 0);
	k->u.ready.reason = (int8_t)u8_at(pl, 4);
	k->u.ready.increment = (int8_t)u8_at(pl, 5);
	k->u.ready.flags = (uint8_t)u8_at(pl, 6);
}

static void
decode_cpu_config(struct payload *pl, struct etw_kernel *k, struct scratch *s)
{
	k->type = KREC_CPU_CONFIG;
	k->u.cpu.mhz = u32_at(pl, 0);
	k->u.cpu.cpus = u32_at(pl, 4);
	k->u.cpu.memory_mb = u32_at(pl, 8);
	k->u.cpu.page_size = u32_at(pl, 12);
	/* ComputerName is a fixed 256-character field at 20. */
	if (!pl->short_read && pl->len >= 20)
		k->u.cpu.computer = utf16_at(&(struct payload){ pl->p,
		    pl->len < 20 + 512 ? pl->len : 20 + 512, pl->ptr, 0 }, 20,
		    s, NULL);
}

/* KernelTraceControl's ImageID task (section 6). */
static void
decode_image_id(struct payload *pl, unsigned opcode, struct etw_kernel *k,
    struct scratch *s)
{
	size_t P = (size_t)pl->ptr;

	switch (opcode) {
	case 0x00:
		k->type = KREC_IMAGE_ID;
		k->u.image_id.base = ptr_at(pl, 0);
		k->u.image_id.size = ptr_at(pl, P);
		k->u.image_id.pid = u32_at(pl, 2 * P);
		k->u.image_id.timestamp = u32_at(pl, 2 * P + 4);
		if (!pl->short_read)
			k->u.image_id.original_name = utf16_at(pl, 2 * P + 8, s,
			    NULL);
		break;
	case 0x24:
	case 0x25:
		k->type = KREC_DBG_ID;
		k->u.dbg_id.base = ptr_at(pl, 0);
		k->u.dbg_id.pid = u32_at(pl, P);
		k->u.dbg_id.age = u32_at(pl, P + 20);
		if (!pl->short_read) {
			k->u.dbg_id.guid = pl->p + P + 4;
			k->u.dbg_id.pdb_name = ansi_at(pl, P + 24, s, NULL);
		}
		break;
	}
}

static const unsigned char image_id_guid[16] = {	/* b3e675d7-2554-... */
	0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde
};

static const unsigned char lost_event_guid[16] = {	/* 6a399ae0-4bc6-... */
	0xe0, 0x9a, 0x39, 0x6a, 0xc6, 0x4b, 0xe9, 0x4d,
	0x87, 0x0b, 0x36, 0x57, 0xf8, 0x94, 0x7e, 0x7e
};

static void
decode_hook(struct payload *pl, int hook, unsigned version,
    struct etw_kernel *k, struct scratch *s)
{
	unsigned type = hook & 0xff;

	switch (hook >> 8) {
	case 0x00:
		if (type == 0x00)
			k->type = KREC_TRACE_HEADER;
		break;
	case 0x02:
		if (type == 0x62 || type == 0x63 || type == 0x80 ||
		    type == 0x81)
			decode_vmem(pl, type, k);
		break;
	case 0x03:
		if ((type >= 1 && type <= 4) || type == 0x27) {
			k->op = type == 0x27 ? EVOP_DEFUNCT : type;
			decode_process(pl, version, k, s);
		} else if (type == 0x0a) {
			/* Image loads are logged under the Process group. */
			k->op = EVOP_LOAD;
			decode_image(pl, version, k, s);
		}
		break;
	case 0x05:
		if (type >= 1 && type <= 4) {
			k->op = type;
			decode_thread(pl, version, k, s);
		} else if (type == 0x24)
			decode_cswitch(pl, version, k);
		else if (type == 0x25) {
			k->type = KREC_CSWITCH_BATCH;
			k->u.batch.data = pl->p;
			k->u.batch.len = pl->len;
		} else if (type == 0x32)
			decode_ready(pl, k);
		break;
	case 0x0b:
		if (type == 0x0a)
			decode_cpu_config(pl, k, s);
		break;
	case 0x0f:
		if (type == 0x2e)
			decode_sample(pl, k);
		else if (type >= 0x48 && type <= 0x4a)
			decode_interval(pl, k, s);
		break;
	case 0x10:
		if (type >= 0x20 && type <= 0x24)
			decode_heap(pl, type, k);
		break;
	case 0x14:
		if (type == 0x0a || (type >= 2 && type <= 4)) {
			k->op = type == 0x0a ? EVOP_LOAD : type == 2 ?
			    EVOP_UNLOAD : type;
			decode_image(pl, version, k, s);
		}
		break;
	case 0x18:
		decode_stackwalk(pl, type, k);
		break;
	}
}

int
etw_kernel_decode(const struct etl_event *ev, int hook, struct etw_kernel *k,
    char *scratch, size_t cap)
{
	struct payload pl = { ev->payload, ev->payload_len, ev->ptr_size, 0 };
	struct scratch s = { scratch, cap };

	memset(k, 0, sizeof(*k));
	if (hook >= 0)
		decode_hook(&pl, hook, ev->version, k, &s);
	else if (memcmp(ev->guid, image_id_guid, 16) == 0)
		decode_image_id(&pl, ev->opcode, k, &s);
	else if (memcmp(ev->guid, lost_event_guid, 16) == 0 &&
	    ev->opcode == 32)
		k->type = KREC_LOST;
	if (pl.short_read) {
		k->type = KREC_NONE;
		return -1;
	}
	return 0;
}
