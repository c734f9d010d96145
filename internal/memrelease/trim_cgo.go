//go:build linux && cgo

package memrelease

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#define FURUDESK_GLIBC 1
static void furudesk_trim(void) { malloc_trim(0); }
static int furudesk_mmap_threshold(int n) { return mallopt(M_MMAP_THRESHOLD, n); }
#else
#define FURUDESK_GLIBC 0
static void furudesk_trim(void) {}
static int furudesk_mmap_threshold(int n) { return 0; }
#endif
*/
import "C"

import "os"

// cgoGlibc: the C library is glibc, whose heap is trimmed and tuned.
const cgoGlibc = C.FURUDESK_GLIBC == 1

// trimC gives the free pages of the C heap back to the system (glibc's
// malloc_trim: every arena, holes between live blocks included). The C
// heap is the window's GL textures under a software renderer, Fyne's
// text images, SQLite's and FFmpeg's buffers: glibc keeps what they
// free for later, and only the top of each arena is returned by itself.
func trimC() { C.furudesk_trim() }

// KeepLargeBlocksApart has the C heap give every block of
// largeBlock or more its own mapping, returned to the system when freed
// (glibc's M_MMAP_THRESHOLD, fixed). By default glibc raises that
// threshold to the size of each mapped block freed, up to 32 MB, so that
// once a software GL renderer freed a texture, textures of that size
// are carved from the heap instead and leave it full of holes that
// malloc_trim cannot always return. MALLOC_MMAP_THRESHOLD_ set in the
// environment wins. False when glibc refused (or is not the C library).
func KeepLargeBlocksApart() bool {
	if os.Getenv("MALLOC_MMAP_THRESHOLD_") != "" {
		return false
	}
	return C.furudesk_mmap_threshold(C.int(largeBlock)) == 1
}
