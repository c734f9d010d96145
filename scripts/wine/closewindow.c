/*
 * Closes a window the way its title bar's close button does: posts
 * WM_SYSCOMMAND SC_CLOSE (which DefWindowProc turns into WM_CLOSE) to the
 * top-level window with the given title. A test fixture of
 * scripts/test-windows.sh, never shipped: under Wine on a bare Xvfb there
 * is no window manager to click on.
 *
 *   x86_64-w64-mingw32-gcc -O2 -municode -o closewindow.exe closewindow.c
 *   wine closewindow.exe furudesk      exit 0: posted; 1: no such window
 */
#include <windows.h>

int wmain(int argc, wchar_t **argv) {
	if (argc != 2)
		return 2;
	HWND w = FindWindowW(NULL, argv[1]);
	if (!w)
		return 1;
	return PostMessageW(w, WM_SYSCOMMAND, SC_CLOSE, 0) ? 0 : 3;
}
