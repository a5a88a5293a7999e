/* The C template's JSON reader, line by line: each line read back as JSON by json_write,
 * or "error: ..." (tests/bot_templates/test_json_readers.py). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "json.h"

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) >= 0) {
        char error[100];
        if (length > 0 && line[length - 1] == '\n') length--;
        Json *value = json_parse(line, (size_t)length, error, sizeof error);
        if (value == NULL) {
            printf("error: %s\n", error);
        } else {
            json_write(stdout, value);
            putchar('\n');
            json_free(value);
        }
    }
    free(line);
    return 0;
}
