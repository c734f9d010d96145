/*
 * A stand-in for Windows' bcryptprimitives.dll under Debian's Wine 8, a
 * test fixture of scripts/test-windows.sh that is never shipped. Go
 * programs since Go 1.22 take their random bytes from ProcessPrng, which
 * Wine 8 does not have: the runtime aborts at start without it. This one
 * fills the buffer from advapi32's RtlGenRandom (SystemFunction036).
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll \
 *     bcryptprimitives.c bcryptprimitives.def
 */
#include <windows.h>

typedef BOOLEAN(WINAPI *genrandom_fn)(PVOID, ULONG);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	static genrandom_fn genrandom;
	if (!genrandom) {
		HMODULE advapi = LoadLibraryA("advapi32.dll");
		if (!advapi)
			return FALSE;
		genrandom = (genrandom_fn)GetProcAddress(advapi, "SystemFunction036");
		if (!genrandom)
			return FALSE;
	}
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!genrandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
