/*
 * Burrow's one native add-on of its own (issue 33): glibc's malloc_trim(0), which Node does not
 * offer, and the release of the executable's own pages once used. glibc keeps
 * memory that was freed in the middle of its arenas (the main one, `[heap]`, and one per thread
 * that allocates) for the next allocation; only malloc_trim hands those pages back to the system
 * (madvise MADV_DONTNEED on every free page-sized run). 60 s after 100 clients, 20 MB of the
 * executable's resident memory was such free memory. src/native.ts loads it (loadMemoryTrim);
 * src/core/idle-gc.ts calls it after each quiet-time collection.
 *
 * Built by build/build.ts for the Linux executables only (glibc), with the C compiler of the
 * target (gcc, aarch64-linux-gnu-gcc), and loaded from CACHE_DIR/native like the other add-ons.
 * The few Node-API declarations it uses are written out here, so the build needs no headers:
 * they are Node-API's stable ABI (js_native_api.h, version 1).
 */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status; /* napi_ok is 0 */
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);

extern napi_status napi_create_function(napi_env env, const char *name, size_t length, napi_callback cb, void *data,
                                        napi_value *result);
extern napi_status napi_set_named_property(napi_env env, napi_value object, const char *name, napi_value value);
extern napi_status napi_get_boolean(napi_env env, _Bool value, napi_value *result);
extern napi_status napi_create_double(napi_env env, double value, napi_value *result);

/* trim(): true when glibc gave memory back to the system. */
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result = NULL;
  napi_get_boolean(env, malloc_trim(0) != 0, &result);
  return result;
}

/*
 * releaseExecutable(): the pages of the executable's own file that this process has in memory go
 * back to the system — its code and read-only data (Node's and V8's code, ICU's tables) and its
 * SEA blob (the bundle's source and code cache, the packs, the workers' code). Most are touched
 * once, at the start or by a burst of work (the compilers, the migrations, a worker's code);
 * touched again, they come from the page cache (or the file), as they do when the kernel reclaims
 * them itself. Only a mapping that is private, not writable and holds no page of its own (smaps'
 * `Anonymous: 0 kB` and `Swap: 0 kB`: none was ever written, so dropping loses nothing — the
 * read-only data the loader relocated before its RELRO has such pages and is left alone) and that maps the file
 * /proc/self/exe names. Answers the bytes of the mappings released (0 when none was).
 */
static napi_value release_executable(napi_env env, napi_callback_info info) {
  (void)info;
  double released = 0;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  FILE *smaps = n > 0 ? fopen("/proc/self/smaps", "re") : NULL;
  if (smaps != NULL) {
    exe[n] = '\0';
    char line[4352];
    /* The mapping whose fields are being read, when it is one to release. */
    unsigned long start = 0, end = 0;
    _Bool candidate = 0;
    while (fgets(line, sizeof line, smaps) != NULL) {
      unsigned long s, e, offset, inode;
      unsigned major, minor;
      char perms[5];
      int path_at = 0;
      if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &s, &e, perms, &offset, &major, &minor, &inode, &path_at) == 7) {
        char *path = line + path_at;
        path[strcspn(path, "\n")] = '\0';
        candidate = inode != 0 && perms[1] == '-' && perms[3] == 'p' && path_at > 0 && strcmp(path, exe) == 0;
        start = s;
        end = e;
        continue;
      }
      unsigned long kb;
      if (!candidate) continue;
      if (sscanf(line, "Anonymous: %lu kB", &kb) == 1 && kb != 0) candidate = 0;
      /* After Anonymous: a written page swapped out is no longer counted there, but here. */
      else if (sscanf(line, "Swap: %lu kB", &kb) == 1) {
        if (kb == 0 && madvise((void *)start, end - start, MADV_DONTNEED) == 0) released += (double)(end - start);
        candidate = 0;
      }
    }
    fclose(smaps);
  }
  napi_value result = NULL;
  napi_create_double(env, released, &result);
  return result;
}

__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "trim", SIZE_MAX, trim, NULL, &fn) != 0) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != 0) return NULL;
  if (napi_create_function(env, "releaseExecutable", SIZE_MAX, release_executable, NULL, &fn) != 0) return NULL;
  if (napi_set_named_property(env, exports, "releaseExecutable", fn) != 0) return NULL;
  return exports;
}

__attribute__((visibility("default"))) int32_t node_api_module_get_api_version_v1(void) { return 1; }
