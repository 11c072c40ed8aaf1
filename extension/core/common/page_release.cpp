#include "page_release.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace gbdt {

size_t release_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  static const long page = sysconf(_SC_PAGESIZE);
  if (p == nullptr || page <= 0) return 0;
  const uintptr_t ps = (uintptr_t)page;
  const uintptr_t b = ((uintptr_t)p + ps - 1) / ps * ps;  // first whole page
  const uintptr_t e = ((uintptr_t)p + bytes) / ps * ps;   // end of the last one
  if (e <= b) return 0;
  if (madvise((void*)b, (size_t)(e - b), MADV_DONTNEED) != 0) return 0;
  return (size_t)(e - b);
#else
  (void)p;
  (void)bytes;
  return 0;
#endif
}

}  // namespace gbdt
