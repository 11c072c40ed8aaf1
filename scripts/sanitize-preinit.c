/*
 * Preloaded after libasan by scripts/test-sanitize.sh.
 *
 * A preloaded ASan runtime initialises on the first malloc, and library
 * constructors run before it does.  libgpg-error's constructor (pulled into
 * the postgres binary by its dependencies) calls bindtextdomain(), whose
 * malloc then initialises ASan while glibc holds its gettext lock; ASan's
 * initialisation calls dlerror() -> dcgettext(), which takes and releases that
 * lock again, and the next bindtextdomain() (postgres's own) waits for ever.
 * This bindtextdomain() makes ASan initialise first, outside the lock, and
 * then calls glibc's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

void *volatile gbdt_sanitize_preinit_sink;

char *bindtextdomain(const char *domain, const char *dir) {
  static char *(*real)(const char *, const char *);
  if (real == NULL) {
    gbdt_sanitize_preinit_sink = malloc(16); /* initialises ASan */
    free(gbdt_sanitize_preinit_sink);
    real = (char *(*)(const char *, const char *))dlsym(RTLD_NEXT, "bindtextdomain");
    if (real == NULL) abort();
  }
  return real(domain, dir);
}
