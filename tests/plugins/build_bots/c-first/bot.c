/* A Ra Arena bot in C, built by its manifest's build step: always the first legal choice.
   It reads one JSON object per line and looks only at "type" and "id". */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static char line[1 << 20];

static int is_type(const char *type) {
    char wanted[64];
    snprintf(wanted, sizeof wanted, "\"type\":\"%s\"", type);
    return strstr(line, wanted) != NULL;
}

static long message_id(void) {
    const char *at = strstr(line, "\"id\":");
    return at ? strtol(at + 5, NULL, 10) : 0;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (is_type("hello"))
            printf("{\"type\":\"ready\",\"name\":\"c-first\",\"version\":\"1.0.0\","
                   "\"protocol\":\"ra-arena/1\"}\n");
        else if (is_type("request"))
            printf("{\"type\":\"reply\",\"id\":%ld,\"index\":0}\n", message_id());
        else if (is_type("ping"))
            printf("{\"type\":\"pong\",\"id\":%ld}\n", message_id());
        else if (is_type("quit"))
            return 0;
    }
    return 0;
}
