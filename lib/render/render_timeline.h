/*
 * render_timeline.h - the parts of the timeline page that are the same
 * for every trace (render_timeline_js.c): its style, its body, and the
 * script that draws the data render_timeline.c writes as `const D`.
 */
#ifndef RENDER_TIMELINE_H
#define RENDER_TIMELINE_H

/* From <!DOCTYPE html> to the style's end, before <title>. */
extern const char render_timeline_head[];
/* The controls, the canvas and the selection's place. */
extern const char render_timeline_body[];
/* The script, after the data (without <script> tags). */
extern const char render_timeline_script[];

#endif
