//go:build linux && cgo

package memrelease

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
static void furudesk_trim(void) { malloc_trim(0); }
#else
static void furudesk_trim(void) {}
#endif
*/
import "C"

// trimC gives the free pages of the C heap back to the system (glibc's
// malloc_trim: every arena, holes between live blocks included). The C
// heap is the window's GL textures under a software renderer, Fyne's
// text images, SQLite's and FFmpeg's buffers: glibc keeps what they
// free for later, and only the top of each arena is returned by itself.
func trimC() { C.furudesk_trim() }
