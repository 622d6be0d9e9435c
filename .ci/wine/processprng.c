// From the team's shared/wine/processprng.c, vendored for .ci/wine/setup.sh.
// ProcessPrng for Wine 8, which lacks it: Go >= 1.24 needs it at start-up on Windows.
// Built by setup.sh into bcryptprimitives.dll in the Wine prefix's system32.
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE p, SIZE_T n) {
  while (n > 0) {
    ULONG k = n > 0x40000000 ? 0x40000000 : (ULONG)n;
    if (!SystemFunction036(p, k)) return FALSE;
    p += k; n -= k;
  }
  return TRUE;
}
