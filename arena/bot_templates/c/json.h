/* json.h: a small JSON reader (and writer, for logs) for a Ra Arena bot in C11, standard
 * library only.  You should not need to change it: bot.c uses it for you.
 *
 * json_parse() turns one line of text into a tree of Json values; the accessors below read
 * it and all accept NULL, so that they can be chained:
 *
 *     const char *kind = json_string(json_get(json_at(legal, i), "type"));  // NULL if absent
 *     if (json_string_is(json_get(json_at(legal, i), "type"), "bid")) ...
 *     long long sun = json_integer(json_get(json_at(legal, i), "sun"), -1); // -1 if absent
 */
#ifndef RA_ARENA_JSON_H
#define RA_ARENA_JSON_H

#include <stddef.h>
#include <stdio.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonType;

typedef struct Json Json;
struct Json {
    JsonType type;
    int boolean;        /* JSON_BOOL: 0 or 1 */
    double number;      /* JSON_NUMBER: its value */
    int is_integer;     /* JSON_NUMBER: written without fraction or exponent, fits a long long */
    long long integer;  /*   ... then its exact value (a double holds only 53 bits) */
    char *string;       /* JSON_STRING: UTF-8, NUL-terminated (\u escapes decoded) */
    size_t length;      /* JSON_STRING: its bytes; JSON_ARRAY, JSON_OBJECT: its items */
    Json *items;        /* JSON_ARRAY: the elements; JSON_OBJECT: the values, in order */
    char **keys;        /* JSON_OBJECT: the keys, in order (keys[i] names items[i]) */
    size_t *key_lengths; /* JSON_OBJECT: the bytes of each key (a \u0000 inside counts) */
};

/* The JSON value of text[0..length), or NULL with a reason in error (error_size bytes). */
Json *json_parse(const char *text, size_t length, char *error, size_t error_size);
void json_free(Json *value);

/* The value of key in an object (the last one if repeated), NULL if absent or no object. */
const Json *json_get(const Json *object, const char *key);
/* The element index of an array, NULL if out of range or no array. */
const Json *json_at(const Json *array, size_t index);
/* The items of an array or object, 0 for anything else. */
size_t json_length(const Json *value);
/* Whether value is of this type (0 for NULL). */
int json_is(const Json *value, JsonType type);
/* The string, or NULL if value is not a string. */
const char *json_string(const Json *value);
/* Whether value is a string equal to text. */
int json_string_is(const Json *value, const char *text);
/* A number's value, or fallback if value is not a number. */
double json_number(const Json *value, double fallback);
/* A whole number's exact value, or fallback if value is not one that fits a long long. */
long long json_integer(const Json *value, long long fallback);

/* value as one line of JSON (e.g. json_write(stderr, observation) to look at it). */
void json_write(FILE *out, const Json *value);

#endif
