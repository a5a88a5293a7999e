//! A small JSON reader (and writer, for logs) for a Ra Arena bot in Rust, standard library
//! only (no crate to download).  You should not need to change it: main.rs uses it for you.
//!
//! `Json::parse` turns one line of text into a `Json` value.  Indexing with a key or a
//! position that is not there gives `Json::Null` instead of panicking, so lookups chain:
//!
//! ```text
//! legal[i]["type"].as_str() == Some("bid")
//! legal[i]["sun"].as_i64().unwrap_or(-1)
//! observation["players"].len()              // 0 when not an array or object
//! ```
//!
//! RFC 8259: strict grammar; \u escapes, surrogate pairs included, are decoded (a lone
//! surrogate becomes U+FFFD).

#![allow(dead_code)] // helpers for your strategy, whether or not it uses them yet

use std::fmt;
use std::ops::Index;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A whole number written without fraction or exponent that fits an i64: exact.
    Integer(i64),
    /// Any other number.
    Number(f64),
    String(String),
    Array(Vec<Json>),
    /// The keys and values, in order.
    Object(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;
const MAX_DEPTH: usize = 512; // deeper is refused rather than overflowing the stack

impl Json {
    /// The JSON value of `text`, or what is wrong with it.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut parser = Parser {
            text: text.as_bytes(),
            at: 0,
        };
        let value = parser.value(0)?;
        parser.skip_space();
        if parser.at != parser.text.len() {
            return Err(parser.fail("unexpected text after the value"));
        }
        Ok(value)
    }

    /// The value of `key` in an object (the last one if repeated); `Json::Null` if absent.
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(members) => members
                .iter()
                .rev()
                .find(|(name, _)| name == key)
                .map_or(&NULL, |(_, value)| value),
            _ => &NULL,
        }
    }

    /// The element `index` of an array; `Json::Null` if out of range.
    pub fn at(&self, index: usize) -> &Json {
        match self {
            Json::Array(items) => items.get(index).unwrap_or(&NULL),
            _ => &NULL,
        }
    }

    /// The items of an array or object; 0 for anything else.
    pub fn len(&self) -> usize {
        match self {
            Json::Array(items) => items.len(),
            Json::Object(members) => members.len(),
            _ => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(value) => Some(*value),
            _ => None,
        }
    }

    /// A whole number's exact value.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Integer(value) => Some(*value),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Integer(value) => Some(*value as f64),
            Json::Number(value) => Some(*value),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(value) => Some(value),
            _ => None,
        }
    }

    /// An array's elements (empty for anything else).
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }

    /// An object's keys and values, in order (empty for anything else).
    pub fn members(&self) -> &[(String, Json)] {
        match self {
            Json::Object(members) => members,
            _ => &[],
        }
    }
}

impl Index<&str> for Json {
    type Output = Json;
    fn index(&self, key: &str) -> &Json {
        self.get(key)
    }
}

impl Index<usize> for Json {
    type Output = Json;
    fn index(&self, index: usize) -> &Json {
        self.at(index)
    }
}

fn write_string(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => write!(f, "{}", c)?,
        }
    }
    f.write_str("\"")
}

/// The value as one line of JSON (e.g. `eprintln!("{}", observation)`).
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(value) => write!(f, "{}", value),
            Json::Integer(value) => write!(f, "{}", value),
            Json::Number(value) if value.is_infinite() => {
                f.write_str(if *value > 0.0 { "1e999" } else { "-1e999" })
            }
            Json::Number(value) => write!(f, "{}", value), // reads back the same
            Json::String(value) => write_string(f, value),
            Json::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}", item)?;
                }
                f.write_str("]")
            }
            Json::Object(members) => {
                f.write_str("{")?;
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_string(f, key)?;
                    write!(f, ":{}", value)?;
                }
                f.write_str("}")
            }
        }
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn fail(&self, what: &str) -> String {
        format!("{} at byte {}", what, self.at)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn peek_is(&self, wanted: u8) -> bool {
        self.peek() == Some(wanted)
    }

    fn peek_digit(&self) -> bool {
        matches!(self.peek(), Some(b'0'..=b'9'))
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        self.skip_space();
        match self.peek() {
            Some(b'{' | b'[') if depth >= MAX_DEPTH => Err(self.fail("nested too deeply")),
            Some(b'{' | b'[') => self.container(depth + 1),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.fail("unexpected character")),
            None => Err(self.fail("unexpected end")),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if !self.text[self.at..].starts_with(word.as_bytes()) {
            return Err(self.fail("unexpected character"));
        }
        self.at += word.len();
        Ok(value)
    }

    fn container(&mut self, depth: usize) -> Result<Json, String> {
        let object = self.peek_is(b'{');
        let close = if object { b'}' } else { b']' };
        let mut items = Vec::new();
        let mut members = Vec::new();
        self.at += 1;
        self.skip_space();
        if self.peek_is(close) {
            self.at += 1;
        } else {
            loop {
                if object {
                    self.skip_space();
                    if !self.peek_is(b'"') {
                        return Err(self.fail("expected a key"));
                    }
                    let key = self.string()?;
                    self.skip_space();
                    if !self.peek_is(b':') {
                        return Err(self.fail("expected ':'"));
                    }
                    self.at += 1;
                    members.push((key, self.value(depth)?));
                } else {
                    items.push(self.value(depth)?);
                }
                self.skip_space();
                if self.peek_is(b',') {
                    self.at += 1;
                } else if self.peek_is(close) {
                    self.at += 1;
                    break;
                } else {
                    return Err(self.fail(if object {
                        "expected ',' or '}'"
                    } else {
                        "expected ',' or ']'"
                    }));
                }
            }
        }
        Ok(if object {
            Json::Object(members)
        } else {
            Json::Array(items)
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + 4)?;
        let mut code = 0;
        for &digit in digits {
            code = code * 16 + (digit as char).to_digit(16)?;
        }
        self.at += 4;
        Some(code)
    }

    /// After the "\u": one character, a surrogate pair read as one.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let code = self.hex4().ok_or_else(|| self.fail("bad \\u escape"))?;
        if (0xD800..=0xDBFF).contains(&code) && self.text[self.at..].starts_with(b"\\u") {
            let before = self.at;
            self.at += 2;
            match self.hex4() {
                Some(low) if (0xDC00..=0xDFFF).contains(&low) => {
                    let pair = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    return Ok(char::from_u32(pair).unwrap_or('\u{FFFD}'));
                }
                _ => self.at = before, // not a low surrogate: the next escape stands alone
            }
        }
        Ok(char::from_u32(code).unwrap_or('\u{FFFD}')) // a lone surrogate is no char
    }

    fn string(&mut self) -> Result<String, String> {
        let mut out = Vec::new();
        self.at += 1; // the opening quote
        loop {
            let c = self
                .peek()
                .ok_or_else(|| self.fail("unterminated string"))?;
            if c < 0x20 {
                return Err(self.fail("control character in a string"));
            }
            self.at += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let plain = match self.peek() {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 8,
                        Some(b'f') => 12,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'u') => 0,
                        _ => return Err(self.fail("bad escape")),
                    };
                    self.at += 1;
                    if plain != 0 {
                        out.push(plain);
                    } else {
                        let mut bytes = [0; 4];
                        out.extend_from_slice(
                            self.unicode_escape()?.encode_utf8(&mut bytes).as_bytes(),
                        );
                    }
                }
                _ => out.push(c),
            }
        }
        // the text was UTF-8 and escapes were added as UTF-8
        String::from_utf8(out).map_err(|_| self.fail("not UTF-8"))
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        let mut integral = true;
        if self.peek_is(b'-') {
            self.at += 1;
        }
        if self.peek_is(b'0') {
            self.at += 1;
        } else if self.peek_digit() {
            while self.peek_digit() {
                self.at += 1;
            }
        } else {
            return Err(self.fail("bad number"));
        }
        if self.peek_is(b'.') {
            integral = false;
            self.at += 1;
            if !self.peek_digit() {
                return Err(self.fail("bad number"));
            }
            while self.peek_digit() {
                self.at += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integral = false;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !self.peek_digit() {
                return Err(self.fail("bad number"));
            }
            while self.peek_digit() {
                self.at += 1;
            }
        }
        // only ASCII digits, signs, '.' and 'e' were read: valid UTF-8
        let text = std::str::from_utf8(&self.text[start..self.at]).unwrap_or("0");
        if integral {
            if let Ok(value) = text.parse::<i64>() {
                return Ok(Json::Integer(value));
            }
        }
        text.parse::<f64>()
            .map(Json::Number)
            .map_err(|_| self.fail("bad number"))
    }
}
