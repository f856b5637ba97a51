/*
 * Burrow's one native add-on of its own (issue 33): glibc's malloc_trim(0), which Node does not
 * offer, and the release of the pages of the executable's embedded files once read. glibc keeps
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
extern napi_status napi_get_cb_info(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv,
                                    napi_value *this_arg, void **data);
extern napi_status napi_get_arraybuffer_info(napi_env env, napi_value arraybuffer, void **data, size_t *length);

/* trim(): true when glibc gave memory back to the system. */
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result = NULL;
  napi_get_boolean(env, malloc_trim(0) != 0, &result);
  return result;
}

/*
 * releaseMapping(buffer): the pages of the mapping that holds `buffer` go back to the system when
 * that mapping is a private read-only mapping of a file (the executable's SEA blob, whose assets
 * Node hands out in place); touched again, they are read from the file again, as the kernel does
 * when it reclaims them itself. Any other memory is left alone (dropping written pages would
 * lose them). Answers the bytes released, 0 when nothing was.
 */
static napi_value release_mapping(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void *data = NULL;
  size_t length = 0;
  double released = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == 0 && argc == 1 &&
      napi_get_arraybuffer_info(env, argv[0], &data, &length) == 0 && data != NULL) {
    uintptr_t at = (uintptr_t)data;
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[4352];
    while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
      unsigned long start, end, offset, inode;
      unsigned major, minor;
      char perms[5];
      if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu", &start, &end, perms, &offset, &major, &minor, &inode) != 7) continue;
      if (at < start || at >= end) continue;
      if (inode != 0 && perms[0] == 'r' && perms[1] == '-' && perms[3] == 'p' && at + length <= end &&
          madvise((void *)start, end - start, MADV_DONTNEED) == 0)
        released = (double)(end - start);
      break;
    }
    if (maps != NULL) fclose(maps);
  }
  napi_value result = NULL;
  napi_create_double(env, released, &result);
  return result;
}

__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "trim", SIZE_MAX, trim, NULL, &fn) != 0) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != 0) return NULL;
  if (napi_create_function(env, "releaseMapping", SIZE_MAX, release_mapping, NULL, &fn) != 0) return NULL;
  if (napi_set_named_property(env, exports, "releaseMapping", fn) != 0) return NULL;
  return exports;
}

__attribute__((visibility("default"))) int32_t node_api_module_get_api_version_v1(void) { return 1; }
