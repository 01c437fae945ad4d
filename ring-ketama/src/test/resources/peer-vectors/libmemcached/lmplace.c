/* Prints, for each key read from stdin (one per line), the index of the server libmemcached
   places it on: lmplace <hash> <modula|consistent|consistent_weighted> host:port[:weight] ... */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *HASHES[] = {"default", "md5", "crc", "fnv1_64", "fnv1a_64", "fnv1_32",
                               "fnv1a_32", "hsieh", "murmur", "jenkins", "murmur3", NULL};

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage\n"); return 2; }
  memcached_st *memc = memcached_create(NULL);
  int hash = -1;
  for (int i = 0; HASHES[i]; i++) if (!strcmp(HASHES[i], argv[1])) hash = i;
  if (hash < 0) { fprintf(stderr, "bad hash %s\n", argv[1]); return 2; }
  if (!strcmp(argv[2], "consistent_weighted")) {
    memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT);
    memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
  } else if (!strcmp(argv[2], "consistent")) {
    memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT);
  } else if (strcmp(argv[2], "modula")) { fprintf(stderr, "bad distribution\n"); return 2; }
  if (memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, (uint64_t) hash) != MEMCACHED_SUCCESS) {
    fprintf(stderr, "libmemcached refuses hash %s\n", argv[1]); return 3;
  }
  for (int i = 3; i < argc; i++) {
    char host[256]; unsigned port = 11211, weight = 1;
    if (sscanf(argv[i], "%255[^:]:%u:%u", host, &port, &weight) < 2) { fprintf(stderr, "bad server\n"); return 2; }
    if (memcached_server_add_with_weight(memc, host, (in_port_t) port, weight) != MEMCACHED_SUCCESS) {
      fprintf(stderr, "cannot add %s\n", argv[i]); return 2;
    }
  }
  char line[4096];
  while (fgets(line, sizeof line, stdin)) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') line[--n] = 0;
    printf("%u\n", memcached_generate_hash(memc, line, n));
  }
  memcached_free(memc);
  return 0;
}
