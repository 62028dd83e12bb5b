/*
 * craft.h - hostile inputs, each built to break one limit of a reader:
 * sizes that lie, ids that jump, references that fan out.  Used by the
 * unit tests (tests/unit/test_hostile.c) and by build/craft, which
 * writes them as files for tests/cli/limits.sh and the fuzz seeds.
 *
 * Each function appends the input to `out`; the .etl ones start from
 * `hdr`, a first buffer holding a trace header (512 bytes of
 * testdata/sample.etl).  Returns 0, or -1 if out of memory.
 */
#ifndef CRAFT_H
#define CRAFT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "base/buf.h"
#include "etl/lzxpress.h"
#include "stream/stream.h"

#define CRAFT_HDR_LEN	512	/* the header buffer of sample.etl */
#define CRAFT_BUF_HDR	0x48	/* an ETW buffer header */

static inline void
craft_le32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/*
 * The last buffer, uncompressed and cut short by the end of the file,
 * with a fill size of `fill` (below its 0x48-byte header) and a WNODE
 * block claiming 2 GiB: `filled - header` wrapped and the event walk
 * went on through the address space.
 */
static inline int
craft_etl_truncated_fill(struct buf *out, const unsigned char *hdr,
    uint32_t fill)
{
	unsigned char *p;

	buf_put(out, hdr, CRAFT_HDR_LEN);
	if ((p = buf_reserve(out, 0x100)) == NULL)
		return -1;
	memset(p, 0, 0x100);
	craft_le32(p, 0x10000);			/* BufferSize: past the end */
	craft_le32(p + 4, fill);
	craft_le32(p + 0x30, fill);
	craft_le32(p + CRAFT_BUF_HDR, 0x7fffff00);
	out->len += 0x100;
	return 0;
}

/*
 * `n` compressed buffers of a few dozen bytes each claiming 64 MiB of
 * events, all starting at one time: the merge held n times 64 MiB and
 * spent a quarter second on each.
 */
static inline int
craft_etl_compressed_claims(struct buf *out, const unsigned char *hdr, int n)
{
	const size_t area = (64u << 20) - CRAFT_BUF_HDR;
	size_t zcap = lzxpress_bound(area);
	unsigned char *events = calloc(1, area), *z = malloc(zcap), *p;
	long zlen = -1;
	int i;

	if (events == NULL || z == NULL)
		goto done;
	/* One PERFINFO event at time 1000, then the end marker. */
	craft_le32(events, 0xc0110000);
	events[4] = 0x10;
	craft_le32(events + 8, 1000);
	craft_le32(events + 16, 0xffffffff);
	if ((zlen = lzxpress_compress(events, area, z, zcap)) < 0)
		goto done;
	buf_put(out, hdr, CRAFT_HDR_LEN);
	for (i = 0; i < n; i++) {
		if ((p = buf_reserve(out, CRAFT_BUF_HDR + zlen)) == NULL) {
			zlen = -1;
			goto done;
		}
		memset(p, 0, CRAFT_BUF_HDR);
		craft_le32(p, CRAFT_BUF_HDR + (uint32_t)zlen);
		craft_le32(p + 4, 64u << 20);
		craft_le32(p + 0x30, 64u << 20);
		p[0x34] = 0x40;			/* compressed */
		p[0x28] = (unsigned char)i;	/* processor */
		memcpy(p + CRAFT_BUF_HDR, z, (size_t)zlen);
		out->len += CRAFT_BUF_HDR + zlen;
	}
done:
	free(events);
	free(z);
	return zlen < 0 || out->oom ? -1 : 0;
}

/*
 * A WNODE block of 304 KiB in a buffer of 320 KiB: the event was too
 * large for a stream record, and etlcat blamed its output ("write
 * error").
 */
static inline int
craft_etl_big_event(struct buf *out, const unsigned char *hdr)
{
	const uint32_t size = 0x50000, event = 0x4c000;
	unsigned char *p;

	buf_put(out, hdr, CRAFT_HDR_LEN);
	if ((p = buf_reserve(out, size)) == NULL)
		return -1;
	memset(p, 0, size);
	craft_le32(p, size);
	craft_le32(p + 4, size);
	craft_le32(p + 0x30, CRAFT_BUF_HDR + event);
	craft_le32(p + CRAFT_BUF_HDR, event);
	out->len += size;
	return 0;
}

/*
 * The trace header event of an 8-byte-pointer trace with a payload of
 * 0x110 bytes, too short for its layout, at the very end of the file:
 * its last fields were read from past the end.
 */
static inline int
craft_etl_short_header(struct buf *out, const unsigned char *hdr)
{
	const uint32_t filled = CRAFT_BUF_HDR + 0x20 + 0x110;
	unsigned char *p;

	if ((p = buf_reserve(out, filled)) == NULL)
		return -1;
	memcpy(p, hdr, filled);
	craft_le32(p + 4, filled);
	craft_le32(p + 0x30, filled);
	p[CRAFT_BUF_HDR + 4] = (0x20 + 0x110) & 0xff;	/* the event's size */
	p[CRAFT_BUF_HDR + 5] = (0x20 + 0x110) >> 8;
	out->len += filled;
	return 0;
}

/* A stream writer into memory: what it wrote is appended to `out`. */
static inline int
craft_stream_finish(struct buf *out, FILE *fp, struct stream_writer *w)
{
	long n;
	unsigned char *p;

	if (stream_writer_close(w) != 0 || (n = ftell(fp)) < 0)
		return -1;
	rewind(fp);
	if ((p = buf_reserve(out, (size_t)n)) == NULL ||
	    fread(p, 1, (size_t)n, fp) != (size_t)n)
		return -1;
	out->len += (size_t)n;
	return fclose(fp);
}

/* A stream of a few dozen bytes defining process 4294967280. */
static inline int
craft_stream_big_id(struct buf *out)
{
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 19) : NULL;
	struct stream_process p = { .id = 0xfffffff0u, .pid = 4 };

	if (w == NULL || stream_write_header(w, "craft") != 0 ||
	    stream_write_process(w, &p) != 0)
		return -1;
	return craft_stream_finish(out, fp, w);
}

/*
 * One section of `n` definitions of one process, each kept until the
 * next HEADER: a few kilobytes compressed, `n` times 100 bytes held.
 */
static inline int
craft_stream_many_defs(struct buf *out, long n)
{
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 19) : NULL;
	struct stream_process p = { .id = 1, .pid = 4, .name = "a" };
	long i;

	if (w == NULL || stream_write_header(w, "craft") != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (stream_write_process(w, &p) != 0)
			return -1;
	return craft_stream_finish(out, fp, w);
}

/*
 * 64 stacks, each joining the next one twice (as head and as next), and
 * a sample using the first: collecting its frames visited 2^64 parts.
 */
static inline int
craft_stream_stack_fanout(struct buf *out)
{
	FILE *fp = tmpfile();
	struct stream_writer *w = fp ? stream_writer_new(fp, 19) : NULL;
	struct stream_stack st = { 0 };
	struct stream_event ev = { 0 };
	uint64_t frame = 0x1000;
	uint32_t i;

	if (w == NULL || stream_write_header(w, "craft") != 0)
		return -1;
	ev.h.kind = EV_SAMPLE;
	ev.h.stack = 1;
	if (stream_write_event(w, &ev) != 0)
		return -1;
	for (i = 1; i <= 64; i++) {
		st.id = i;
		st.head = st.next = i < 64 ? i + 1 : 0;
		st.nframes = 1;
		st.frames = &frame;
		if (stream_write_stack(w, &st) != 0)
			return -1;
	}
	return craft_stream_finish(out, fp, w);
}

/* Appends one record of `type` with `body` to a frame being built. */
static inline void
craft_record(struct buf *frame, unsigned type, const void *body, size_t len)
{
	buf_put_u32(frame, (uint32_t)(type | len << 8));
	buf_put(frame, body, len);
}

/* A HEADER, then STRING records with the ids and texts given. */
static inline int
craft_stream_strings(struct buf *out, const uint32_t *ids,
    const char *const *texts, int n)
{
	struct buf frame = { 0 }, body = { 0 };
	size_t bound;
	unsigned char *p;
	int i;

	buf_put(&body, STREAM_MAGIC, sizeof(STREAM_MAGIC));
	buf_put_u16(&body, STREAM_VERSION_MAJOR);
	buf_put_u16(&body, STREAM_VERSION_MINOR);
	buf_put_str(&body, "craft");
	craft_record(&frame, REC_HEADER, body.data, body.len);
	for (i = 0; i < n; i++) {
		body.len = 0;
		buf_put_var(&body, ids[i]);
		buf_put_str(&body, texts[i]);
		craft_record(&frame, REC_STRING, body.data, body.len);
	}
	bound = ZSTD_compressBound(frame.len);
	if (frame.oom || body.oom || (p = buf_reserve(out, bound)) == NULL)
		return -1;
	bound = ZSTD_compress(p, bound, frame.data, frame.len, 1);
	buf_release(&frame);
	buf_release(&body);
	if (ZSTD_isError(bound))
		return -1;
	out->len += bound;
	return 0;
}

/* ---- rustc self-profiles (format 9) ---- */

#define CRAFT_CONCRETE	100000003ULL

struct craft_profile {
	struct buf data, events, index;
};

static inline void
craft_profile_init(struct craft_profile *pf)
{
	memset(pf, 0, sizeof(*pf));
	buf_put(&pf->data, "MMSD\x09\0\0\0", 8);
	buf_put(&pf->events, "MMES\x09\0\0\0", 8);
	buf_put(&pf->index, "MMSI\x09\0\0\0", 8);
}

/* A string of text `s`, then `nrefs` references to `ref`. */
static inline uint64_t
craft_profile_string(struct craft_profile *pf, const char *s, uint64_t ref,
    int nrefs)
{
	uint64_t id = pf->data.len + CRAFT_CONCRETE;
	int i;

	buf_put(&pf->data, s, strlen(s));
	for (i = 0; i < nrefs; i++) {
		buf_put_u8(&pf->data, 0xfe);
		buf_put_u64(&pf->data, ref);
	}
	buf_put_u8(&pf->data, 0xff);
	return id;
}

/* The metadata string of a rustc process, under its virtual id. */
static inline void
craft_profile_metadata(struct craft_profile *pf)
{
	static const char json[] = "{ \"start_time\": 1795245443326890017, "
	    "\"process_id\": 7, \"cmd\": \"rustc --crate-name x x.rs \", "
	    "\"counter\": { \"name\": \"wall-time\" } }";
	uint64_t meta = craft_profile_string(pf, json, 0, 0);

	buf_put_u64(&pf->index, 100000001);	/* the metadata's id */
	buf_put_u64(&pf->index, meta - CRAFT_CONCRETE);
}

static inline void
craft_profile_interval(struct craft_profile *pf, uint64_t kind, uint64_t id,
    uint32_t start, uint32_t end)
{
	buf_put_u64(&pf->events, kind);
	buf_put_u64(&pf->events, id);
	buf_put_u32(&pf->events, 1);		/* thread */
	buf_put_u32(&pf->events, start);
	buf_put_u32(&pf->events, end);
	buf_put_u32(&pf->events, 0);
}

/* The file: header, then the two streams as one page each. */
static inline int
craft_profile_file(struct craft_profile *pf, struct buf *out)
{
	buf_put(out, "MMPD\x09\0\0\0", 8);
	buf_put_u8(out, 0);
	buf_put_u32(out, (uint32_t)pf->events.len);
	buf_put(out, pf->events.data, pf->events.len);
	buf_put_u8(out, 1);
	buf_put_u32(out, (uint32_t)pf->data.len);
	buf_put(out, pf->data.data, pf->data.len);
	buf_put_u8(out, 2);
	buf_put_u32(out, (uint32_t)pf->index.len);
	buf_put(out, pf->index.data, pf->index.len);
	buf_release(&pf->data);
	buf_release(&pf->events);
	buf_release(&pf->index);
	return out->oom ? -1 : 0;
}

/*
 * A small, valid profile: metadata, kinds, a label with arguments built
 * from references, intervals, an instant and an integer event (a seed
 * that mutates faster than a real profile).
 */
static inline int
craft_mmprof_small(struct buf *out)
{
	struct craft_profile pf;
	uint64_t query, hit, size, arg, label;
	unsigned char *p;

	craft_profile_init(&pf);
	craft_profile_metadata(&pf);
	query = craft_profile_string(&pf, "Query", 0, 0);
	hit = craft_profile_string(&pf, "QueryCacheHit", 0, 0);
	size = craft_profile_string(&pf, "ArtifactSize", 0, 0);
	arg = craft_profile_string(&pf, "core::fmt", 0, 0);
	label = craft_profile_string(&pf, "typeck\x1e", arg, 1);
	craft_profile_interval(&pf, query, label, 10, 20);
	craft_profile_interval(&pf, query, arg, 5, 30);
	craft_profile_interval(&pf, hit, label, 25, 0);
	if ((p = buf_reserve(&pf.events, 0)) != NULL) {
		craft_le32(p - 8, 0xffffffff);	/* an instant */
		craft_le32(p - 4, 0xffff);
	}
	craft_profile_interval(&pf, size, label, 4096, 0);
	if ((p = buf_reserve(&pf.events, 0)) != NULL) {
		craft_le32(p - 8, 0xfffffffe);	/* an integer */
		craft_le32(p - 4, 0xffff);
	}
	return craft_profile_file(&pf, out);
}

/*
 * Good labels with bad keys: one names a string id that has no entry,
 * one holds a control byte.  A view of labels does not read the keys.
 */
static inline int
craft_mmprof_bad_keys(struct buf *out)
{
	struct craft_profile pf;
	uint64_t query, bad, unknown, ctl;

	craft_profile_init(&pf);
	craft_profile_metadata(&pf);
	query = craft_profile_string(&pf, "Query", 0, 0);
	bad = craft_profile_string(&pf, "key\x01", 0, 0);
	unknown = craft_profile_string(&pf, "typeck\x1e", 77777, 1);
	ctl = craft_profile_string(&pf, "typeck\x1e", bad, 1);
	craft_profile_interval(&pf, query, unknown, 10, 20);
	craft_profile_interval(&pf, query, ctl, 30, 45);
	return craft_profile_file(&pf, out);
}

/* An event whose kind string is empty. */
static inline int
craft_mmprof_empty_kind(struct buf *out)
{
	struct craft_profile pf;
	uint64_t kind, label;

	craft_profile_init(&pf);
	kind = craft_profile_string(&pf, "", 0, 0);
	label = craft_profile_string(&pf, "typeck", 0, 0);
	craft_profile_interval(&pf, kind, label, 10, 20);
	return craft_profile_file(&pf, out);
}

/*
 * A string table whose references fan out 16 ways, 5 levels deep, and
 * `n` events each naming a string of its own that refers to the top:
 * every event expanded a million references afresh.
 */
static inline int
craft_mmprof_deep_refs(struct buf *out, int n)
{
	struct craft_profile pf;
	uint64_t kind, s;
	int i;

	craft_profile_init(&pf);
	kind = craft_profile_string(&pf, "Query", 0, 0);
	s = craft_profile_string(&pf, "", 0, 0);
	for (i = 0; i < 5; i++)
		s = craft_profile_string(&pf, "", s, 16);
	for (i = 0; i < n; i++)
		craft_profile_interval(&pf, kind,
		    craft_profile_string(&pf, "q", s, 1), i, i + 1);
	return craft_profile_file(&pf, out);
}

/*
 * A string table whose expansion is 256 KiB (a 1000-byte literal, 16
 * times, 16 times) under each of `n` events: 512 MiB of text from a
 * 64 KiB file, until the file's budget is spent.
 */
static inline int
craft_mmprof_wide_refs(struct buf *out, int n)
{
	struct craft_profile pf;
	char leaf[1001];
	uint64_t kind, s;
	int i;

	memset(leaf, 'x', 1000);
	leaf[1000] = '\0';
	craft_profile_init(&pf);
	kind = craft_profile_string(&pf, "Query", 0, 0);
	s = craft_profile_string(&pf, leaf, 0, 0);
	s = craft_profile_string(&pf, "", s, 16);
	s = craft_profile_string(&pf, "", s, 16);
	for (i = 0; i < n; i++)
		craft_profile_interval(&pf, kind,
		    craft_profile_string(&pf, "q", s, 1), i, i + 1);
	return craft_profile_file(&pf, out);
}

#endif
