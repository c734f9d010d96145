//go:build linux && cgo

package memrelease

// #include <malloc.h>
import "C"

// TrimC gives the C heap's free memory back to the system (glibc's
// malloc_trim): the window's GL textures (Mesa's llvmpipe keeps them in
// malloc'd memory), freed when Fyne's caches let them go, and FFmpeg's
// buffers otherwise stay with the process for good.
func TrimC() { C.malloc_trim(0) }
