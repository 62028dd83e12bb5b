/*
 * tracelogging.h - decoding TraceLogging (self-describing) ETW events into
 * named, typed fields (etl-format.md section 7).
 *
 * A TraceLogging event carries its own schema: extended item 12 (provider
 * traits) names the provider, item 11 (event metadata) names the event and
 * lists its fields with their types, and the user data holds the values
 * packed back to back.  tl_decode() walks the schema and the payload
 * together and returns one leaf field per value.
 *
 * Nested structs and arrays are flattened, and the names say where a leaf
 * came from: struct members as "outer.inner", array elements as "name[0]",
 * "name[1]", so an array of structs gives "s[0].x", "s[1].x".
 *
 * Types: Int8..Int64 give VAL_I64; UInt8..UInt64 VAL_U64; HexInt32/64
 * and Pointer VAL_HEX; Bool32 VAL_BOOL.  On any integer OutType Hex gives
 * VAL_HEX and OutType Boolean VAL_BOOL (0 or 1); OutType String on
 * UInt8/UInt16 gives the character as VAL_STR.  Float/Double give VAL_F64;
 * every string kind VAL_STR in UTF-8 (8-bit text that is not UTF-8 is
 * read as Windows-1252, as are names); GUID VAL_GUID; FILETIME and
 * SYSTEMTIME VAL_UTC (a SYSTEMTIME that is no valid date, such as all
 * zeros, gives VAL_NULL); SID VAL_STR "S-1-5-..."; Binary, CountedBinary
 * and custom-serialised fields VAL_BYTES.
 *
 * Memory: the decoder owns everything tl_decode() returns (names, strings,
 * GUID and byte values are copied into its scratch memory), so the event
 * stays valid after the caller's buffers change, until the next tl_decode()
 * or tl_decoder_free() on the same decoder.  The scratch memory grows to the
 * largest event seen and is kept.  Decoders share nothing: use one per
 * thread.
 *
 * Hostile input is expected: every read is bounds-checked, struct nesting
 * is limited to TL_MAX_DEPTH and composed names to TL_MAX_NAME bytes.
 */
#ifndef TRACELOGGING_H
#define TRACELOGGING_H

#include <stddef.h>
#include <stdint.h>

#include "base/value.h"

#define TL_MAX_DEPTH	32	/* nested structs */
#define TL_MAX_NAME	512	/* bytes of a composed name, with NUL */

struct tl_decoder;

struct tl_field {
	const char	*name;	/* NUL-terminated UTF-8 */
	struct value	 val;
};

struct tl_event {
	const char		*provider;	/* from traits, or "" */
	const char		*name;		/* the event name */
	uint32_t		 tags;		/* 28-bit event tags */
	size_t			 nfields;
	const struct tl_field	*fields;
};

/* @return : a new decoder, or NULL if out of memory. */
struct tl_decoder *tl_decoder_new(void);

void tl_decoder_free(struct tl_decoder *);

/*
 * Decodes one event.  traits/meta are the data of extended items 12 and 11
 * (traits may be NULL), payload is the user data, ptr_size 4 or 8 (from the
 * event header type, section 3.10).  The payload must be consumed exactly.
 * @return : 0 on success; -1 if the traits, metadata or payload are
 *	malformed (or memory ran out): then tl_decoder_error() says what and
 *	at which metadata or payload offset, and *ev holds what was decoded
 *	before the error (the provider and event name if they were read, the
 *	fields before the bad one).
 */
int tl_decode(struct tl_decoder *, const unsigned char *traits,
    size_t traits_len, const unsigned char *meta, size_t meta_len,
    const unsigned char *payload, size_t payload_len, int ptr_size,
    struct tl_event *ev);

/* @return : the last tl_decode() error, "" after a success. */
const char *tl_decoder_error(const struct tl_decoder *);

#endif
