// Gives the whole memory pages inside a buffer back to the kernel when its
// contents are no longer needed but the buffer itself is not yet freed (the
// loader's float columns while they are binned: their pages go as their rows
// are binned, so the float copy and the bin matrix are never both resident).
#pragma once
#include <cstddef>

namespace gbdt {

// Releases the pages lying wholly inside [p, p + bytes) (none of a page that
// reaches outside it, so an allocator's headers around the buffer stay
// untouched).  The buffer stays valid memory: its released part reads as
// zero afterwards (Linux MADV_DONTNEED on private memory); elsewhere, or if
// the kernel refuses, nothing happens and the contents stay.  Returns the
// bytes released.
size_t release_pages(void* p, size_t bytes);

}  // namespace gbdt
