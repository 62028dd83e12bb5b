/*
 * chains.h - the call chains stacks are made of.  A chain is a short list
 * of frames, root first, that continues its parent chain; a user stack is
 * a body chain (with its parents up to a thread root) plus an optional
 * tail such as the allocator path, a kernel fragment is one kernel chain.
 * Frames name a module and a function; the program of the process turns
 * the module into an image (programs.h) and the image turns the function
 * into an address (images.h).
 */
#ifndef CHAINS_H
#define CHAINS_H

#include <stdint.h>

#include "programs.h"

enum chain_id {
	NO_CHAIN = -1,
	/* Thread roots and common prefixes. */
	CH_ROOT_NATIVE,		/* C/C++ main thread */
	CH_ROOT_PYTHON,
	CH_ROOT_CARGO,		/* Rust main thread, std linked in */
	CH_ROOT_RUSTC,		/* rustc main thread */
	CH_ROOT_RUST_THREAD,	/* a thread spawned by std */
	CH_ROOT_NEW_THREAD,	/* a thread that has not run user code */
	CH_RUSTC_SESSION,	/* the compiler thread's common frames */
	CH_CODEGEN_WORK,	/* a codegen worker's common frames */
	CH_LINK_MAIN,
	/* Bodies: what a thread is doing. */
	CH_NEW_THREAD,
	CH_CMD_WAIT,
	CH_CMD_SPAWN,
	CH_PY_WAIT,
	CH_PY_SPAWN,
	CH_PY_JSON,
	CH_PY_STAT,
	CH_CARGO_WAIT,
	CH_CARGO_SPAWN,
	CH_CARGO_FINGERPRINT,
	CH_CARGO_JSON,
	CH_RUSTC_MAIN_INIT,
	CH_RUSTC_MAIN_SPAWN,
	CH_RUSTC_MAIN_WAIT,
	CH_RUSTC_PARSE,
	CH_RUSTC_EXPAND,
	CH_RUSTC_RESOLVE,
	CH_RUSTC_TYPECK,
	CH_RUSTC_TRAITS,
	CH_RUSTC_BORROWCK,
	CH_RUSTC_MIR_OPT,
	CH_RUSTC_HASH,
	CH_RUSTC_METADATA,
	CH_RUSTC_MONO,
	CH_RUSTC_CODEGEN_CGU,
	CH_RUSTC_SPAWN_WORKER,
	CH_RUSTC_SPAWN_LINK,
	CH_RUSTC_LINK_WAIT,
	CH_LLVM_INSTCOMBINE,
	CH_LLVM_GVN,
	CH_LLVM_ISEL,
	CH_LLVM_REGALLOC,
	CH_LLVM_EMIT,
	CH_LINK_READ,
	CH_LINK_RESOLVE,
	CH_LINK_ICF,
	CH_LINK_WRITE,
	CH_LINK_PDB,
	/* Tails, appended to a body. */
	CH_TAIL_ALLOC,
	CH_TAIL_REALLOC,
	CH_TAIL_FREE,
	CH_TAIL_VIRTUAL_ALLOC,
	CH_TAIL_VIRTUAL_FREE,
	CH_TAIL_READ,
	CH_TAIL_SET_EVENT,
	/* Kernel chains. */
	CH_K_PAGE_FAULT,
	CH_K_READ,
	CH_K_DPC,
	CH_K_IDLE,
	CH_K_IDLE_DPC,
	CH_K_VIRTUAL_ALLOC,
	CH_K_VIRTUAL_FREE,
	CH_K_WAIT,
	CH_K_WAIT_ADDRESS,
	CH_K_READ_WAIT,
	CH_K_PREEMPT,
	CH_K_THREAD_START,
	CH_K_READY_SET_EVENT,
	CH_K_READY_TIMER,
	CH_K_READY_NEW_PROCESS,
	CH_K_READY_NEW_THREAD,
	CHAIN_COUNT
};

#define MAX_STACK_FRAMES	48

/*
 * Every chain's frames, its parents' included, root first, in every
 * program, worked out once: deriving addresses from names is the costly
 * part of a stack.  A count of 0 marks a chain the program cannot have
 * (one of its modules is missing).
 */
struct chain_addresses {
	int		count[PROGRAM_COUNT][CHAIN_COUNT];
	uint64_t	frames[PROGRAM_COUNT][CHAIN_COUNT][MAX_STACK_FRAMES];
};

/* Call after programs_init(). */
void	chain_addresses_init(struct chain_addresses *ca, int pointer_size);

/*
 * Append the frames of `chain` to `out`, which holds `n` frames already,
 * root first or innermost first.  @return : the new count.
 */
int	chain_frames(const struct chain_addresses *ca, enum chain_id chain,
	    enum program prog, uint64_t *out, int n);
int	chain_frames_innermost(const struct chain_addresses *ca,
	    enum chain_id chain, enum program prog, uint64_t *out, int n);

#endif
