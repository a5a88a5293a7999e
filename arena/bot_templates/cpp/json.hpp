// json.hpp: a small JSON reader (and writer, for logs) for a Ra Arena bot in C++17,
// standard library only.  You should not need to change it: bot.cpp uses it for you.
//
// Json::parse turns one line of text into a Json value (or throws JsonError).  Reading a
// key or an index that is not there gives a null value instead of failing, so lookups
// chain:
//
//     legal[i]["type"].as_string() == "bid"      // "" when not a string
//     legal[i]["sun"].as_integer(-1)             // -1 when absent
//     observation["players"].size()              // 0 when not an array or object
//
// RFC 8259: strict grammar; \u escapes, surrogate pairs included, are decoded to UTF-8 (a
// lone surrogate becomes U+FFFD).
#pragma once

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Json {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Json() = default;  // null

    static Json parse(const std::string &text);

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::Null; }
    bool is_bool() const { return type_ == Type::Bool; }
    bool is_number() const { return type_ == Type::Number; }
    bool is_integer() const { return type_ == Type::Number && is_integer_; }
    bool is_string() const { return type_ == Type::String; }
    bool is_array() const { return type_ == Type::Array; }
    bool is_object() const { return type_ == Type::Object; }

    bool as_bool(bool fallback = false) const { return is_bool() ? boolean_ : fallback; }
    double as_number(double fallback = 0) const { return is_number() ? number_ : fallback; }
    // A whole number's exact value (written without fraction or exponent, and fits).
    long long as_integer(long long fallback = 0) const {
        return is_integer() ? integer_ : fallback;
    }
    const std::string &as_string() const { return is_string() ? string_ : empty_string(); }

    // The items of an array or object; 0 for anything else.
    std::size_t size() const { return is_array() || is_object() ? items_.size() : 0; }
    const Json &operator[](std::size_t index) const {
        return is_array() && index < items_.size() ? items_[index] : null_value();
    }
    const Json &operator[](int index) const {  // so that legal[0] is not read as a key
        return index < 0 ? null_value() : (*this)[static_cast<std::size_t>(index)];
    }
    const Json &operator[](const std::string &key) const {
        if (is_object())  // the last one if a key is repeated
            for (std::size_t i = keys_.size(); i-- > 0;)
                if (keys_[i] == key) return items_[i];
        return null_value();
    }
    const Json &operator[](const char *key) const { return (*this)[std::string(key)]; }
    bool has(const std::string &key) const { return &(*this)[key] != &null_value(); }
    // An object's keys, in order (keys()[i] names the value (*this)[i] of items()).
    const std::vector<std::string> &keys() const { return keys_; }
    // An array's elements or an object's values, in order.
    const std::vector<Json> &items() const { return items_; }

    // The value as one line of JSON (e.g. std::cerr << observation.dump() << '\n').
    std::string dump() const {
        std::string out;
        dump_to(out);
        return out;
    }

private:
    friend class JsonParser;

    static const Json &null_value() {
        static const Json null;
        return null;
    }
    static const std::string &empty_string() {
        static const std::string empty;
        return empty;
    }

    static void dump_string(std::string &out, const std::string &text) {
        out += '"';
        for (unsigned char c : text) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char escape[8];
                    std::snprintf(escape, sizeof escape, "\\u%04x", c);
                    out += escape;
                } else {
                    out += static_cast<char>(c);
                }
            }
        }
        out += '"';
    }

    void dump_to(std::string &out) const {
        switch (type_) {
        case Type::Null: out += "null"; break;
        case Type::Bool: out += boolean_ ? "true" : "false"; break;
        case Type::Number:
            if (is_integer_) {
                out += std::to_string(integer_);
            } else if (std::isfinite(number_)) {
                char text[32];
                std::snprintf(text, sizeof text, "%.17g", number_);
                out += text;
            } else {
                out += number_ > 0 ? "1e999" : "-1e999";  // read back as infinity
            }
            break;
        case Type::String: dump_string(out, string_); break;
        case Type::Array:
        case Type::Object:
            out += is_array() ? '[' : '{';
            for (std::size_t i = 0; i < items_.size(); i++) {
                if (i > 0) out += ',';
                if (is_object()) {
                    dump_string(out, keys_[i]);
                    out += ':';
                }
                items_[i].dump_to(out);
            }
            out += is_array() ? ']' : '}';
            break;
        }
    }

    Type type_ = Type::Null;
    bool boolean_ = false;
    double number_ = 0;
    bool is_integer_ = false;
    long long integer_ = 0;
    std::string string_;
    std::vector<std::string> keys_;
    std::vector<Json> items_;
};

class JsonParser {
public:
    explicit JsonParser(const std::string &text) : text_(text) {}

    Json parse_document() {
        Json value = parse_value(0);
        skip_space();
        if (at_ != text_.size()) fail("unexpected text after the value");
        return value;
    }

private:
    static constexpr int max_depth = 512;  // deeper is refused rather than overflowing the stack

    [[noreturn]] void fail(const std::string &what) const {
        throw JsonError(what + " at byte " + std::to_string(at_));
    }
    int peek() const {
        return at_ < text_.size() ? static_cast<unsigned char>(text_[at_]) : -1;
    }
    static bool is_digit(int c) { return c >= '0' && c <= '9'; }
    void skip_space() {
        while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') at_++;
    }
    void expect(char c, const char *what) {
        skip_space();
        if (peek() != static_cast<unsigned char>(c)) fail(what);
        at_++;
    }

    Json parse_value(int depth) {
        skip_space();
        int c = peek();
        Json value;
        if (c == '{' || c == '[') {
            if (depth >= max_depth) fail("nested too deeply");
            parse_container(value, depth + 1);
        } else if (c == '"') {
            value.type_ = Json::Type::String;
            value.string_ = parse_string();
        } else if (c == 't' || c == 'f' || c == 'n') {
            const std::string word = c == 't' ? "true" : c == 'f' ? "false" : "null";
            if (text_.compare(at_, word.size(), word) != 0) fail("unexpected character");
            at_ += word.size();
            value.type_ = c == 'n' ? Json::Type::Null : Json::Type::Bool;
            value.boolean_ = c == 't';
        } else if (c == '-' || is_digit(c)) {
            parse_number(value);
        } else {
            fail(c < 0 ? "unexpected end" : "unexpected character");
        }
        return value;
    }

    void parse_container(Json &value, int depth) {
        bool object = peek() == '{';
        char close = object ? '}' : ']';
        value.type_ = object ? Json::Type::Object : Json::Type::Array;
        at_++;
        skip_space();
        if (peek() == close) {
            at_++;
            return;
        }
        for (;;) {
            if (object) {
                skip_space();
                if (peek() != '"') fail("expected a key");
                value.keys_.push_back(parse_string());
                expect(':', "expected ':'");
            }
            value.items_.push_back(parse_value(depth));
            skip_space();
            if (peek() == ',') {
                at_++;
            } else if (peek() == close) {
                at_++;
                return;
            } else {
                fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
            }
        }
    }

    long read_hex4() {
        if (at_ + 4 > text_.size()) return -1;
        long code = 0;
        for (int i = 0; i < 4; i++) {
            char c = text_[at_ + i];
            int digit = is_digit(c) ? c - '0'
                        : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                        : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
            if (digit < 0) return -1;
            code = code * 16 + digit;
        }
        at_ += 4;
        return code;
    }

    // After the "\u": one character, a surrogate pair read as one.
    long read_unicode_escape() {
        long code = read_hex4();
        if (code < 0) fail("bad \\u escape");
        if (code >= 0xDC00 && code <= 0xDFFF) return 0xFFFD;  // a low surrogate alone
        if (code < 0xD800 || code > 0xDBFF) return code;
        if (at_ + 2 <= text_.size() && text_[at_] == '\\' && text_[at_ + 1] == 'u') {
            std::size_t before = at_;
            at_ += 2;
            long low = read_hex4();
            if (low >= 0xDC00 && low <= 0xDFFF)
                return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            at_ = before;  // not a low surrogate: the next escape stands on its own
        }
        return 0xFFFD;  // a high surrogate alone
    }

    static void append_utf8(std::string &out, unsigned long code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string parse_string() {
        std::string out;
        at_++;  // the opening quote
        for (;;) {
            if (at_ >= text_.size()) fail("unterminated string");
            unsigned char c = static_cast<unsigned char>(text_[at_]);
            if (c < 0x20) fail("control character in a string");
            at_++;
            if (c == '"') return out;
            if (c != '\\') {
                out += static_cast<char>(c);
                continue;
            }
            int escape = peek();
            switch (escape) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u':
                at_++;
                append_utf8(out, static_cast<unsigned long>(read_unicode_escape()));
                continue;
            default: fail("bad escape");
            }
            at_++;
        }
    }

    void parse_number(Json &value) {
        std::size_t start = at_;
        bool integral = true;
        if (peek() == '-') at_++;
        if (peek() == '0') {
            at_++;
        } else if (is_digit(peek())) {
            while (is_digit(peek())) at_++;
        } else {
            fail("bad number");
        }
        if (peek() == '.') {
            integral = false;
            at_++;
            if (!is_digit(peek())) fail("bad number");
            while (is_digit(peek())) at_++;
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            at_++;
            if (peek() == '+' || peek() == '-') at_++;
            if (!is_digit(peek())) fail("bad number");
            while (is_digit(peek())) at_++;
        }
        const std::string number = text_.substr(start, at_ - start);
        value.type_ = Json::Type::Number;
        value.number_ = std::strtod(number.c_str(), nullptr);  // the "C" locale unless set
        if (integral) {
            errno = 0;
            long long integer = std::strtoll(number.c_str(), nullptr, 10);
            value.is_integer_ = errno != ERANGE;
            value.integer_ = value.is_integer_ ? integer : 0;
        }
    }

    const std::string &text_;
    std::size_t at_ = 0;
};

inline Json Json::parse(const std::string &text) { return JsonParser(text).parse_document(); }
