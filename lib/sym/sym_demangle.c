/*
 * sym_demangle.c - Rust legacy and v0 demangling, MSVC qualified names.
 *
 * The v0 decoder parses and prints in one pass (rust-symbols.md section
 * 3): every rule either prints its part or fails the whole name, so an
 * invalid symbol is shown raw, never as garbage.  Backrefs re-enter the
 * parser at an earlier position; the depth limit and the output limit
 * bound what a hostile name can cost.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf.h"
#include "sym_demangle.h"

#define MAX_DEPTH	300
#define MAX_BOUND	1024	/* lifetimes bound by nested binders */

/* ---- output ---------------------------------------------------------- */

struct dm {
	const char *sym;	/* after the prefix */
	size_t len, pos;	/* the mangled body is sym[0, len) */
	unsigned flags;
	int depth;
	uint64_t bound;		/* lifetimes bound by enclosing binders */
	int bad;
	struct buf *out;
};

static void
put(struct dm *d, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (d->out->len + n > SYM_DEMANGLE_MAX) {
		d->bad = 1;
		return;
	}
	buf_put(d->out, s, n);
}

static void
puts_(struct dm *d, const char *s)
{
	put(d, s, strlen(s));
}

static void
put_u64(struct dm *d, uint64_t v, int hex)
{
	char tmp[24];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = "0123456789abcdef"[v % (hex ? 16 : 10)];
		v /= hex ? 16 : 10;
	} while (v > 0);
	put(d, tmp + n, sizeof(tmp) - n);
}

static void
put_char(struct dm *d, uint32_t cp)
{
	char u[4];

	put(d, u, utf8_encode(cp, u));
}

/* ---- legacy: _ZN <len><bytes>... E ----------------------------------- */

static int
is_hex_lower(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int
is_hash(const char *s, size_t n, unsigned flags)
{
	size_t i;

	if (n < 2 || s[0] != 'h')
		return 0;
	if ((flags & SYM_DEMANGLE_HASH16) && n != 17)
		return 0;
	for (i = 1; i < n; i++)
		if (!is_hex_lower(s[i]) && !(s[i] >= 'A' && s[i] <= 'F'))
			return 0;
	return 1;
}

static const struct {
	const char *esc;
	char c;
} legacy_escapes[] = {
	{ "SP", '@' }, { "BP", '*' }, { "RF", '&' }, { "LT", '<' },
	{ "GT", '>' }, { "LP", '(' }, { "RP", ')' }, { "C", ',' },
};

/* One `$..$` escape at s[0] == '$'; @return its length, 0 if unknown. */
static size_t
legacy_escape(struct dm *d, const char *s, size_t n)
{
	const char *end = memchr(s + 1, '$', n - 1);
	size_t el, i;
	uint32_t cp = 0;

	if (end == NULL)
		return 0;
	el = (size_t)(end - s - 1);
	for (i = 0; i < sizeof(legacy_escapes) / sizeof(legacy_escapes[0]);
	    i++)
		if (strlen(legacy_escapes[i].esc) == el &&
		    memcmp(legacy_escapes[i].esc, s + 1, el) == 0) {
			put(d, &legacy_escapes[i].c, 1);
			return el + 2;
		}
	if (el < 2 || el > 7 || s[1] != 'u')
		return 0;
	for (i = 2; i <= el; i++) {
		if (!is_hex_lower(s[i]))
			return 0;
		cp = cp * 16 + (uint32_t)(s[i] <= '9' ? s[i] - '0' :
		    s[i] - 'a' + 10);
	}
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp < 0xe000))
		return 0;
	put_char(d, cp);
	return el + 2;
}

static void
legacy_element(struct dm *d, const char *s, size_t n)
{
	size_t k;

	if (n >= 2 && s[0] == '_' && s[1] == '$') {
		s++;
		n--;
	}
	while (n > 0) {
		if (s[0] == '.') {
			k = (n >= 2 && s[1] == '.') ? 2 : 1;
			puts_(d, k == 2 ? "::" : ".");
		} else if (s[0] == '$') {
			if ((k = legacy_escape(d, s, n)) == 0)
				break;
		} else {
			for (k = 0; k < n && s[k] != '$' && s[k] != '.'; k++)
				;
			put(d, s, k);
		}
		s += k;
		n -= k;
	}
	put(d, s, n);
}

/* @return the length of the legacy name (through `E`), 0 if not one. */
static size_t
legacy(struct dm *d, const char *s, size_t n)
{
	size_t pos = 0, start[256], elen[256], count = 0, i, len;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0;
	while (pos < n && s[pos] != 'E') {
		if (s[pos] < '0' || s[pos] > '9')
			return 0;
		len = 0;
		while (pos < n && s[pos] >= '0' && s[pos] <= '9') {
			if (len > (SIZE_MAX - 9) / 10)
				return 0;
			len = len * 10 + (size_t)(s[pos++] - '0');
		}
		if (len >= n - pos || count == 256)
			return 0;
		start[count] = pos;
		elen[count++] = len;
		pos += len;
	}
	if (pos >= n || count == 0)
		return 0;
	for (i = 0; i < count; i++) {
		if (i + 1 == count && !(d->flags & SYM_DEMANGLE_HASH) &&
		    is_hash(s + start[i], elen[i], d->flags))
			break;
		if (i > 0)
			puts_(d, "::");
		legacy_element(d, s + start[i], elen[i]);
	}
	return pos + 1;
}

/* ---- v0 ------------------------------------------------------------- */

static int
peek(struct dm *d)
{
	return d->pos < d->len ? (unsigned char)d->sym[d->pos] : 0;
}

static int
next(struct dm *d)
{
	if (d->pos >= d->len) {
		d->bad = 1;
		return 0;
	}
	return (unsigned char)d->sym[d->pos++];
}

static int
eat(struct dm *d, int c)
{
	if (peek(d) == c && d->pos < d->len) {
		d->pos++;
		return 1;
	}
	return 0;
}

static uint64_t
base62(struct dm *d)
{
	uint64_t x = 0;
	int c;

	if (eat(d, '_'))
		return 0;
	while (!eat(d, '_')) {
		c = next(d);
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'z')
			c = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			c = c - 'A' + 36;
		else {
			d->bad = 1;
			return 0;
		}
		if (x > (UINT64_MAX - 61) / 62) {
			d->bad = 1;
			return 0;
		}
		x = x * 62 + (uint64_t)c;
	}
	if (x == UINT64_MAX) {
		d->bad = 1;
		return 0;
	}
	return x + 1;
}

static uint64_t
opt_base62(struct dm *d, int tag)
{
	uint64_t v;

	if (!eat(d, tag))
		return 0;
	v = base62(d);
	if (v == UINT64_MAX) {
		d->bad = 1;
		return 0;
	}
	return v + 1;
}

struct ident {
	const char *ascii, *puny;
	size_t alen, plen;
};

static int
ident(struct dm *d, struct ident *id)
{
	int puny = eat(d, 'u');
	size_t len = 0;
	int c = next(d);

	memset(id, 0, sizeof(*id));
	if (c < '0' || c > '9')
		return d->bad = 1, -1;
	len = (size_t)(c - '0');
	if (len != 0)
		while ((c = peek(d)) >= '0' && c <= '9') {
			if (len > (SIZE_MAX - 9) / 10)
				return d->bad = 1, -1;
			len = len * 10 + (size_t)(c - '0');
			d->pos++;
		}
	eat(d, '_');
	if (len > d->len - d->pos)
		return d->bad = 1, -1;
	id->ascii = d->sym + d->pos;
	id->alen = len;
	d->pos += len;
	if (puny) {
		size_t i = len;

		while (i > 0 && id->ascii[i - 1] != '_')
			i--;
		id->puny = id->ascii + i;
		id->plen = len - i;
		id->alen = i > 0 ? i - 1 : 0;
		if (id->plen == 0)
			return d->bad = 1, -1;
	}
	return 0;
}

/* RFC 3492 with `_` as the delimiter (already split off). */
static int
punycode(struct dm *d, const struct ident *id)
{
	uint32_t out[128];
	size_t n_out = 0, p = 0, k2, j;
	uint64_t bias = 72, i = 0, n = 0x80, damp = 700;

	for (j = 0; j < id->alen; j++) {
		if (n_out == 128)
			return -1;
		out[n_out++] = (unsigned char)id->ascii[j];
	}
	while (p < id->plen) {
		uint64_t delta = 0, w = 1, k = 0, t, dg, len;

		for (;;) {
			int c;

			k += 36;
			t = k <= bias ? 1 : (k - bias > 26 ? 26 :
			    (k - bias < 1 ? 1 : k - bias));
			if (p >= id->plen)
				return -1;
			c = (unsigned char)id->puny[p++];
			if (c >= 'a' && c <= 'z')
				dg = (uint64_t)(c - 'a');
			else if (c >= '0' && c <= '9')
				dg = 26 + (uint64_t)(c - '0');
			else
				return -1;
			if (w != 0 && dg > UINT64_MAX / w)
				return -1;
			if (delta > UINT64_MAX - dg * w)
				return -1;
			delta += dg * w;
			if (dg < t)
				break;
			if (w > UINT64_MAX / (36 - t))
				return -1;
			w *= 36 - t;
		}
		len = n_out + 1;
		if (i > UINT64_MAX - delta)
			return -1;
		i += delta;
		if (n > UINT64_MAX - i / len)
			return -1;
		n += i / len;
		i %= len;
		if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000) ||
		    n_out == 128)
			return -1;
		memmove(out + i + 1, out + i, (n_out - i) * sizeof(out[0]));
		out[i] = (uint32_t)n;
		n_out++;
		i++;
		if (p >= id->plen)
			break;
		delta /= damp;
		damp = 2;
		delta += delta / len;
		for (k2 = 0; delta > (35 * 26) / 2; k2 += 36)
			delta /= 35;
		bias = k2 + (36 * delta) / (delta + 38);
	}
	for (j = 0; j < n_out; j++)
		put_char(d, out[j]);
	return 0;
}

static void
print_ident(struct dm *d, const struct ident *id)
{
	if (id->puny == NULL)
		put(d, id->ascii, id->alen);
	else if (punycode(d, id) != 0)
		d->bad = 1;
}

static const char *
basic_type(int c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	}
	return NULL;
}

static void print_path(struct dm *d, int in_value);
static void print_type(struct dm *d);
static void print_const(struct dm *d, int in_value);

static int
enter(struct dm *d)
{
	if (d->bad || ++d->depth > MAX_DEPTH) {
		d->bad = 1;
		return 0;
	}
	return 1;
}

/* Runs `fn` at the backref target; `B` already eaten. */
static void
backref(struct dm *d, void (*fn)(struct dm *, int), int arg)
{
	size_t at = d->pos - 1, save;
	uint64_t i = base62(d);

	if (d->bad || i >= at) {
		d->bad = 1;
		return;
	}
	save = d->pos;
	d->pos = (size_t)i;
	fn(d, arg);
	d->pos = save;
}

static void
print_lifetime(struct dm *d, uint64_t lt)
{
	uint64_t depth;

	puts_(d, "'");
	if (lt == 0) {
		puts_(d, "_");
		return;
	}
	if (lt > d->bound) {
		d->bad = 1;
		return;
	}
	depth = d->bound - lt;
	if (depth < 26) {
		char c = (char)('a' + depth);

		put(d, &c, 1);
	} else {
		puts_(d, "z");
		put_u64(d, depth - 25, 0);
	}
}

static uint64_t
binder(struct dm *d)
{
	uint64_t n = opt_base62(d, 'G'), i;

	if (n == 0 || d->bad)
		return 0;
	if (n > MAX_BOUND || d->bound + n > MAX_BOUND) {
		d->bad = 1;
		return 0;
	}
	puts_(d, "for<");
	for (i = 0; i < n; i++) {
		if (i > 0)
			puts_(d, ", ");
		d->bound++;
		print_lifetime(d, 1);
	}
	puts_(d, "> ");
	return n;
}

static void
print_generic_arg(struct dm *d)
{
	if (eat(d, 'L'))
		print_lifetime(d, base62(d));
	else if (eat(d, 'K'))
		print_const(d, 0);
	else
		print_type(d);
}

static int
generic_args(struct dm *d)
{
	int i;

	for (i = 0; !d->bad && !eat(d, 'E'); i++) {
		if (i > 0)
			puts_(d, ", ");
		print_generic_arg(d);
	}
	return i;
}

static void
print_path_arg(struct dm *d, int in_value)
{
	print_path(d, in_value);
}

static void
print_path(struct dm *d, int in_value)
{
	struct ident id;
	uint64_t dis;
	int tag, ns;

	if (!enter(d))
		return;
	tag = next(d);
	switch (tag) {
	case 'C':
		dis = opt_base62(d, 's');
		if (ident(d, &id) != 0)
			break;
		print_ident(d, &id);
		if ((d->flags & SYM_DEMANGLE_HASH) && dis != 0) {
			puts_(d, "[");
			put_u64(d, dis, 1);
			puts_(d, "]");
		}
		break;
	case 'N':
		ns = next(d);
		if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
			d->bad = 1;
			break;
		}
		print_path(d, in_value);
		dis = opt_base62(d, 's');
		if (ident(d, &id) != 0)
			break;
		if (ns >= 'A' && ns <= 'Z') {
			char c = (char)ns;

			puts_(d, "::{");
			if (ns == 'C')
				puts_(d, "closure");
			else if (ns == 'S')
				puts_(d, "shim");
			else
				put(d, &c, 1);
			if (id.alen > 0 || id.puny != NULL) {
				puts_(d, ":");
				print_ident(d, &id);
			}
			puts_(d, "#");
			put_u64(d, dis, 0);
			puts_(d, "}");
		} else if (id.alen > 0 || id.puny != NULL) {
			puts_(d, "::");
			print_ident(d, &id);
		}
		break;
	case 'M':
	case 'X':
	case 'Y':
		if (tag != 'Y') {
			/* The impl path is not printed: parse it into a
			 * scratch length we then cut off. */
			size_t mark = d->out->len;

			opt_base62(d, 's');
			print_path(d, 0);
			d->out->len = mark;
		}
		puts_(d, "<");
		print_type(d);
		if (tag != 'M') {
			puts_(d, " as ");
			print_path(d, 0);
		}
		puts_(d, ">");
		break;
	case 'I':
		print_path(d, in_value);
		if (in_value)
			puts_(d, "::");
		puts_(d, "<");
		generic_args(d);
		puts_(d, ">");
		break;
	case 'B':
		backref(d, print_path_arg, in_value);
		break;
	default:
		d->bad = 1;
	}
	d->depth--;
}

static void
print_type_arg(struct dm *d, int unused)
{
	print_type(d);
}

/* A `dyn` bound's path; @return whether it left generics open. */
static int
dyn_path(struct dm *d)
{
	int open = 0;

	if (!enter(d))
		return 0;
	if (eat(d, 'B')) {
		size_t at = d->pos - 1, save;
		uint64_t i = base62(d);

		if (d->bad || i >= at) {
			d->bad = 1;
		} else {
			save = d->pos;
			d->pos = (size_t)i;
			open = dyn_path(d);
			d->pos = save;
		}
	} else if (eat(d, 'I')) {
		print_path(d, 0);
		puts_(d, "<");
		generic_args(d);
		open = 1;
	} else
		print_path(d, 0);
	d->depth--;
	return open;
}

static void
dyn_trait(struct dm *d)
{
	int open = dyn_path(d);
	struct ident id;

	while (!d->bad && eat(d, 'p')) {
		puts_(d, open ? ", " : "<");
		open = 1;
		if (ident(d, &id) != 0)
			return;
		print_ident(d, &id);
		puts_(d, " = ");
		if (eat(d, 'K'))
			print_const(d, 0);
		else
			print_type(d);
	}
	if (open)
		puts_(d, ">");
}

static void
fn_sig(struct dm *d)
{
	uint64_t bound = binder(d);
	int unsafe_ = eat(d, 'U'), i;
	struct ident id;

	if (unsafe_)
		puts_(d, "unsafe ");
	if (eat(d, 'K')) {
		puts_(d, "extern \"");
		if (eat(d, 'C'))
			puts_(d, "C");
		else {
			size_t k;

			if (ident(d, &id) != 0)
				return;
			if (id.alen == 0 || id.puny != NULL) {
				d->bad = 1;
				return;
			}
			for (k = 0; k < id.alen; k++)
				put(d, id.ascii[k] == '_' ? "-" : id.ascii + k, 1);
		}
		puts_(d, "\" ");
	}
	puts_(d, "fn(");
	for (i = 0; !d->bad && !eat(d, 'E'); i++) {
		if (i > 0)
			puts_(d, ", ");
		print_type(d);
	}
	puts_(d, ")");
	if (!eat(d, 'u')) {
		puts_(d, " -> ");
		print_type(d);
	}
	d->bound -= bound;
}

static void
dyn_type(struct dm *d)
{
	uint64_t bound, lt;
	int i;

	puts_(d, "dyn ");
	bound = binder(d);
	for (i = 0; !d->bad && !eat(d, 'E'); i++) {
		if (i > 0)
			puts_(d, " + ");
		dyn_trait(d);
	}
	d->bound -= bound;
	if (!eat(d, 'L')) {
		d->bad = 1;
		return;
	}
	lt = base62(d);
	if (lt != 0) {
		/* "dyn for<'a> " already ends in a space. */
		if (d->out->len > 0 && d->out->data[d->out->len - 1] == ' ')
			puts_(d, "+ ");
		else
			puts_(d, " + ");
		print_lifetime(d, lt);
	}
}

/* A pattern type's pattern: a range, or several joined by `|`. */
static void
print_pattern(struct dm *d)
{
	int i;

	if (!enter(d))
		return;
	if (eat(d, 'R')) {
		print_const(d, 1);
		puts_(d, "..=");
		print_const(d, 1);
	} else if (eat(d, 'O')) {
		for (i = 0; !d->bad && !eat(d, 'E'); i++) {
			if (i > 0)
				puts_(d, " | ");
			print_pattern(d);
		}
	} else
		d->bad = 1;
	d->depth--;
}

static void
print_type(struct dm *d)
{
	const char *basic;
	int tag, i;

	if (!enter(d))
		return;
	tag = next(d);
	if ((basic = basic_type(tag)) != NULL) {
		puts_(d, basic);
		d->depth--;
		return;
	}
	switch (tag) {
	case 'R':
	case 'Q':
		puts_(d, "&");
		if (eat(d, 'L')) {
			uint64_t lt = base62(d);

			if (lt != 0) {
				print_lifetime(d, lt);
				puts_(d, " ");
			}
		}
		if (tag == 'Q')
			puts_(d, "mut ");
		print_type(d);
		break;
	case 'P':
	case 'O':
		puts_(d, tag == 'P' ? "*const " : "*mut ");
		print_type(d);
		break;
	case 'A':
	case 'S':
		puts_(d, "[");
		print_type(d);
		if (tag == 'A') {
			puts_(d, "; ");
			print_const(d, 1);
		}
		puts_(d, "]");
		break;
	case 'T':
		puts_(d, "(");
		for (i = 0; !d->bad && !eat(d, 'E'); i++) {
			if (i > 0)
				puts_(d, ", ");
			print_type(d);
		}
		puts_(d, i == 1 ? ",)" : ")");
		break;
	case 'F':
		fn_sig(d);
		break;
	case 'D':
		dyn_type(d);
		break;
	case 'B':
		backref(d, print_type_arg, 0);
		break;
	case 'W':
		print_type(d);
		puts_(d, " is ");
		print_pattern(d);
		break;
	default:
		d->pos--;
		print_path(d, 0);
	}
	d->depth--;
}

/* Hex digits up to `_`, no leading zero; @return count, -1 if bad. */
static long
hex_nibbles_any(struct dm *d, const char **start, int zeros)
{
	size_t n = 0;

	*start = d->sym + d->pos;
	while (!eat(d, '_')) {
		if (!is_hex_lower(next(d)) || d->bad)
			return d->bad = 1, -1;
		n++;
	}
	if (n > 1 && (*start)[0] == '0' && !zeros)
		return d->bad = 1, -1;
	return (long)n;
}

/* An integer: LLVM refuses leading zeros, and rustc never writes them. */
static long
hex_nibbles(struct dm *d, const char **start)
{
	return hex_nibbles_any(d, start, 0);
}

static int
hex_u64(const char *s, long n, uint64_t *v)
{
	long i;

	*v = 0;
	if (n > 16)
		return 0;
	for (i = 0; i < n; i++)
		*v = *v * 16 + (uint64_t)(s[i] <= '9' ? s[i] - '0' :
		    s[i] - 'a' + 10);
	return 1;
}

static void
print_quoted(struct dm *d, char quote, const uint32_t *cp, size_t n)
{
	size_t i;

	put(d, &quote, 1);
	for (i = 0; i < n; i++) {
		uint32_t c = cp[i];

		if ((quote == '"' && c == '\'') || (quote == '\'' && c == '"'))
			put_char(d, c);
		else if (c == '\t')
			puts_(d, "\\t");
		else if (c == '\r')
			puts_(d, "\\r");
		else if (c == '\n')
			puts_(d, "\\n");
		else if (c == '\\' || c == '\'' || c == '"') {
			puts_(d, "\\");
			put_char(d, c);
		} else if (c >= 0x20 && c < 0x7f)
			put_char(d, c);
		else if (c >= 0xa0 && !(d->flags & SYM_DEMANGLE_ESCAPE) &&
		    !(c >= 0x300 && c < 0x370) && c != 0xad &&
		    !(c >= 0xfff0 && c <= 0xffff))
			put_char(d, c);
		else {
			puts_(d, "\\u{");
			put_u64(d, c, 1);
			puts_(d, "}");
		}
	}
	put(d, &quote, 1);
}

static void
const_uint(struct dm *d, int tag)
{
	const char *s;
	long n = hex_nibbles(d, &s);
	uint64_t v;

	if (n < 0)
		return;
	if (n == 0) {
		d->bad = 1;
		return;
	}
	if (hex_u64(s, n, &v))
		put_u64(d, v, 0);
	else {
		puts_(d, "0x");
		put(d, s, (size_t)n);
	}
	if (d->flags & SYM_DEMANGLE_HASH)
		puts_(d, basic_type(tag));
}

/* One strict UTF-8 sequence; @return its length, 0 if invalid. */
static size_t
utf8_decode_one(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len, i;
	uint32_t v;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] < 0xe0)
		len = 2, v = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] < 0xf0)
		len = 3, v = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] < 0xf5)
		len = 4, v = u[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (u[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
		return 0;
	*cp = v;
	return len;
}

/* A string constant: hex bytes of UTF-8 up to `_`. */
static void
const_str(struct dm *d)
{
	const char *s;
	long n = hex_nibbles_any(d, &s, 1), i;
	char bytes[SYM_DEMANGLE_MAX / 16];
	uint32_t cps[SYM_DEMANGLE_MAX / 16];
	size_t nb = 0, nc = 0, off = 0;

	if (n < 0 || n % 2 != 0 || (size_t)n / 2 > sizeof(bytes)) {
		d->bad = 1;
		return;
	}
	for (i = 0; i < n; i += 2) {
		uint64_t v;

		hex_u64(s + i, 2, &v);
		bytes[nb++] = (char)v;
	}
	while (off < nb) {
		uint32_t cp;
		size_t k = utf8_decode_one(bytes + off, nb - off, &cp);

		if (k == 0) {
			d->bad = 1;
			return;
		}
		cps[nc++] = cp;
		off += k;
	}
	print_quoted(d, '"', cps, nc);
}

static void
print_const_arg(struct dm *d, int in_value)
{
	print_const(d, in_value);
}

static void
const_list(struct dm *d, const char *open, const char *close, int tuple)
{
	int i;

	puts_(d, open);
	for (i = 0; !d->bad && !eat(d, 'E'); i++) {
		if (i > 0)
			puts_(d, ", ");
		print_const(d, 1);
	}
	if (tuple && i == 1)
		puts_(d, ",");
	puts_(d, close);
}

static void
print_const(struct dm *d, int in_value)
{
	const char *s;
	struct ident id;
	long n;
	uint64_t v;
	int tag, c;

	if (!enter(d))
		return;
	tag = next(d);
	switch (tag) {
	case 'p':
		puts_(d, "_");
		break;
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
		const_uint(d, tag);
		break;
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
		if (eat(d, 'n'))
			puts_(d, "-");
		const_uint(d, tag);
		break;
	case 'b':
		n = hex_nibbles(d, &s);
		if (n < 0 || !hex_u64(s, n, &v) || n == 0 || v > 1)
			d->bad = 1;
		else
			puts_(d, v ? "true" : "false");
		break;
	case 'c':
		n = hex_nibbles(d, &s);
		if (n <= 0 || !hex_u64(s, n, &v) || v > 0x10ffff ||
		    (v >= 0xd800 && v < 0xe000)) {
			d->bad = 1;
		} else {
			uint32_t cp = (uint32_t)v;

			print_quoted(d, '\'', &cp, 1);
		}
		break;
	case 'e':
		puts_(d, in_value ? "*" : "{*");
		const_str(d);
		if (!in_value)
			puts_(d, "}");
		break;
	case 'R':
	case 'Q':
		if (tag == 'R' && eat(d, 'e')) {
			const_str(d);
			break;
		}
		if (!in_value)
			puts_(d, "{");
		puts_(d, tag == 'R' ? "&" : "&mut ");
		print_const(d, 1);
		if (!in_value)
			puts_(d, "}");
		break;
	case 'A':
	case 'T':
		if (!in_value)
			puts_(d, "{");
		const_list(d, tag == 'A' ? "[" : "(", tag == 'A' ? "]" : ")",
		    tag == 'T');
		if (!in_value)
			puts_(d, "}");
		break;
	case 'V':
		if (!in_value)
			puts_(d, "{");
		print_path(d, 1);
		c = next(d);
		if (c == 'T')
			const_list(d, "(", ")", 0);
		else if (c == 'S') {
			int i;

			puts_(d, " { ");
			for (i = 0; !d->bad && !eat(d, 'E'); i++) {
				if (i > 0)
					puts_(d, ", ");
				opt_base62(d, 's');
				if (ident(d, &id) != 0)
					break;
				print_ident(d, &id);
				puts_(d, ": ");
				print_const(d, 1);
			}
			puts_(d, " }");
		} else if (c != 'U')
			d->bad = 1;
		if (!in_value)
			puts_(d, "}");
		break;
	case 'B':
		backref(d, print_const_arg, in_value);
		break;
	default:
		d->bad = 1;
	}
	d->depth--;
}

static int
v0_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_';
}

/* @return the length of the v0 body parsed, 0 if invalid. */
static size_t
v0(struct dm *d, const char *s, size_t n)
{
	size_t body = 0;

	while (body < n && v0_char((unsigned char)s[body]))
		body++;
	if (body == 0 || s[0] < 'A' || s[0] > 'Z')
		return 0;
	d->sym = s;
	d->len = body;
	d->pos = 0;
	print_path(d, 1);
	if (!d->bad && d->pos < body && s[d->pos] >= 'A' && s[d->pos] <= 'Z') {
		/* The instantiating crate: parsed, not printed. */
		size_t mark = d->out->len;

		print_path(d, 0);
		d->out->len = mark;
	}
	if (d->bad || d->pos != body)
		return 0;
	return body;
}

/* ---- MSVC ------------------------------------------------------------ */

/*
 * A small reader of MSVC decorations, for the qualified name of a
 * function: names with their back-references (0-9), templates (`?$`)
 * with their argument types (primitives, classes, structs, unions,
 * enums, pointers, references, integer constants, type
 * back-references).  What it does not know fails the whole name, which
 * then stays raw.
 */
struct ms {
	/*
	 * The next letter; it never moves past the name's NUL, since the
	 * callers of a part that fails still look at *p once.
	 */
	const char *p;
	struct buf *out;
	int bad, depth;
};

struct ms_names {		/* a back-reference table of names */
	char *name[10];
	int n;
};

static void ms_qualified(struct ms *m, struct ms_names *names);

static void
ms_put(struct ms *m, const char *s, size_t n)
{
	if (n > 0 && m->out->len + n <= SYM_DEMANGLE_MAX)
		buf_put(m->out, s, n);
	else if (n > 0)
		m->bad = 1;
}

static void
ms_puts(struct ms *m, const char *s)
{
	ms_put(m, s, strlen(s));
}

static void
ms_remember(struct ms_names *t, const char *s, size_t n)
{
	char *c;

	if (t->n == 10 || (c = malloc(n + 1)) == NULL)
		return;
	memcpy(c, s, n);
	c[n] = '\0';
	t->name[t->n++] = c;
}

static void
ms_forget(struct ms_names *t)
{
	while (t->n > 0)
		free(t->name[--t->n]);
}

static const char *
ms_primitive(int c)
{
	switch (c) {
	case 'C': return "signed char";
	case 'D': return "char";
	case 'E': return "unsigned char";
	case 'F': return "short";
	case 'G': return "unsigned short";
	case 'H': return "int";
	case 'I': return "unsigned int";
	case 'J': return "long";
	case 'K': return "unsigned long";
	case 'M': return "float";
	case 'N': return "double";
	case 'O': return "long double";
	case 'X': return "void";
	}
	return NULL;
}

static const char *
ms_extended(int c)
{
	switch (c) {
	case 'J': return "__int64";
	case 'K': return "unsigned __int64";
	case 'N': return "bool";
	case 'W': return "wchar_t";
	case 'S': return "char16_t";
	case 'U': return "char32_t";
	case 'Q': return "char8_t";
	}
	return NULL;
}

/* An encoded number: `?` negative, 0-9 for 1-10, else hex A-P then @. */
static void
ms_number(struct ms *m)
{
	uint64_t v = 0;
	int neg = 0, n = 0;
	char tmp[24];

	if (*m->p == '?') {
		neg = 1;
		m->p++;
	}
	if (*m->p >= '0' && *m->p <= '9')
		v = (uint64_t)(*m->p++ - '0') + 1;
	else {
		while (*m->p >= 'A' && *m->p <= 'P' && n++ < 16)
			v = v * 16 + (uint64_t)(*m->p++ - 'A');
		if (*m->p != '@') {
			m->bad = 1;
			return;
		}
		m->p++;
	}
	snprintf(tmp, sizeof(tmp), "%s%llu", neg ? "-" : "",
	    (unsigned long long)v);
	ms_puts(m, tmp);
}

static void ms_type(struct ms *m, struct ms_names *args,
    struct ms_names *names);

/* A pointer or reference's target, after its cv letter. */
static void
ms_indirect(struct ms *m, struct ms_names *args, struct ms_names *names,
    const char *sym)
{
	int cv;

	while (*m->p == 'E' || *m->p == 'F' || *m->p == 'I')
		m->p++;		/* __ptr64, __unaligned, __restrict */
	cv = *m->p;
	if (cv < 'A' || cv > 'D') {
		m->bad = 1;
		return;
	}
	m->p++;
	ms_type(m, args, names);
	if (cv == 'B' || cv == 'D')
		ms_puts(m, " const");
	if (cv == 'C' || cv == 'D')
		ms_puts(m, " volatile");
	ms_puts(m, sym);
}

static void
ms_type(struct ms *m, struct ms_names *args, struct ms_names *names)
{
	const char *s;
	size_t start = m->out->len;
	int c = *m->p;

	if (m->bad || ++m->depth > 64) {
		m->bad = 1;
		return;
	}
	if (c == '\0') {
		m->bad = 1;
	} else if (c >= '0' && c <= '9') {
		m->p++;
		if (c - '0' < args->n)
			ms_puts(m, args->name[c - '0']);
		else
			m->bad = 1;
		m->depth--;
		return;
	} else if ((s = ms_primitive(c)) != NULL) {
		m->p++;
		ms_puts(m, s);
		m->depth--;
		return;
	} else if (c == '_' && (s = ms_extended(m->p[1])) != NULL) {
		m->p += 2;
		ms_puts(m, s);
	} else if (c == 'U' || c == 'V' || c == 'T') {
		m->p++;
		ms_qualified(m, names);
	} else if (c == 'W' && m->p[1] == '4') {
		m->p += 2;
		ms_qualified(m, names);
	} else if (c == 'P' || c == 'Q' || c == 'R' || c == 'S') {
		m->p++;
		ms_indirect(m, args, names, " *");
	} else if (c == 'A') {
		m->p++;
		ms_indirect(m, args, names, " &");
	} else if (c == '$' && m->p[1] == '$' && m->p[2] == 'Q') {
		m->p += 3;
		ms_indirect(m, args, names, " &&");
	} else if (c == '$' && m->p[1] == '0') {
		m->p += 2;
		ms_number(m);
	} else
		m->bad = 1;
	/* Types of more than one letter can be referred to by 0-9. */
	if (!m->bad && m->out->data != NULL)
		ms_remember(args, (const char *)m->out->data + start,
		    m->out->len - start);
	m->depth--;
}

/* `name@args@` after `?$`: name<args>. */
static void
ms_template(struct ms *m)
{
	const char *at = strchr(m->p, '@');
	struct ms_names args = { { 0 }, 0 }, names = { { 0 }, 0 };
	int n = 0;

	if (at == NULL || at == m->p) {
		m->bad = 1;
		return;
	}
	/* A template has its own back-references: its name first. */
	ms_put(m, m->p, (size_t)(at - m->p));
	ms_remember(&names, m->p, (size_t)(at - m->p));
	m->p = at + 1;
	ms_puts(m, "<");
	while (!m->bad && *m->p != '@') {
		if (n++ > 0)
			ms_puts(m, ",");
		ms_type(m, &args, &names);
	}
	if (*m->p == '@')
		m->p++;
	/* C++03 spelling, as DIA and the PDBs' own names have it. */
	if (m->out->len > 0 && m->out->data[m->out->len - 1] == '>')
		ms_puts(m, " ");
	ms_puts(m, ">");
	ms_forget(&args);
	ms_forget(&names);
}

/*
 * A qualified name, innermost fragment first, up to its `@`; printed
 * outermost first with `::`.  Each fragment is written apart, then the
 * fragments are put together in reverse.
 */
static void
ms_qualified(struct ms *m, struct ms_names *names)
{
	size_t frag_at[32], frag_len[32], nf = 0, i, base;
	struct buf *saved = m->out, tmp = { 0 };

	if (m->bad || ++m->depth > 64) {
		m->bad = 1;
		return;
	}
	m->out = &tmp;
	while (!m->bad && *m->p != '@') {
		size_t at = tmp.len;

		if (*m->p == '\0' || nf == 32) {
			m->bad = 1;
			break;
		}
		if (*m->p >= '0' && *m->p <= '9') {
			int k = *m->p++ - '0';

			if (k < names->n)
				ms_puts(m, names->name[k]);
			else
				m->bad = 1;
		} else if (m->p[0] == '?' && m->p[1] == '$') {
			m->p += 2;
			ms_template(m);
			if (!m->bad && tmp.data != NULL)
				ms_remember(names, (const char *)tmp.data + at,
				    tmp.len - at);
		} else if (*m->p == '?') {
			m->bad = 1;
		} else {
			const char *e = strchr(m->p, '@');

			if (e == NULL) {
				m->bad = 1;
				break;
			}
			ms_put(m, m->p, (size_t)(e - m->p));
			ms_remember(names, m->p, (size_t)(e - m->p));
			m->p = e + 1;
		}
		frag_at[nf] = at;
		frag_len[nf++] = tmp.len - at;
	}
	if (*m->p == '@')
		m->p++;
	m->out = saved;
	base = saved->len;
	for (i = nf; tmp.data != NULL && i-- > 0 && !m->bad;) {
		ms_put(m, (const char *)tmp.data + frag_at[i], frag_len[i]);
		if (i > 0)
			ms_puts(m, "::");
	}
	if (nf == 0)
		m->bad = 1;
	(void)base;
	buf_release(&tmp);
	m->depth--;
}

static const struct {
	const char *code, *name;
} msvc_ops[] = {
	{ "2", "operator new" }, { "3", "operator delete" },
	{ "4", "operator=" }, { "5", "operator>>" }, { "6", "operator<<" },
	{ "7", "operator!" }, { "8", "operator==" }, { "9", "operator!=" },
	{ "A", "operator[]" }, { "C", "operator->" }, { "D", "operator*" },
	{ "E", "operator++" }, { "F", "operator--" }, { "G", "operator-" },
	{ "H", "operator+" }, { "M", "operator<" }, { "N", "operator<=" },
	{ "O", "operator>" }, { "P", "operator>=" }, { "R", "operator()" },
	{ "Y", "operator+=" }, { "Z", "operator-=" },
	{ "_U", "operator new[]" }, { "_V", "operator delete[]" },
	{ "_G", "`scalar deleting destructor'" },
	{ "_E", "`vector deleting destructor'" },
	{ "_7", "`vftable'" }, { "_R4", "`RTTI Complete Object Locator'" },
};

/* The last `::` component of a qualified name, template arguments cut. */
static void
last_component(const unsigned char *s, size_t n, size_t *at, size_t *len)
{
	size_t i, depth = 0, start = 0, end;

	for (i = 0; i < n; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (depth == 0 && s[i] == ':' && i + 1 < n &&
		    s[i + 1] == ':')
			start = i + 2;
	}
	for (end = start; end < n && s[end] != '<'; end++)
		;
	*at = start;
	*len = end - start;
}

/*
 * `?name@Scope1@Scope2@@...` -> `Scope2::Scope1::name`, templates with
 * their arguments; constructors, destructors and the operators above
 * by their names.  The function's type that follows is not printed.
 */
static int
msvc(const char *s, struct buf *out)
{
	struct ms m = { s + 1, out, 0, 0 };
	struct ms_names names = { { 0 }, 0 };
	const char *special = NULL;
	size_t i, at, len;
	int ctor = 0;

	if (m.p[0] == '?' && m.p[1] != '$') {
		m.p++;
		if (*m.p == '0' || *m.p == '1') {
			ctor = *m.p == '0' ? 1 : 2;
			m.p++;
		} else {
			for (i = 0; i < sizeof(msvc_ops) / sizeof(msvc_ops[0]);
			    i++) {
				size_t k = strlen(msvc_ops[i].code);

				if (strncmp(m.p, msvc_ops[i].code, k) == 0) {
					special = msvc_ops[i].name;
					m.p += k;
					break;
				}
			}
			if (special == NULL)
				return 0;
		}
	}
	ms_qualified(&m, &names);
	ms_forget(&names);
	if (m.bad)
		return 0;
	if (special != NULL) {
		buf_put(out, "::", 2);
		buf_put(out, special, strlen(special));
	} else if (ctor) {
		last_component(out->data, out->len, &at, &len);
		buf_put(out, ctor == 1 ? "::" : "::~", ctor == 1 ? 2 : 3);
		buf_reserve(out, len);
		if (!out->oom && len > 0) {
			memcpy(out->data + out->len, out->data + at, len);
			out->len += len;
		}
	}
	return 1;
}

/* ---- entry ----------------------------------------------------------- */

static int
symbol_like(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

static int
finish(struct buf *out, int ok)
{
	if (!ok)
		out->len = 0;
	buf_put_u8(out, 0);
	if (out->oom)
		return -1;
	out->len--;
	return ok;
}

int
sym_demangle(const char *name, unsigned flags, struct buf *out)
{
	struct dm d;
	size_t n, used = 0, pre;
	const char *s = name, *suffix;
	const char *llvm;

	out->len = 0;
	memset(&d, 0, sizeof(d));
	d.flags = flags;
	d.out = out;
	if (*s == '#')
		s++;
	if (s[0] == '?' && !(flags & SYM_DEMANGLE_NO_MSVC))
		return finish(out, msvc(s, out));
	n = strlen(s);
	if (!(flags & SYM_DEMANGLE_LLVM) &&
	    (llvm = strstr(s, ".llvm.")) != NULL) {
		const char *c = llvm + 6;

		while ((*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'F') ||
		    *c == '@')
			c++;
		if (*c == '\0')
			n = (size_t)(llvm - s);
	}
	if (n > 3 && strncmp(s, "_ZN", 3) == 0)
		pre = 3;
	else if (n > 2 && strncmp(s, "ZN", 2) == 0)
		pre = 2;
	else if (n > 4 && strncmp(s, "__ZN", 4) == 0)
		pre = 4;
	else
		pre = 0;
	if (pre > 0 && !(flags & SYM_DEMANGLE_LLVM))
		used = legacy(&d, s + pre, n - pre);
	if (used == 0) {
		out->len = 0;
		d.bad = 0;
		if (n > 2 && strncmp(s, "_R", 2) == 0)
			pre = 2;
		else if (n > 1 && s[0] == 'R')
			pre = 1;
		else if (n > 3 && strncmp(s, "__R", 3) == 0)
			pre = 3;
		else
			return finish(out, 0);
		used = v0(&d, s + pre, n - pre);
		if (used == 0)
			return finish(out, 0);
	}
	suffix = s + pre + used;
	n -= pre + used;
	if (n > 0) {
		char tmp[4096];

		if (n >= sizeof(tmp) || suffix[0] != '.')
			return finish(out, 0);
		memcpy(tmp, suffix, n);
		tmp[n] = '\0';
		if (flags & SYM_DEMANGLE_LLVM) {
			buf_put(out, " (", 2);
			buf_put(out, suffix, n);
			buf_put(out, ")", 1);
		} else if (symbol_like(tmp))
			buf_put(out, suffix, n);
		else
			return finish(out, 0);
	}
	return finish(out, !d.bad);
}

const char *
sym_display_name(const char *name, struct buf *out)
{
	if (sym_demangle(name, 0, out) == 1)
		return (const char *)out->data;
	return name;
}
