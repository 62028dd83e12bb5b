/*
 * sym_demangle.h - readable names for linker symbols: Rust legacy
 * (`_ZN...17h<hash>E`) and v0 (`_R...`) mangling, and the qualified name
 * of an MSVC-decorated C++ name (`?name@Class@@...` -> `Class::name`).
 *
 * The Rust side follows rust-symbols.md: by default it prints what
 * `rustfilt` (rustc-demangle's alternate form) prints: no hash, no crate
 * disambiguators, untyped constants.  The flags give the other
 * conventions of the test vectors (libiberty, LLVM), so the one decoder
 * is checked against all of them.  Invalid input is never half-printed:
 * the call fails and the caller keeps the raw name.
 *
 * Memory: the output buffer only, bounded (SYM_DEMANGLE_MAX); recursion
 * is bounded too, so a hostile name costs at most linear time per byte
 * of output.
 */
#ifndef SYM_DEMANGLE_H
#define SYM_DEMANGLE_H

#include <stddef.h>

#include "base/buf.h"

/* Longest demangled name; a longer one (backref blow-up) is refused. */
#define SYM_DEMANGLE_MAX	65536

enum sym_demangle_flags {
	/* rustc-demangle's `{}`: legacy hash, v0 crate disambiguators
	 * and typed integer constants (`123usize`) kept. */
	SYM_DEMANGLE_HASH = 1 << 0,
	/* libiberty: a legacy hash is `h` and exactly 16 hex digits. */
	SYM_DEMANGLE_HASH16 = 1 << 1,
	/* Non-ASCII characters of char and string constants as \u{..}. */
	SYM_DEMANGLE_ESCAPE = 1 << 2,
	/* LLVM: a `.suffix` shown as ` (.suffix)`, `.llvm.` included. */
	SYM_DEMANGLE_LLVM = 1 << 3,
	/* Leave MSVC-decorated names alone. */
	SYM_DEMANGLE_NO_MSVC = 1 << 4
};

/*
 * Demangles the NUL-terminated `name` into `out` (replacing what it
 * held; NUL-terminated, the NUL not counted in out->len).  One leading
 * `#` (ARM64EC native code) is ignored.
 * @return : 1 if `name` was a mangled name and `out` holds its
 *	demangled form; 0 if it is not one we know (or is invalid), and
 *	`out` is then empty; -1 if out of memory.
 */
int sym_demangle(const char *name, unsigned flags, struct buf *out);

/*
 * The display name of a symbol as etlsym shows it: demangled by default
 * rules, else the name itself.  @return : a pointer to out's bytes or to
 * `name`; valid until `out` changes.
 */
const char *sym_display_name(const char *name, struct buf *out);

#endif
