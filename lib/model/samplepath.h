/*
 * samplepath.h - a sample's frames as etlagg cpu --by stack names them,
 * for the views that key samples by something more (cpu --by
 * query+stack): its stack's frames outermost first, each frame the
 * function that holds its address and then, outermost first, what
 * etlsym found inlined there, and the sample's own address innermost
 * when the stack does not start with it; [no stack] for a sample
 * without one, [stack not defined] for one whose stack never came
 * (frames.h).  Frames are joined by ';', with ';' and line breaks in a
 * name made '_'.
 *
 * Call it while the sample's section is the reader's (at its END at the
 * latest, when every stack is defined); `r` NULL names the stack not
 * defined.
 */
#ifndef SAMPLEPATH_H
#define SAMPLEPATH_H

#include <stdint.h>

#include "base/buf.h"
#include "stream/frames.h"
#include "stream/stream.h"

/*
 * Appends the path of a sample of process definition `def` (0: not
 * known), with stack `stack` (0: none) and address `ip`, to `out`.
 * @return : the offset in `out` of its innermost frame's name.
 */
size_t samplepath_text(struct frames *f, const struct stream_reader *r,
    stream_id def, stream_id stack, uint64_t ip, struct buf *out);

#endif
