/* lmorder: configures a libmemcached handle with the calls given, in their order, then handles
   each line of stdin as the last argument says:
     place  prints the index of the server libmemcached picks for the key (memcached_generate_hash;
            no server is contacted)
     set    stores "key<TAB>value" on the server libmemcached picks (memcached_set)
     get    prints the key's value, or MISS (memcached_get)

   lmorder <step>... place|set|get, the steps:
     servers=host:port[:weight],...  memcached_server_add_with_weight, one server after the other
     distribution=modula|consistent|ketama|weighted
                                     MEMCACHED_BEHAVIOR_DISTRIBUTION (MEMCACHED_DISTRIBUTION_MODULA,
                                     _CONSISTENT, _CONSISTENT_KETAMA, _CONSISTENT_WEIGHTED)
     ketama=0|1                      MEMCACHED_BEHAVIOR_KETAMA
     ketama_weighted=0|1             MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED
     hash=<name>                     MEMCACHED_BEHAVIOR_HASH, <name> one of HASHES below
     clone                           go on with memcached_clone() of the handle

   Build: gcc -O1 -Wall -o lmorder lmorder.c -lmemcached (Debian: libmemcached-dev). */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* memcached_hash_t in its order: MEMCACHED_HASH_DEFAULT is 0. */
static const char *HASHES[] = {"default", "md5", "crc", "fnv1_64", "fnv1a_64", "fnv1_32",
                               "fnv1a_32", "hsieh", "murmur", "jenkins", "murmur3", NULL};

static void check(memcached_st *memc, memcached_return_t rc, const char *what) {
  if (rc != MEMCACHED_SUCCESS) {
    fprintf(stderr, "lmorder: %s: %s\n", what, memcached_last_error_message(memc));
    exit(3);
  }
}

static void usage(const char *what) {
  fprintf(stderr, "lmorder: %s\nusage: lmorder <step>... place|set|get\n", what);
  exit(2);
}

static void behavior(memcached_st *memc, memcached_behavior_t flag, uint64_t value, const char *step) {
  check(memc, memcached_behavior_set(memc, flag, value), step);
}

int main(int argc, char **argv) {
  if (argc < 2) usage("no action");
  memcached_st *memc = memcached_create(NULL);
  for (int i = 1; i < argc - 1; i++) {
    const char *step = argv[i];
    const char *value = strchr(step, '=') ? strchr(step, '=') + 1 : "";
    if (!strncmp(step, "servers=", 8)) {
      char *list = strdup(value), *save = NULL;
      for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        char host[256];
        unsigned port = 11211, weight = 1;
        if (sscanf(s, "%255[^:]:%u:%u", host, &port, &weight) < 2) usage(s);
        check(memc, memcached_server_add_with_weight(memc, host, (in_port_t) port, weight), s);
      }
      free(list);
    } else if (!strncmp(step, "distribution=", 13)) {
      uint64_t d;
      if (!strcmp(value, "modula")) d = MEMCACHED_DISTRIBUTION_MODULA;
      else if (!strcmp(value, "consistent")) d = MEMCACHED_DISTRIBUTION_CONSISTENT;
      else if (!strcmp(value, "ketama")) d = MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA;
      else if (!strcmp(value, "weighted")) d = MEMCACHED_DISTRIBUTION_CONSISTENT_WEIGHTED;
      else usage(step);
      behavior(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, d, step);
    } else if (!strcmp(step, "ketama=0") || !strcmp(step, "ketama=1")) {
      behavior(memc, MEMCACHED_BEHAVIOR_KETAMA, value[0] == '1', step);
    } else if (!strcmp(step, "ketama_weighted=0") || !strcmp(step, "ketama_weighted=1")) {
      behavior(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, value[0] == '1', step);
    } else if (!strncmp(step, "hash=", 5)) {
      int hash = -1;
      for (int h = 0; HASHES[h]; h++) {
        if (!strcmp(HASHES[h], value)) hash = h;
      }
      if (hash < 0) usage(step);
      behavior(memc, MEMCACHED_BEHAVIOR_HASH, (uint64_t) hash, step);
    } else if (!strcmp(step, "clone")) {
      memcached_st *copy = memcached_clone(NULL, memc);
      if (copy == NULL) usage("memcached_clone failed");
      memcached_free(memc);
      memc = copy;
    } else {
      usage(step);
    }
  }
  const char *action = argv[argc - 1];
  if (strcmp(action, "place") && strcmp(action, "set") && strcmp(action, "get")) usage(action);
  char line[65536];
  while (fgets(line, sizeof line, stdin)) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') line[--n] = 0;
    if (!strcmp(action, "place")) {
      printf("%u\n", memcached_generate_hash(memc, line, n));
    } else if (!strcmp(action, "set")) {
      char *tab = strchr(line, '\t');
      if (tab == NULL) usage("set reads key<TAB>value lines");
      check(memc, memcached_set(memc, line, (size_t) (tab - line), tab + 1, strlen(tab + 1), 0, 0), line);
    } else {
      size_t length;
      uint32_t flags;
      memcached_return_t rc;
      char *v = memcached_get(memc, line, n, &length, &flags, &rc);
      if (v == NULL && rc != MEMCACHED_NOTFOUND) check(memc, rc, line);
      if (v == NULL) printf("MISS\n");
      else printf("%.*s\n", (int) length, v);
      free(v);
    }
  }
  memcached_free(memc);
  return 0;
}
