/* json.c: the JSON reader and writer of json.h (RFC 8259: strict grammar, \u escapes with
 * surrogate pairs decoded to UTF-8; a lone surrogate becomes U+FFFD). */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 512 }; /* deeper nesting is refused rather than overflowing the stack */

typedef struct {
    const char *text;
    size_t length;
    size_t at;
    char *error;
    size_t error_size;
    int failed;
} Parser;

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} Buffer;

static int fail(Parser *p, const char *what) {
    if (!p->failed && p->error != NULL && p->error_size > 0)
        snprintf(p->error, p->error_size, "%s at byte %zu", what, p->at);
    p->failed = 1;
    return 0;
}

static int peek(const Parser *p) {
    return p->at < p->length ? (unsigned char)p->text[p->at] : -1;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static void skip_space(Parser *p) {
    int c = peek(p);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        p->at++;
        c = peek(p);
    }
}

static int append(Buffer *b, char c) {
    if (b->length == b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 32;
        char *data = realloc(b->data, capacity);
        if (data == NULL) return 0;
        b->data = data;
        b->capacity = capacity;
    }
    b->data[b->length++] = c;
    return 1;
}

static int append_utf8(Buffer *b, unsigned long code) {
    if (code < 0x80) return append(b, (char)code);
    if (code < 0x800)
        return append(b, (char)(0xC0 | (code >> 6))) && append(b, (char)(0x80 | (code & 0x3F)));
    if (code < 0x10000)
        return append(b, (char)(0xE0 | (code >> 12))) &&
               append(b, (char)(0x80 | ((code >> 6) & 0x3F))) &&
               append(b, (char)(0x80 | (code & 0x3F)));
    return append(b, (char)(0xF0 | (code >> 18))) &&
           append(b, (char)(0x80 | ((code >> 12) & 0x3F))) &&
           append(b, (char)(0x80 | ((code >> 6) & 0x3F))) &&
           append(b, (char)(0x80 | (code & 0x3F)));
}

/* The four hex digits at p->at as a number (and moves past them), or -1. */
static long read_hex4(Parser *p) {
    long code = 0;
    if (p->at + 4 > p->length) return -1;
    for (size_t i = 0; i < 4; i++) {
        char c = p->text[p->at + i];
        int digit = is_digit(c) ? c - '0'
                    : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (digit < 0) return -1;
        code = code * 16 + digit;
    }
    p->at += 4;
    return code;
}

/* After the "\u": one character, a surrogate pair read as one. */
static long read_unicode_escape(Parser *p) {
    long code = read_hex4(p);
    if (code < 0) return -1;
    if (code >= 0xDC00 && code <= 0xDFFF) return 0xFFFD; /* a low surrogate alone */
    if (code < 0xD800 || code > 0xDBFF) return code;
    if (p->at + 2 <= p->length && p->text[p->at] == '\\' && p->text[p->at + 1] == 'u') {
        size_t before = p->at;
        p->at += 2;
        long low = read_hex4(p);
        if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        p->at = before; /* not a low surrogate: the next escape stands on its own */
    }
    return 0xFFFD; /* a high surrogate alone */
}

/* The string starting at the quote at p->at, into *out (NUL-terminated) and *out_length. */
static int parse_string(Parser *p, char **out, size_t *out_length) {
    Buffer b = {NULL, 0, 0};
    int ok = 1;
    p->at++; /* the opening quote */
    for (;;) {
        if (p->at >= p->length) { ok = fail(p, "unterminated string"); break; }
        unsigned char c = (unsigned char)p->text[p->at++];
        if (c == '"') break;
        if (c < 0x20) { p->at--; ok = fail(p, "control character in a string"); break; }
        if (c != '\\') {
            if (!append(&b, (char)c)) { ok = fail(p, "out of memory"); break; }
            continue;
        }
        int escape = peek(p);
        p->at++;
        char plain = escape == '"' ? '"' : escape == '\\' ? '\\' : escape == '/' ? '/'
                   : escape == 'b' ? '\b' : escape == 'f' ? '\f' : escape == 'n' ? '\n'
                   : escape == 'r' ? '\r' : escape == 't' ? '\t' : 0;
        if (plain != 0) {
            ok = append(&b, plain) || fail(p, "out of memory");
        } else if (escape == 'u') {
            long code = read_unicode_escape(p);
            ok = code < 0 ? fail(p, "bad \\u escape")
                          : append_utf8(&b, (unsigned long)code) || fail(p, "out of memory");
        } else {
            p->at--;
            ok = fail(p, "bad escape");
        }
        if (!ok) break;
    }
    if (ok && !append(&b, '\0')) ok = fail(p, "out of memory");
    if (!ok) {
        free(b.data);
        return 0;
    }
    *out = b.data;
    *out_length = b.length - 1;
    return 1;
}

static int parse_number(Parser *p, Json *out) {
    size_t start = p->at;
    int integral = 1;
    if (peek(p) == '-') p->at++;
    if (peek(p) == '0') {
        p->at++;
    } else if (is_digit(peek(p))) {
        while (is_digit(peek(p))) p->at++;
    } else {
        return fail(p, "bad number");
    }
    if (peek(p) == '.') {
        integral = 0;
        p->at++;
        if (!is_digit(peek(p))) return fail(p, "bad number");
        while (is_digit(peek(p))) p->at++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        integral = 0;
        p->at++;
        if (peek(p) == '+' || peek(p) == '-') p->at++;
        if (!is_digit(peek(p))) return fail(p, "bad number");
        while (is_digit(peek(p))) p->at++;
    }
    size_t size = p->at - start;
    char small[64];
    char *copy = size < sizeof small ? small : malloc(size + 1); /* strtod needs a NUL */
    if (copy == NULL) return fail(p, "out of memory");
    memcpy(copy, p->text + start, size);
    copy[size] = '\0';
    out->type = JSON_NUMBER;
    out->number = strtod(copy, NULL); /* the program's locale is "C" unless it sets one */
    if (integral) {
        errno = 0;
        long long integer = strtoll(copy, NULL, 10);
        out->is_integer = errno != ERANGE;
        out->integer = out->is_integer ? integer : 0;
    }
    if (copy != small) free(copy);
    return 1;
}

static int parse_literal(Parser *p, const char *word, Json *out, JsonType type, int boolean) {
    size_t size = strlen(word);
    if (p->at + size > p->length || memcmp(p->text + p->at, word, size) != 0)
        return fail(p, "unexpected character");
    p->at += size;
    out->type = type;
    out->boolean = boolean;
    return 1;
}

/* Room for one more item in an array or object (keys too for an object). */
static int grow(Json *value, size_t *capacity) {
    if (value->length < *capacity) return 1;
    size_t more = *capacity ? 2 * *capacity : 8;
    Json *items = realloc(value->items, more * sizeof *items);
    if (items == NULL) return 0;
    value->items = items;
    if (value->type == JSON_OBJECT) {
        char **keys = realloc(value->keys, more * sizeof *keys);
        if (keys == NULL) return 0;
        value->keys = keys;
        size_t *key_lengths = realloc(value->key_lengths, more * sizeof *key_lengths);
        if (key_lengths == NULL) return 0;
        value->key_lengths = key_lengths;
    }
    *capacity = more;
    return 1;
}

static int parse_value(Parser *p, Json *out, int depth);

/* An array or an object, from its opening bracket at p->at.  On failure what was read so
 * far stays in out, complete enough for json_free. */
static int parse_container(Parser *p, Json *out, int depth) {
    int object = peek(p) == '{';
    char close = object ? '}' : ']';
    size_t capacity = 0;
    if (depth > MAX_DEPTH) return fail(p, "nested too deeply");
    out->type = object ? JSON_OBJECT : JSON_ARRAY;
    p->at++;
    skip_space(p);
    if (peek(p) == close) {
        p->at++;
        return 1;
    }
    for (;;) {
        char *key = NULL;
        size_t key_length = 0;
        skip_space(p);
        if (object) {
            if (peek(p) != '"') return fail(p, "expected a key");
            if (!parse_string(p, &key, &key_length)) return 0;
            skip_space(p);
            if (peek(p) != ':') {
                free(key);
                return fail(p, "expected ':'");
            }
            p->at++;
        }
        if (!grow(out, &capacity)) {
            free(key);
            return fail(p, "out of memory");
        }
        Json *item = &out->items[out->length];
        memset(item, 0, sizeof *item);
        if (object) {
            out->keys[out->length] = key;
            out->key_lengths[out->length] = key_length;
        }
        out->length++;
        if (!parse_value(p, item, depth)) return 0;
        skip_space(p);
        if (peek(p) == ',') {
            p->at++;
        } else if (peek(p) == close) {
            p->at++;
            return 1;
        } else {
            return fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
}

static int parse_value(Parser *p, Json *out, int depth) {
    skip_space(p);
    int c = peek(p);
    if (c == '{' || c == '[') return parse_container(p, out, depth + 1);
    if (c == '"') {
        out->type = JSON_STRING;
        return parse_string(p, &out->string, &out->length);
    }
    if (c == 't') return parse_literal(p, "true", out, JSON_BOOL, 1);
    if (c == 'f') return parse_literal(p, "false", out, JSON_BOOL, 0);
    if (c == 'n') return parse_literal(p, "null", out, JSON_NULL, 0);
    if (c == '-' || is_digit(c)) return parse_number(p, out);
    return fail(p, c < 0 ? "unexpected end" : "unexpected character");
}

static void free_contents(Json *value) {
    if (value->type == JSON_STRING) free(value->string);
    if (value->type == JSON_ARRAY || value->type == JSON_OBJECT) {
        for (size_t i = 0; i < value->length; i++) {
            free_contents(&value->items[i]);
            if (value->type == JSON_OBJECT) free(value->keys[i]);
        }
        free(value->items);
        free(value->keys);
        free(value->key_lengths);
    }
}

Json *json_parse(const char *text, size_t length, char *error, size_t error_size) {
    Parser p = {text, length, 0, error, error_size, 0};
    Json *value = calloc(1, sizeof *value);
    if (value == NULL) {
        fail(&p, "out of memory");
        return NULL;
    }
    if (parse_value(&p, value, 0)) {
        skip_space(&p);
        if (p.at == length) return value;
        fail(&p, "unexpected text after the value");
    }
    json_free(value);
    return NULL;
}

void json_free(Json *value) {
    if (value == NULL) return;
    free_contents(value);
    free(value);
}

const Json *json_get(const Json *object, const char *key) {
    if (!json_is(object, JSON_OBJECT) || key == NULL) return NULL;
    size_t size = strlen(key);
    for (size_t i = object->length; i-- > 0;)
        if (object->key_lengths[i] == size && memcmp(object->keys[i], key, size) == 0)
            return &object->items[i];
    return NULL;
}

const Json *json_at(const Json *array, size_t index) {
    return json_is(array, JSON_ARRAY) && index < array->length ? &array->items[index] : NULL;
}

size_t json_length(const Json *value) {
    return json_is(value, JSON_ARRAY) || json_is(value, JSON_OBJECT) ? value->length : 0;
}

int json_is(const Json *value, JsonType type) { return value != NULL && value->type == type; }

const char *json_string(const Json *value) {
    return json_is(value, JSON_STRING) ? value->string : NULL;
}

int json_string_is(const Json *value, const char *text) {
    return json_is(value, JSON_STRING) && text != NULL && strlen(text) == value->length &&
           memcmp(value->string, text, value->length) == 0;
}

double json_number(const Json *value, double fallback) {
    return json_is(value, JSON_NUMBER) ? value->number : fallback;
}

long long json_integer(const Json *value, long long fallback) {
    return json_is(value, JSON_NUMBER) && value->is_integer ? value->integer : fallback;
}

static void write_string(FILE *out, const char *text, size_t length) {
    fputc('"', out);
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20) fprintf(out, "\\u%04x", c);
            else fputc(c, out);
        }
    }
    fputc('"', out);
}

void json_write(FILE *out, const Json *value) {
    if (value == NULL) {
        fputs("null", out);
        return;
    }
    switch (value->type) {
    case JSON_NULL: fputs("null", out); break;
    case JSON_BOOL: fputs(value->boolean ? "true" : "false", out); break;
    case JSON_NUMBER:
        if (value->is_integer) fprintf(out, "%lld", value->integer);
        else if (isfinite(value->number)) fprintf(out, "%.17g", value->number);
        else fputs(value->number > 0 ? "1e999" : "-1e999", out); /* read back as infinity */
        break;
    case JSON_STRING: write_string(out, value->string, value->length); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        fputc(value->type == JSON_ARRAY ? '[' : '{', out);
        for (size_t i = 0; i < value->length; i++) {
            if (i > 0) fputc(',', out);
            if (value->type == JSON_OBJECT) {
                write_string(out, value->keys[i], value->key_lengths[i]);
                fputc(':', out);
            }
            json_write(out, &value->items[i]);
        }
        fputc(value->type == JSON_ARRAY ? ']' : '}', out);
        break;
    }
}
