/* A compiled protocol agent (not hostile): answers every `act` with its first legal action.
   tests/test_tournament_hostile.py builds it with `cc` to show that a binary given by its
   path runs in the sandbox. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 20];

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (!strstr(line, "\"type\":\"act\"")) continue;
        char *legal = strstr(line, "\"legal\":[");
        if (!legal) return 2;
        printf("{\"action\": %ld}\n", strtol(legal + 9, NULL, 10));
        fflush(stdout);
    }
    return 0;
}
